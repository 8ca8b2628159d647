import Foundation
import Testing
import TestSupport
@testable import ArchiveStore
import ArchivePlatform

/// The open store: each call reads the commit slots once and applies what others committed since, never the
/// whole store again; a store rewritten, replaced or moved aside under an open repository is noticed.
@Suite("Repository: the open store")
struct RepositoryOpenHandleTests {
    /// Counts the reads of one file through a file system.
    final class ReadCounter: @unchecked Sendable { // Sendable: state behind a lock.
        let reads = Locked<[String: Int]>([:])
        var fileSystem: FileSystem {
            FileSystem { [reads] call, path in
                if call == .read { reads.withLock { $0[path, default: 0] += 1 } }
                return nil
            }
        }
        func count(_ path: String) -> Int { reads.withLock { $0[path] ?? 0 } }
    }

    func options(_ fileSystem: FileSystem = .kernel) -> RepositoryOptions {
        var options = RepositoryOptions()
        options.fileSystem = fileSystem
        options.tuning.maintainsInBackground = false
        return options
    }

    /// Another repository's commits reach an open one as one read of the slots and one of the new frames (and
    /// one of the key of each record they replace or remove); a call when nothing changed reads the slots only.
    /// The store's size does not enter into it.
    @Test func anotherWritersCommitsAreReadIncrementally() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let writer = ArchiveRepository<SampleRecord>(path: path, options: options())
        try writer.add(contentsOf: sampleRecords(0..<2_000))
        let counter = ReadCounter()
        let reader = ArchiveRepository<SampleRecord>(path: path, options: options(counter.fileSystem))
        #expect(try reader.count() == 2_000)
        var before = counter.count(path)
        #expect(try reader.count() == 2_000)
        #expect(counter.count(path) - before == 1, "nothing changed: the slots alone")
        try writer.add(sampleRecords(2_000..<2_001)[0])
        try writer.write { transaction in
            _ = try transaction.remove("id7")
            try transaction.add(sampleRecords(2_001..<2_002)[0])
        }
        before = counter.count(path)
        #expect(try reader.get("id2001") == sampleRecords(2_001..<2_002)[0])
        // The slots; the two commits' frames, in one read; the key of the record the remove names (a hash alone
        // never decides); the record's frame.
        #expect(counter.count(path) - before == 4)
        #expect(try reader.count() == 2_001)
        #expect(try reader.get("id7") == nil)
        let refreshes = reader.statistics.refreshes
        _ = try reader.get("id5")
        #expect(reader.statistics.refreshes == refreshes + 1)
    }

    /// Compaction by another repository puts a new file at the path and marks the old one: the open
    /// repository reads the new file at its next call.
    @Test func aStoreRewrittenByAnotherRepositoryIsReadFromItsNewFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        var compacting = options()
        compacting.tuning.compactionFloor = 0
        let writer = ArchiveRepository<SampleRecord>(path: path, options: compacting)
        try writer.add(contentsOf: sampleRecords(0..<6))
        let reader = ArchiveRepository<SampleRecord>(path: path, options: options())
        #expect(try reader.count() == 6)
        let inode = try #require(try Kernel.status(atPath: path)?.inode)
        for id in ["id0", "id1", "id2", "id3"] { _ = try writer.remove(id) }   // dead bytes past live: rewritten
        #expect(try Kernel.status(atPath: path)?.inode != inode)
        #expect(try reader.records() == sampleRecords(4..<6))
        try writer.add(sampleRecords(9..<10)[0])
        #expect(try reader.records() == sampleRecords(4..<6) + sampleRecords(9..<10))
    }

    /// Another file moved over the store from outside (a backup put back): an open repository notices it
    /// within 50 ms when it reads, and at once when it writes (the write goes to the new file).
    @Test func aStoreReplacedFromOutsideIsNoticed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let repository = ArchiveRepository<SampleRecord>(path: path, options: options())
        try repository.add(contentsOf: sampleRecords(0..<3))
        let other = ArchiveRepository<SampleRecord>(path: directory.file("Other.archive"), options: options())
        try other.add(contentsOf: sampleRecords(10..<12))
        #expect(try repository.count() == 3)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: directory.file("Other.archive"), toPath: path)
        try repository.add(sampleRecords(20..<21)[0])
        #expect(try ArchiveRepository<SampleRecord>(path: path).records() == sampleRecords(10..<12) + sampleRecords(20..<21))
        let reader = ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options())
        #expect(try reader.count() == 3)
        let third = ArchiveRepository<SampleRecord>(path: directory.file("Third.archive"), options: options())
        try third.add(sampleRecords(30..<31)[0])
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: directory.file("Third.archive"), toPath: path)
        usleep(60_000)
        #expect(try reader.records() == sampleRecords(30..<31))
    }

    /// An older copy of the store written over it in place (the same file, the same log: a backup restored
    /// with `cp`) while a repository has it open: the repository's next write goes where the copy's log ends,
    /// over the offsets of records it had decoded and kept from the newer log, and every read returns the
    /// record now there, never the one kept from before (found by the store fuzzer).
    @Test func anOlderCopyWrittenOverTheStoreInPlaceIsNotMistakenForTheOneItReplaced() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let repository = ArchiveRepository<SampleRecord>(path: path, options: options())
        for record in sampleRecords(0..<2) { try repository.add(record) }
        let backup = try directory.read("Forms.archive")
        try repository.add(sampleRecords(2..<3)[0])
        #expect(try repository.get("id2") == sampleRecords(2..<3)[0])   // decoded and kept
        #expect(try repository.records() == sampleRecords(0..<3))
        let inode = try FileSystem.kernel.identity(path)?.inode
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(backup))
        try handle.close()
        #expect(try FileSystem.kernel.identity(path)?.inode == inode)
        // Another record, the size of id2's, lands where id2's frame was.
        let other = SampleRecord(id: "id9", name: "name9", fields: sampleRecords(2..<3)[0].fields,
                                 registeredAt: sampleRecords(2..<3)[0].registeredAt, expiresAt: sampleRecords(2..<3)[0].expiresAt)
        try repository.add(other)
        #expect(try repository.get("id9") == other)
        #expect(try repository.get("id2") == nil)
        #expect(try repository.records() == sampleRecords(0..<2) + [other])
        #expect(try ArchiveRepository<SampleRecord>(path: path, options: options()).records() == sampleRecords(0..<2) + [other])
    }

    /// A store moved aside by another repository: an open one finds no store at its next call.
    @Test func aStoreMovedAsideUnderAnOpenRepositoryIsNoticed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let repository = ArchiveRepository<SampleRecord>(path: path, options: options())
        try repository.add(contentsOf: sampleRecords(0..<3))
        #expect(try repository.count() == 3)
        var bytes = try directory.read("Forms.archive")
        bytes[0] ^= 0xFF   // not a store any more: it may be moved aside
        try directory.write(bytes, to: "Forms.archive")
        let other = ArchiveRepository<SampleRecord>(path: path, options: options())
        _ = try other.moveAside(suffix: "corrupt")
        #expect(try repository.count() == 0)
        #expect(try repository.get("id0") == nil)
    }

    /// Index writing in the background: `close()` waits for it; the index covers what was committed, and a new
    /// repository opens the store from it.
    @Test func closeWaitsForTheIndexWrittenInTheBackground() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        var background = RepositoryOptions()
        background.tuning.mergeFrames = 16
        let repository = ArchiveRepository<SampleRecord>(path: path, options: background)
        for record in sampleRecords(0..<40) { try repository.add(record) }
        repository.close()
        let index = try directory.read("Forms.archive.index")
        #expect(Array(index.prefix(8)) == IndexFile.magic)
        #expect(readLittleEndian(index, 32, width: 8) >= 16)
        #expect(try ArchiveRepository<SampleRecord>(path: path).records() == sampleRecords(0..<40))
        #expect(try repository.count() == 40)   // the next call opens the store again
    }
}
