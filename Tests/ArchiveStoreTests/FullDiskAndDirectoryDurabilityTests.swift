import Foundation
import Testing
import TestSupport
@testable import ArchiveStore
import ArchivePlatform

/// The ways a cut-off or failed write used to lock a user out or lose an acknowledged change: a commit or
/// its slot cut short by a full disk, a new data directory whose name was never synced, and a synchronous cache
/// segment whose name was never synced.
@Suite("Full disks and new directories")
struct FullDiskAndDirectoryDurabilityTests {
    static let next = SampleRecord(id: "next", name: "next", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                                 expiresAt: Date(timeIntervalSince1970: 9_999))

    /// The disk fills while a commit's frames are written: part of them, then `ENOSPC` on every write. The add
    /// fails, the frames are cut off again (a cut needs no room), and every later read and write works with no
    /// recovery; `recover` finds nothing to bring back.
    @Test func aCommitCutShortByAFullDiskLeavesTheOldStoreReadableWithNoRecovery() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let plain = ArchiveRepository<SampleRecord>(path: path)
        let before = sampleRecords(0..<2)
        for record in before { try plain.add(record) }
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let disk = FillingDisk(shortBy: 7)
        var options = RepositoryOptions()
        options.fileSystem = disk.fileSystem
        let full = ArchiveRepository<SampleRecord>(path: path, options: options)
        disk.arm(fullAt: 1)   // the add's frames get 7 of their bytes
        let error = #expect(throws: StoreError.self) { try full.add(RecordLogFaultTests.new) }
        #expect(error?.code == .io)
        #expect(error?.errno == ENOSPC)
        #expect(disk.filled == path)
        #expect(disk.writes == 1, "the frames only: nothing is published")
        let committed = try RecordLog.prologue(Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(RecordLog.firstFrame)),
                                               path: path).state.committed
        let after = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(after == committed && after <= size, "the frames are cut off (and the zeros written ahead with them)")
        // Every verb reads the store as it was, through a file system that is still full and a plain one.
        for repository in [full, plain] {
            #expect(try repository.records() == before)
            #expect(try repository.get("new") == nil)
            #expect(try repository.get(before[1].id) == before[1])
            #expect(try repository.count() == 2)
        }
        try plain.add(Self.next)
        #expect(try plain.records().map(\.id) == before.map(\.id) + ["next"])
        let recoverError = #expect(throws: StoreError.self) { try plain.recoverDamagedCommit() }
        #expect(recoverError?.code == .invalidArgument)
        #expect(try plain.get("new") == nil)
    }

    /// The disk fills at the slot that publishes a commit, after the commit's frames were synced: the commit
    /// is made (the add returns), a reader that opens the store finds it through the chain, and the next
    /// commit publishes it with its own. No slot is left damaged.
    @Test func aSlotCutShortByAFullDiskAfterTheSyncLosesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let plain = ArchiveRepository<SampleRecord>(path: path)
        let before = sampleRecords(0..<2)
        for record in before { try plain.add(record) }
        let disk = FillingDisk(shortBy: 7)
        var options = RepositoryOptions()
        options.fileSystem = disk.fileSystem
        let full = ArchiveRepository<SampleRecord>(path: path, options: options)
        _ = try full.count()
        disk.arm(fullAt: 2)   // the frames are written whole; the slot gets 7 of its 64 bytes
        try full.add(RecordLogFaultTests.new)
        #expect(disk.filled == path)
        #expect(try full.records() == before + [RecordLogFaultTests.new])
        let fresh = ArchiveRepository<SampleRecord>(path: path)
        #expect(try fresh.records() == before + [RecordLogFaultTests.new])
        disk.arm(fullAt: nil)
        try full.add(Self.next)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let prologue = try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: path)
        #expect(prologue.damagedSlot == nil)
        #expect(prologue.state.liveCount == 4)
        #expect(bytes.count >= prologue.state.committed && bytes[prologue.state.committed...].allSatisfy { $0 == 0 },
                "past the last commit, only the zeros written ahead")
        #expect(try plain.records() == before + [RecordLogFaultTests.new, Self.next])
        let recoverError = #expect(throws: StoreError.self) { try plain.recoverDamagedCommit() }
        #expect(recoverError?.code == .invalidArgument)
    }

    /// The first add into a data directory that does not exist yet creates it and its parents: each is synced
    /// into its parent before the add returns (a `mkdir` is durable only once its parent is synced).
    @Test func theFirstAddIntoANewDataDirectorySyncsTheParentOfEveryDirectoryItCreates() throws {
        let directory = try TemporaryDirectory()
        let log = CallLog()
        var options = RepositoryOptions()
        options.fileSystem = log.fileSystem
        let repository = ArchiveRepository<SampleRecord>(path: directory.file("data/deeper/Forms.archive"), options: options)
        try repository.add(sampleRecords(0..<1)[0])
        let lines = log.lines
        for (created, parent) in [(directory.file("data"), directory.path), (directory.file("data/deeper"), directory.file("data"))] {
            let made = try #require(lines.firstIndex(of: "makeDirectory \(created)"), "\(lines)")
            let synced = lines[made...].firstIndex(of: "sync \(parent)")
            #expect(synced != nil, "\(parent) is synced after \(created) is made: \(lines)")
        }
        let parentSyncs = lines.filter { $0 == "sync \(directory.path)" }.count
        try repository.add(sampleRecords(1..<2)[0])
        #expect(log.lines.filter { $0 == "sync \(directory.path)" }.count == parentSyncs, "only the first write pays for it")
    }

    /// A `.synchronous` set that starts a new segment file syncs `segments/` before the slot that names the
    /// new frame is written, and the cache directory after creating `segments/`.
    @Test func aSynchronousSetThatStartsASegmentSyncsItsDirectoryBeforeTheSlotNamesIt() throws {
        let fixture = try CacheFixture()
        let log = CallLog()
        let cache = try fixture.bytesCache(fixture.options(durability: .synchronous), fileSystem: log.fileSystem)
        log.clear()
        try cache.set([1], forKey: "k")
        let lines = log.lines
        let madeSegments = try #require(lines.firstIndex(of: "makeDirectory \(fixture.path)/segments"), "\(lines)")
        #expect(lines[madeSegments...].contains("sync \(fixture.path)"), "\(lines)")
        let openedSegment = try #require(lines.firstIndex { $0.hasPrefix("open \(fixture.path)/segments/") && $0.hasSuffix(".seg") })
        let syncedSegments = lines[openedSegment...].firstIndex(of: "sync \(fixture.path)/segments")
        let slotWritten = try #require(lines.lastIndex(of: "write \(fixture.path)/cache.table"))
        #expect(syncedSegments != nil && syncedSegments! < slotWritten, "\(lines)")
        #expect(try fixture.bytesCache().value(forKey: "k") == [1])
        // A set into the same segment syncs no directory.
        log.clear()
        try cache.set([2], forKey: "j")
        #expect(!log.lines.contains { $0 == "sync \(fixture.path)/segments" || $0 == "sync \(fixture.path)" }, "\(log.lines)")
    }
}

