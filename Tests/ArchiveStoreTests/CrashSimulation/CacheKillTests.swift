import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// A writer killed (SIGKILL) at any point of an operation on a cache with a byte limit: a kill keeps every call
/// made before it (the page cache survives), so each state is the recorded calls up to a point, all kept. Every
/// state opens with its figures equal to what `du` shows (the byte limit counts exactly that), with no large file
/// that no entry names, and a trim brings it within the limit.
///
/// The state the `writersKilledMidWriteLeaveAUsableDirectory` CLI test met now and then: a writer killed after
/// renaming a large entry's file into place and before writing the table's header back left a file the header
/// never counted, so a trim stopped with `du` 8 KiB over the limit.
@Suite("ArchiveCache: killed writers")
struct CacheKillTests {
    enum Operation: String, CaseIterable {
        case setLarge, setSmallEvictingTheOldestSegment, replaceLargeWithSmall, replaceLargeWithLarge, trimCarryingTheOldestSegment,
             setGrowingTheTable
    }

    /// 16 KiB segments either way, entries over 4 KiB in files of their own; room for 180 small entries (a table
    /// of 256 slots grows at the 180th) when the table grows.
    static func byteLimit(_ operation: Operation) -> Int { operation == .setGrowingTheTable ? 256 << 10 : 64 << 10 }

    static func cache(_ root: String, _ operation: Operation, _ fileSystem: FileSystem = .kernel) throws -> ArchiveCache<[UInt8]> {
        var options = CacheOptions()
        options.durability = .relaxed
        options.byteLimit = byteLimit(operation)
        options.memoryCostLimit = 0
        return try ArchiveCache<[UInt8]>(directory: root + "/cache", registry: .standard, options: options,
                                         fileSystem: fileSystem, keyHash: { StableHash($0.utf8) })
    }

    static func setUp(_ operation: Operation, _ cache: ArchiveCache<[UInt8]>) throws {
        switch operation {
        case .setGrowingTheTable:
            for i in 0..<179 { try cache.set(payload("k\(i)", 0, size: 16), forKey: "k\(i)") }
        default:
            for i in 0..<40 { try cache.set(payload("k\(i)", 0, size: 600), forKey: "k\(i)") }
            for i in 0..<3 { try cache.set(payload("big\(i)", 0, size: 5_000), forKey: "big\(i)") }
            _ = try cache.value(forKey: "k30")   // used since written: carried forward when its segment goes
        }
    }

    static func perform(_ operation: Operation, _ cache: ArchiveCache<[UInt8]>) throws {
        switch operation {
        case .setLarge: try cache.set(payload("big-new", 1, size: 5_000), forKey: "big-new")
        case .setSmallEvictingTheOldestSegment:
            for i in 0..<30 { try cache.set(payload("n\(i)", 1, size: 600), forKey: "n\(i)") }
        case .replaceLargeWithSmall: try cache.set(payload("big1", 1, size: 600), forKey: "big1")
        case .replaceLargeWithLarge: try cache.set(payload("big1", 1, size: 7_000), forKey: "big1")
        case .trimCarryingTheOldestSegment: try cache.trim(toByteLimit: 40 << 10)
        case .setGrowingTheTable: try cache.set(payload("new", 1, size: 16), forKey: "new")
        }
    }

    /// Whether the operation's calls hold the change it is there to cut (so that each scenario is the one named).
    static func makesItsChange(_ operation: Operation, _ calls: [RecordedCall]) -> Bool {
        calls.contains { call in
            switch (operation, call) {
            case (.setLarge, .rename(_, let to)): return to.hasSuffix(".archive")
            case (.setSmallEvictingTheOldestSegment, .unlink(let path)), (.trimCarryingTheOldestSegment, .unlink(let path)):
                return path.hasSuffix(".seg")
            case (.replaceLargeWithSmall, .unlink(let path)), (.replaceLargeWithLarge, .unlink(let path)): return path.hasSuffix(".archive")
            case (.setGrowingTheTable, .rename(_, let to)): return to.hasSuffix("/cache.table")
            default: return false
            }
        }
    }

    /// The names in `large/` that no entry's key names (under either of its two names), or more than one a key.
    static func unnamedLargeFiles(_ directory: String, _ cache: ArchiveCache<[UInt8]>) throws -> [String] {
        let keys = Set(try cache.entries().map { StableHash($0.key.utf8).hex })
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/large")) ?? []
        var seen: Set<String> = []
        return names.filter { name in
            let hash = String(name.prefix(32))
            return !(name == hash + ".archive" || name == hash + ".1.archive") || !keys.contains(hash) || !seen.insert(hash).inserted
        }.sorted()
    }

    @Test(arguments: Operation.allCases)
    func everyKillPointOpensWithTheFiguresDuShowsAndTrimsWithinTheLimit(operation: Operation) throws {
        let work = try TemporaryDirectory(prefix: "cache-kill")
        let root = work.file("live")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        try Self.setUp(operation, try Self.cache(root, operation))
        let (base, inodes) = try CrashImage.capture(root)
        let recorder = FileSystemRecorder(inodes: inodes)
        try Self.perform(operation, try Self.cache(root, operation, recorder.recording()))
        let calls = recorder.calls
        let limit = Self.byteLimit(operation)
        #expect(Self.makesItsChange(operation, calls), "\(operation): \(calls)")
        var problems: [String] = []
        for point in 0...calls.count {
            var image = base
            for call in calls.prefix(point) { image.apply(call) }
            let state = work.file("state-\(point)")
            try image.materialize(into: state)
            defer { try? FileManager.default.removeItem(atPath: state) }
            let directory = state + "/cache"
            let cache = try Self.cache(state, operation)
            let cut = point == 0 ? "before any call" : "after call \(point) (\(calls[point - 1]))"
            let opened = cache.statistics.byteCount
            if opened != diskUsage(of: directory) { problems.append("\(cut): opens with \(opened) bytes, du \(diskUsage(of: directory))") }
            let unnamed = try Self.unnamedLargeFiles(directory, cache)
            if !unnamed.isEmpty { problems.append("\(cut): large files no entry names: \(unnamed)") }
            try cache.trim(toByteLimit: limit)
            let trimmed = cache.statistics.byteCount
            let du = diskUsage(of: directory)
            if trimmed != du || du > limit { problems.append("\(cut): trimmed to \(trimmed) bytes, du \(du)") }
        }
        #expect(problems == [], "\(operation): \(problems.count) of \(calls.count + 1) states: \(problems.prefix(4))")
    }

    /// A table's temporary file left by a writer killed while it grew (or rebuilt) the table is removed by the
    /// next writer: it is the cache's own file, and `du` counts it.
    @Test func aDeadWritersTableTemporaryIsRemovedByTheNextWriter() throws {
        let work = try TemporaryDirectory(prefix: "cache-kill")
        let directory = work.file("cache")
        try Self.cache(work.path, .setLarge).set([1, 2, 3], forKey: "k")
        let temporary = directory + "/.cache.table.tmp-4242-17"
        try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: temporary))
        let other = directory + "/.cache.table.tmp"   // not a name AtomicReplace gives: left alone
        try Data([1]).write(to: URL(fileURLWithPath: other))
        let cache = try Self.cache(work.path, .setLarge)
        try cache.trim(toByteLimit: 64 << 10)
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(FileManager.default.fileExists(atPath: other))
        try FileManager.default.removeItem(atPath: other)
        #expect(cache.statistics.byteCount == diskUsage(of: directory))
        #expect(try cache.value(forKey: "k") == [1, 2, 3])
    }
}
