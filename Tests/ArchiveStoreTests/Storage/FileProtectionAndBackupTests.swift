import ArchivePlatform
import Foundation
import Testing
import KeyedArchive
import TestSupport
@testable import ArchiveStore

/// The Data Protection class and backup exclusion the engines give their files, seen through the attribute calls
/// of the file-system seam (recorded here: Linux has neither attribute, so the platform's calls do nothing).
@Suite("Storage floor: file protection and backup exclusion")
struct FileProtectionAndBackupTests {
    let directory: TemporaryDirectory
    let recorder = AttributeRecorder()

    init() throws { directory = try TemporaryDirectory(prefix: "protection") }

    var cachePath: String { directory.file("cache") }

    /// Temporary names end in `tmp-<pid>-<random>`: written `tmp-*` so that a test can name them.
    static func normalized(_ paths: [String]) -> [String] {
        paths.map { path in
            guard let range = path.range(of: "tmp-") else { return path }
            return path[..<range.upperBound] + "*"
        }.sorted()
    }

    func cache(_ options: CacheOptions = CacheOptions(), plan: FileSystem.FaultPlan? = nil) throws -> ArchiveCache<[UInt8]> {
        try ArchiveCache<[UInt8]>(directory: cachePath, registry: .standard, options: options,
                                  fileSystem: recorder.fileSystem(plan: plan), keyHash: { StableHash($0.utf8) })
    }

    // MARK: The cache