/// Counts reads of one file and fails the `failAt`th with `EIO` (a bad sector), every other call running.
private final class FailingRead: @unchecked Sendable { // Sendable: state behind a lock.
    private let state = Locked<(reads: Int, failAt: Int?)>((0, nil))
    func arm(failAt: Int?) { state.withLock { $0 = (0, failAt) } }
    var fileSystem: FileSystem {
        FileSystem { [self] call, path in
            guard call == .read, path.hasSuffix(".archive") else { return nil }
            return state.withLock { state -> FileSystem.Fault? in
                state.reads += 1
                return state.reads == state.failAt ? .error(EIO) : nil
            }
        }
    }
}

extension FullDiskAndDirectoryDurabilityTests {
    /// A writer that died before publishing left a commit of three large records past the slot (its slot write
    /// found the disk full); a repository open on the store takes it before its own commit, and a read fails
    /// part way, at each read in turn. Whatever failed, the repository then shows whole commits only: the
    /// records as they were, or with all three (review finding: the table kept the frames read before the
    /// error, and the unchanged slots let every later read trust it).
    @Test func aReadThatFailsWhileTakingAnUnpublishedCommitLeavesNoPartOfIt() throws {
        let big = (0..<3).map { i in
            SampleRecord(id: "big\(i)", name: "big", fields: ["note": String(repeating: "\(i)", count: 600_000)],
                         registeredAt: Date(timeIntervalSince1970: 1), expiresAt: Date(timeIntervalSince1970: 9_999))
        }
        let before = sampleRecords(0..<2)
        var failures = 0
        for failAt in 1...12 {
            let directory = try TemporaryDirectory()
            let path = directory.file("Forms.archive")
            let plain = ArchiveRepository<SampleRecord>(path: path)
            try plain.add(contentsOf: before)
            let reads = FailingRead()
            var readOptions = RepositoryOptions()
            readOptions.fileSystem = reads.fileSystem
            readOptions.tuning.maintainsInBackground = false
            let open = ArchiveRepository<SampleRecord>(path: path, options: readOptions)
            #expect(try open.records() == before)
            // The writer's slot write finds the disk full (no byte of it written): the commit is made, unpublished.
            let disk = FillingDisk(shortBy: 0)
            var diskOptions = RepositoryOptions()
            diskOptions.fileSystem = disk.fileSystem
            let dying = ArchiveRepository<SampleRecord>(path: path, options: diskOptions)
            _ = try dying.count()
            disk.arm(fullAt: 2)
            try dying.add(contentsOf: big)
            reads.arm(failAt: failAt)
            var added = false
            do {
                try open.add(Self.next)
                added = true
            } catch {
                failures += 1
                #expect(error.errno == EIO, "read \(failAt): \(error)")
            }
            reads.arm(failAt: nil)
            let seen = try open.records()
            let whole = [before, before + big] + (added ? [before + big + [Self.next]] : [])
            let isWhole = whole.contains(seen)   // (compared apart: the records' notes are 600 KB each)
            #expect(isWhole, "read \(failAt): \(seen.map(\.id))")
            #expect(try open.count() == seen.count, "read \(failAt)")
            let stored = try ArchiveRepository<SampleRecord>(path: path).records()
            let keptAll = stored == before + big + (added ? [Self.next] : [])
            #expect(keptAll, "read \(failAt): \(stored.map(\.id))")
        }
        #expect(failures >= 2, "the reads of the unpublished commit fail in turn")
    }
}
