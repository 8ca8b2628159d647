import ArchivePlatform
import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// Findings of a review of the write side, each as the scenario it stands for: a compaction whose
/// directory sync failed unseen, an index repaired but still taken for damaged, a reader that read a rewrite's
/// retired mark just before its rename.
@Suite("Repository: write-side findings")
struct RepositoryWriteSideFindingsTests {
    static func inode(_ path: String) throws -> UInt64 {
        let number = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)
        return number.uint64Value
    }

    /// Directory syncs of the store's directory counted, failing while `failing` is set.
    final class DirectorySyncs: @unchecked Sendable { // Sendable: state behind a lock.
        private let state = Locked<(count: Int, failing: Bool, failed: Int)>((0, false, 0))
        var count: Int { state.withLock { $0.count } }
        var failed: Int { state.withLock { $0.failed } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
        func fileSystem(directory: String) -> FileSystem {
            FileSystem { [self] call, path in
                guard call == .sync, path == directory else { return nil }
                return state.withLock { state -> FileSystem.Fault? in
                    state.count += 1
                    guard state.failing else { return nil }
                    state.failed += 1
                    return .error(EIO)
                }
            }
        }
    }

    /// A remove compacts the log and the directory sync after the rename fails: the remove itself is made (the
    /// compaction is upkeep), and the next commit syncs the directory before it is acknowledged; while that
    /// sync fails too, commits fail with `io` and store nothing.
    @Test func aCompactionWhoseDirectorySyncFailedIsSyncedByTheNextCommit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let syncs = DirectorySyncs()
        var options = RepositoryOptions()
        options.tuning.compactionFloor = 0
        options.tuning.maintainsInBackground = false
        options.fileSystem = syncs.fileSystem(directory: directory.path)
        let repository = ArchiveRepository<SampleRecord>(path: path, options: options)
        for record in sampleRecords(0..<4) { try repository.add(record) }
        _ = try repository.remove("id0")
        let before = try Self.inode(path)
        syncs.fail(true)
        #expect(try repository.remove("id2")?.id == "id2")
        #expect(try Self.inode(path) != before, "the log was compacted")
        #expect(syncs.failed == 1)
        let error = #expect(throws: StoreError.self) { try repository.add(sampleRecords(10..<11)[0]) }
        #expect(error?.code == .io)
        #expect(error?.errno == EIO)
        #expect(try repository.get("id10") == nil)
        syncs.fail(false)
        let counted = syncs.count
        try repository.add(sampleRecords(10..<11)[0])
        #expect(syncs.count == counted + 1, "the directory is synced before the commit is acknowledged")
        try repository.add(sampleRecords(11..<12)[0])
        #expect(syncs.count == counted + 1, "once")
        #expect(try ArchiveRepository<SampleRecord>(path: path).records().map(\.id) == ["id1", "id3", "id10", "id11"])
    }

    /// An index found damaged when the store was opened is written again once, then trusted: the commits after
    /// its repair do not write it again (they wrote it at every commit).
    @Test func aRepairedIndexIsNotWrittenAgainAtEveryCommit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        var options = RepositoryOptions()
        options.tuning.mergeFrames = 4
        options.tuning.maintainsInBackground = false
        let first = ArchiveRepository<SampleRecord>(path: path, options: options)
        for record in sampleRecords(0..<40) { try first.add(record) }
        first.close()
        try directory.write([UInt8](repeating: 0x41, count: 200), to: "Forms.archive.index")
        let repository = ArchiveRepository<SampleRecord>(path: path, options: options)
        try repository.add(sampleRecords(40..<41)[0])   // writes the index again
        var last = try Self.inode(path + ".index")
        var rewrites = 0
        for record in sampleRecords(41..<44) {
            try repository.add(record)
            let now = try Self.inode(path + ".index")
            if now != last { rewrites += 1 }
            last = now
        }
        #expect(rewrites == 0)
        #expect(try ArchiveRepository<SampleRecord>(path: path, options: options).count() == 44)
    }

    /// A reader reads the store between a compaction's retired mark and its rename (the same file still at the
    /// path): it answers from that file then, and from the new one at its next call, seeing the commit made
    /// after the compaction (it kept the old file's slots and missed it until its 50 ms identity check).
    @Test func aReaderThatReadTheRetiredMarkSeesTheNextCommitAtOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        final class Hook: @unchecked Sendable { // Sendable: state behind a lock.
            let action = Locked<(() -> Void)?>(nil)
        }
        let hook = Hook()
        var options = RepositoryOptions()
        options.tuning.compactionFloor = 0
        options.tuning.maintainsInBackground = false
        options.fileSystem = FileSystem { call, renamed in
            guard call == .rename, renamed == path else { return nil }
            let action = hook.action.withLock { action -> (() -> Void)? in
                defer { action = nil }
                return action
            }
            action?()
            return nil
        }
        let writer = ArchiveRepository<SampleRecord>(path: path, options: options)
        for record in sampleRecords(0..<4) { try writer.add(record) }
        _ = try writer.remove("id0")
        let reader = ArchiveRepository<SampleRecord>(path: path)
        #expect(try reader.count() == 3)
        let inWindow = Locked<Result<Int, StoreError>?>(nil)
        hook.action.withLock { action in
            action = {
                let result = Result { () throws(StoreError) -> Int in try reader.count() }
                inWindow.withLock { $0 = result }
            }
        }
        _ = try writer.remove("id2")   // compacts: the mark, the reader's read, the rename
        #expect(try inWindow.withLock { $0 }?.get() == 2)
        try writer.add(sampleRecords(10..<11)[0])
        #expect(try reader.get("id10")?.id == "id10")
        #expect(try reader.count() == 3)
    }
}