    @Test func everyFileAndDirectoryTheCacheCreatesGetsTheDefaultClass() throws {
        let cache = try cache()
        try cache.set([1, 2, 3], forKey: "small")
        try cache.set([UInt8](repeating: 7, count: 100_000), forKey: "large")
        let largeName = StableHash("large".utf8).hex + ".archive"
        let segments = try FileManager.default.contentsOfDirectory(atPath: cachePath + "/segments")
        #expect(segments.count == 1)
        #expect(recorder.protection(cachePath) == FileProtection.completeUntilFirstUserAuthentication.rawValue)
        #expect(Self.normalized(recorder.protectedPaths(below: cachePath)) == [
            ".cache.table.tmp-*", "cache.lock", "large", "large/." + largeName + ".tmp-*", "segments",
        ] + segments.map { "segments/" + $0 })
        let classes = Set(recorder.state.withLock { Array($0.protection.values) })
        #expect(classes == [FileProtection.completeUntilFirstUserAuthentication.rawValue])
    }

    @Test func aCacheOpenedAgainCreatesNothingAndOnlyChecksItsDirectory() throws {
        try cache().set([1], forKey: "k")
        recorder.clearLog()
        let again = try cache()
        #expect(try again.value(forKey: "k") == [1])
        #expect(recorder.log == ["get \(cachePath)", "excluded? \(cachePath)"])
    }

    @Test func aDirectoryOfAnotherClassIsSetAgainWhenTheCacheOpens() throws {
        _ = try cache()
        recorder.state.withLock { $0.protection[cachePath] = FileProtection.none.rawValue }
        var options = CacheOptions()
        options.fileProtection = .complete
        _ = try cache(options)
        #expect(recorder.protection(cachePath) == FileProtection.complete.rawValue)
    }

    @Test func noClassSetsNone() throws {
        var options = CacheOptions()
        options.fileProtection = nil
        try cache(options).set([1], forKey: "k")
        #expect(recorder.log.filter { $0.hasPrefix("set ") || $0.hasPrefix("get ") } == [])
    }

    @Test func theCacheDirectoryIsExcludedFromBackupsAtCreationAndAgainWhenCleared() throws {
        _ = try cache()
        #expect(recorder.isExcluded(cachePath) == true)
        // A restore from a backup, or a user, clears it: the next opening sets it again.
        recorder.state.withLock { $0.excluded[cachePath] = false }
        _ = try cache()
        #expect(recorder.isExcluded(cachePath) == true)
        // Only the directory: its files are covered by it.
        #expect(recorder.state.withLock { $0.excluded.keys.sorted() } == [cachePath])
    }

    @Test func aCacheKeptInBackupsLeavesItsDirectoryAsItIs() throws {
        var options = CacheOptions()
        options.excludedFromBackup = false
        _ = try cache(options)
        #expect(recorder.isExcluded(cachePath) == nil)
        #expect(!recorder.log.contains { $0.hasPrefix("exclude") || $0.hasPrefix("excluded?") })
    }

    @Test func aClassThatCannotBeSetFailsTheWriteAndLeavesNoFileBehind() throws {
        let plan: FileSystem.FaultPlan = { call, path in
            call == .setAttributes && path.hasSuffix(".seg") ? .error(EIO) : nil
        }
        let cache = try cache(plan: plan)
        let error = #expect(throws: StoreError.self) { try cache.set([1], forKey: "k") }
        #expect(error?.code == .io)
        #expect(error?.reason.hasPrefix("setAttributes:") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + "/segments") == [])
        // The directory still works once the class can be set.
        let healthy = try self.cache()
        try healthy.set([2], forKey: "k")
        #expect(try healthy.value(forKey: "k") == [2])
    }

    // MARK: Protected data while the device is locked

    /// `EPERM` on a read while the device is locked: a miss, counted as one and not as damage, and the entry is
    /// still there once it is readable again.
    @Test func aCacheReadRefusedWhileLockedIsAMissAndNotDamage() throws {
        try cache().set([9, 9], forKey: "k")
        let locked = try cache(plan: { call, path in call == .read && path.hasSuffix(".seg") ? .error(EPERM) : nil })
        #expect(try locked.value(forKey: "k") == nil)
        #expect(locked.statistics.misses == 1)
        #expect(locked.statistics.damaged == 0)
        let unlocked = try cache()
        #expect(try unlocked.value(forKey: "k") == [9, 9])
    }

    @Test func aCacheWriteRefusedWhileLockedThrowsProtectedDataUnavailable() throws {
        try cache().set([1], forKey: "old")
        let locked = try cache(plan: { call, path in call == .write && path.hasSuffix(".seg") ? .error(EPERM) : nil })
        let error = #expect(throws: StoreError.self) { try locked.set([2], forKey: "new") }
        #expect(error?.code == .protectedDataUnavailable)
        #expect(error?.errno == EPERM)
        #expect(try cache().value(forKey: "old") == [1])
    }

    @Test func aStoreReadRefusedWhileLockedThrowsProtectedDataUnavailableAndChangesNothing() throws {
        let path = directory.file("data/Notes.archive")
        try ArchiveRepository<Note>(path: path).add(Note(id: "n1", text: "hello"))
        let before = try #require(FileManager.default.contents(atPath: path))
        var options = RepositoryOptions()
        options.fileSystem = recorder.fileSystem(plan: { call, callPath in call == .read && callPath == path ? .error(EPERM) : nil })
        let locked = ArchiveRepository<Note>(path: path, options: options)
        for attempt in [{ _ = try locked.get("n1") }, { _ = try locked.records() }, { try locked.add(Note(id: "n2", text: "x")) }] {
            let error = #expect(throws: StoreError.self) { try attempt() }
            #expect(error?.code == .protectedDataUnavailable)
        }
        #expect(FileManager.default.contents(atPath: path) == before)
        #expect(try ArchiveRepository<Note>(path: path).get("n1")?.text == "hello")
    }

    /// Where files have no protection classes (Linux, macOS), `EPERM` is an I/O error like any other.
    @Test func withoutProtectionClassesEPERMIsAnIOError() throws {
        let fileSystem = FileSystem(plan: { call, _ in call == .open ? .error(EPERM) : nil },
                                    attributes: NoFileAttributes())
        let error = #expect(throws: StoreError.self) { _ = try fileSystem.open(directory.file("x"), [.readOnly]) }
        #expect(error?.code == .io)
        #expect(error?.errno == EPERM)
    }

    // MARK: The repository

    @Test func theRepositoryGivesEveryFileItCreatesItsClassAndExcludesOnlyItsFilesWhenAsked() throws {
        let path = directory.file("data/Notes.archive")
        var options = RepositoryOptions()
        options.fileSystem = recorder.fileSystem()
        options.fileProtection = .complete
        options.excludedFromBackup = true
        options.tuning.mergeFrames = 1   // an index from the first record on, written inside the add
        options.tuning.maintainsInBackground = false
        try ArchiveRepository<Note>(path: path, options: options).add(Note(id: "n1", text: "hello"))
        let data = directory.file("data")
        #expect(recorder.protection(data) == FileProtection.complete.rawValue)
        // The store and its index are written as temporary files renamed into place: each is given both as it is created.
        let files = [".Notes.archive.index.tmp-*", ".Notes.archive.tmp-*", "Notes.archive.lock"]
        #expect(Self.normalized(recorder.protectedPaths(below: data)) == files)
        #expect(Self.normalized(recorder.state.withLock { Array($0.excluded.keys) }.map { String($0.dropFirst(data.count + 1)) }) == files)
        #expect(recorder.isExcluded(data) == nil)   // the directory may hold other things: never excluded
    }

    @Test func theRepositoryKeepsItsFilesInBackupsByDefault() throws {
        var options = RepositoryOptions()
        options.fileSystem = recorder.fileSystem()
        try ArchiveRepository<Note>(path: directory.file("Notes.archive"), options: options).add(Note(id: "n1", text: "a"))
        #expect(recorder.state.withLock { $0.excluded.isEmpty })
        #expect(recorder.protection(directory.file("Notes.archive.lock")) == FileProtection.completeUntilFirstUserAuthentication.rawValue)
    }

    @Test func aStoreOfAnotherClassIsSetAgainAtTheFirstChangeOfARepositoryObject() throws {
        let path = directory.file("Notes.archive")
        var options = RepositoryOptions()
        options.fileSystem = recorder.fileSystem()
        try ArchiveRepository<Note>(path: path, options: options).add(Note(id: "n1", text: "a"))
        recorder.state.withLock { $0.protection[path] = FileProtection.none.rawValue }
        let repository = ArchiveRepository<Note>(path: path, options: options)
        _ = try repository.get("n1")
        #expect(recorder.protection(path) == FileProtection.none.rawValue)   // reads change nothing
        try repository.add(Note(id: "n2", text: "b"))
        #expect(recorder.protection(path) == FileProtection.completeUntilFirstUserAuthentication.rawValue)
        recorder.clearLog()
        try repository.add(Note(id: "n3", text: "c"))
        #expect(!recorder.log.contains { $0.hasPrefix("get ") })   // checked once an object
    }

    // MARK: The seam

    @Test func anOpenThatCreatesAFileGivesItTheClassAndOneThatFindsItDoesNot() throws {
        let fileSystem = recorder.fileSystem().creating(NewItemAttributes(protection: .complete))
        let file = directory.file("f")
        fileSystem.close(try fileSystem.open(file, [.readWrite, .create]))
        #expect(recorder.log == ["set \(FileProtection.complete.rawValue) \(file)"])
        recorder.clearLog()
        fileSystem.close(try fileSystem.open(file, [.readWrite, .create]))
        #expect(recorder.log == [])
    }
}

/// A small record for the repository tests of this suite.
struct Note: ArchiveRecord, Codable, Equatable {
    var id: String
    var text: String
}
