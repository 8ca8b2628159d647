// app-example: the three engines as an iOS app sets them up, in one program that also runs on macOS and Linux.
// An exercise log (`ArchiveRepository` with property indexes), a sign-up form kept while offline (`FormCache`)
// and a thumbnail cache (`ArchiveCache`), each in the app group the app shares with its widget when the app is
// entitled to one, else in the app's own directories; each with the Data Protection class and backup setting an
// app would choose, and the locked-device error handled where background work meets it.
//
// USAGE: app-example [directory]     (a directory: every engine below it, for a test run; default: the standard
//                                     directories, or the app group's)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArchiveStore
import FormCache
import KeyedArchive
#if canImport(UIKit)
import UIKit
#endif

// MARK: The model

/// One day's exercise, queried by date and count.
struct ExerciseData: ArchiveRecord, Codable, Equatable, Sendable {
    let id: String
    var recordDate: Date
    var recordCount: Int
    static let indexes: [RecordIndex<ExerciseData>] = [
        RecordIndex("recordDate", \.recordDate),
        RecordIndex("recordCount", \.recordCount),
    ]
}

// MARK: Where each engine lives

let appGroup = "group.com.example.exercise"

/// The directory of the data `name` (Application Support): the app group's when the app is entitled to the
/// group, else the app's own; below `base` when one is given (a test run).
func dataDirectory(_ name: String, below base: URL?) throws(StoreError) -> URL {
    if let base { return base.appendingPathComponent(name, isDirectory: true) }
    do {
        return try ArchiveRepository<ExerciseData>.standardDirectoryURL(named: name, appGroup: appGroup)
    } catch where error.code == .noDataDirectory { // no such group here (not entitled, or Linux)
        return try ArchiveRepository<ExerciseData>.standardDirectoryURL(named: name)
    }
}

/// The directory of the cache `name` (Caches), found as ``dataDirectory(_:below:)`` finds its directory.
func cacheDirectory(_ name: String, below base: URL?) throws(StoreError) -> URL {
    if let base { return base.appendingPathComponent(name, isDirectory: true) }
    do {
        return try ArchiveCache<[UInt8]>.standardDirectoryURL(named: name, appGroup: appGroup)
    } catch where error.code == .noDataDirectory {
        return try ArchiveCache<[UInt8]>.standardDirectoryURL(named: name)
    }
}

#if canImport(UIKit)
/// A change the app may be suspended in the middle of, finished in a background task: the system ends an app
/// suspended while it holds a file lock in an app group's container (0xdead10cc).
@MainActor
func saveBeforeSuspension(_ exercise: ExerciseData, in exercises: ArchiveRepository<ExerciseData>) {
    let task = UIApplication.shared.beginBackgroundTask(withName: "save exercise")
    defer { UIApplication.shared.endBackgroundTask(task) }
    do {
        try exercises.upsert(exercise)
    } catch {
        print("not saved: \(error)")
    }
}
#endif

func run(below base: URL?) throws {
    // The log the user made: kept in backups, readable by a background refresh once the device was unlocked.
    var logOptions = RepositoryOptions()
    logOptions.fileProtection = .completeUntilFirstUserAuthentication
    logOptions.excludedFromBackup = false
    let logDirectory = try dataDirectory("exercise", below: base)
    let exercises = try ArchiveRepository<ExerciseData>(url: logDirectory.appendingPathComponent("Exercise.archive"),
                                                         options: logOptions)

    // Forms typed while offline: unreadable while the device is locked (they hold personal data).
    var formOptions = RepositoryOptions()
    formOptions.fileProtection = .complete
    let forms = try FormCache(directory: try dataDirectory("forms", below: base), options: formOptions)

    // Thumbnails the app can make again: out of backups, a memory layer the system may empty.
    var cacheOptions = CacheOptions()
    cacheOptions.byteLimit = 16 << 20
    cacheOptions.memoryCostLimit = 4 << 20
    cacheOptions.excludedFromBackup = true
    cacheOptions.fileProtection = FileProtection.none
    let thumbnails = try ArchiveCache<[UInt8]>(directory: try cacheDirectory("thumbnails", below: base),
                                               options: cacheOptions)

    // A day's work.
    let day: TimeInterval = 86_400
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    try exercises.write { transaction in
        for offset in 0..<7 {
            try transaction.upsert(ExerciseData(id: "day-\(offset)", recordDate: start + Double(offset) * day,
                                                recordCount: 20 + offset * 5))
        }
    }
    let largest = try exercises.max(of: \.recordCount)
    let latest = try exercises.records(matching: RecordQuery().sorted(by: \.recordDate, ascending: false).limit(3))
    print("largest count: \(largest.map(String.init) ?? "none"); latest: \(latest.map(\.id).joined(separator: ", "))")

    do {
        let form = try forms.add(name: "signup", fields: ["email": "ada@example.com"])
        print("form kept: \(form.name)")
    } catch {
        // A background launch while the device is locked: the form waits for the next unlock.
        guard error.code == .protectedDataUnavailable else { throw error }
        print("the device is locked: the form waits for the next unlock")
    }

    try thumbnails.set([UInt8](repeating: 0xFF, count: 1024), forKey: "day-6")
    print("thumbnail cached: \(try thumbnails.value(forKey: "day-6")?.count ?? 0) bytes")
}

do {
    try run(below: CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0, isDirectory: true) })
} catch {
    print("app-example: \(error)")
    exit(1)
}
