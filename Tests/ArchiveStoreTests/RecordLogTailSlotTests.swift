import ArchivePlatform
import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// Format 4: a commit is published by the tail slot written after its frames, so that its sync writes only the
/// log's last pages; the commit slots at the file's start are checkpoints.
@Suite("Record log: tail slots")
struct RecordLogTailSlotTests {
    /// The writes of one repository's calls, in order: (offset, byte count) of each write to the store file.
    final class WriteLog: FileSystemObserver, @unchecked Sendable { // Sendable: state behind a lock.
        let writes = Locked<[(offset: Int, count: Int)]>([])
        let path: String
        init(path: String) { self.path = path }
        func observe(_ event: FileSystemEvent) {
            if case .write(_, let path, let offset, let bytes) = event, path == self.path {
                writes.withLock { $0.append((offset ?? -1, bytes.count)) }
            }
        }
        func taken() -> [(offset: Int, count: Int)] { writes.withLock { w in defer { w = [] }; return w } }
    }

    func repository(_ path: String, observer: WriteLog? = nil) -> ArchiveRepository<SampleRecord> {
        var options = RepositoryOptions()
        options.fileSystem.observer = observer
        options.tuning.maintainsInBackground = false
        return ArchiveRepository<SampleRecord>(path: path, options: options)
    }

    /// Each single add writes its frame where the last commit ended and then its tail slot right after it:
    /// nothing before the log's end, so its sync writes no page at the file's start, until a checkpoint is due
    /// (every 256 frames), which writes one commit slot.
    @Test func aCommitWritesOnlyAtTheLogsEndAndACheckpointEvery256Frames() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        try repository(path).add(contentsOf: sampleRecords(0..<10))
        let log = WriteLog(path: path)
        let writer = repository(path, observer: log)
        var checkpoints: [Int] = []
        for i in 10..<300 {
            let before = try openedLogState(path)
            _ = log.taken()
            try writer.add(sampleRecords(i..<i + 1)[0])
            let after = try openedLogState(path)
            let writes = log.taken().filter { $0.count != 0 }
            let frame = try #require(writes.first)
            #expect(frame.offset == before.committed && frame.offset + frame.count == after.committed, "add \(i)")
            #expect(writes.contains { $0.offset == after.committed && $0.count == RecordLog.slotSize }, "add \(i): its tail slot")
            let bytes = try directory.read("Forms.archive")
            let tail = try #require(LogState(parsing: bytes, at: after.committed, generation: after.generation, format: 4))
            #expect(tail.committed == after.committed && tail.chain == after.chain && tail.frameCount == after.frameCount
                    && tail.liveCount == after.liveCount && tail.liveBytes == after.liveBytes, "add \(i): the tail slot names the commit")
            // Zeros written ahead (a new chunk now and then) go past the end; a checkpoint goes to a commit slot.
            for write in writes.dropFirst() {
                if write.offset < RecordLog.firstFrame {
                    #expect(write.offset == RecordLog.headerSize || write.offset == RecordLog.headerSize + RecordLog.slotSize)
                    #expect(write.count == RecordLog.slotSize)
                    checkpoints.append(i)
                } else {
                    #expect(write.offset >= after.committed, "add \(i): \(write)")
                }
            }
        }
        // The store had 10 frames at its first checkpoint (the bulk add's file): the next at 256 frames past it.
        #expect(checkpoints == [265])
        let state = try RecordLog.prologue(Array(try directory.read("Forms.archive").prefix(RecordLog.firstFrame)), path: path).state
        #expect(state.frameCount == 266)
        #expect(try repository(path).records() == sampleRecords(0..<300))
    }

    /// A store of format 3 (the same layout; commits published by the commit slots) is read as it is and made
    /// format 4 in place by its first commit: only the header's version changes. A repository that had it open
    /// as format 3 sees the header change, opens it again and reads on.
    @Test func aFormatThreeStoreBecomesFormatFourInPlaceAtItsFirstCommit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        try repository(path).add(contentsOf: sampleRecords(0..<3))
        try repository(path).add(sampleRecords(3..<4)[0])
        // Format 3: version 3 in the header, the last commit in the newer slot (and no tail slot needed).
        let state = try openedLogState(path)
        var bytes = try directory.read("Forms.archive")
        var header = RecordLog.header(generation: state.generation)
        header[8] = 3
        let crc = Checksum.crc32(Array(header[0..<24]))
        for i in 0..<4 { header[24 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        bytes.replaceSubrange(0..<RecordLog.headerSize, with: header)
        var slot = state
        slot.sequence = 7
        bytes.replaceSubrange(RecordLog.slotOffset(of: slot)..<RecordLog.slotOffset(of: slot) + RecordLog.slotSize, with: slot.serialized())
        for i in 0..<RecordLog.slotSize { bytes[state.committed + i] = 0 }
        try directory.write(bytes, to: "Forms.archive")
        if FileManager.default.fileExists(atPath: path + ".index") { try FileManager.default.removeItem(atPath: path + ".index") }

        let reader = repository(path)
        #expect(try reader.records() == sampleRecords(0..<4))
        #expect(try directory.read("Forms.archive") == bytes, "reading changes nothing")
        let writer = repository(path)
        try writer.add(sampleRecords(4..<5)[0])
        let after = try directory.read("Forms.archive")
        #expect(after[8] == 4)
        #expect(Array(after[RecordLog.headerSize..<state.committed]) == Array(bytes[RecordLog.headerSize..<state.committed]),
                "the slots and frames are kept as they were")
        #expect(try reader.records() == sampleRecords(0..<5))
        #expect(try repository(path).records() == sampleRecords(0..<5))
        try reader.add(sampleRecords(5..<6)[0])
        #expect(try writer.records() == sampleRecords(0..<6))
    }

    /// A whole commit with no tail slot after it (its writer died between its sync and its tail slot) is taken by
    /// a reader only when no writer holds the lock (after a sync of its own); the next commit writes over the
    /// place and publishes both.
    @Test func aLastCommitWithoutItsTailSlotIsTakenOnlyWhenTheWriterLockIsFree() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let writer = repository(path)
        try writer.add(contentsOf: sampleRecords(0..<3))
        let reader = repository(path)
        #expect(try reader.count() == 3)
        try writer.add(sampleRecords(3..<4)[0])
        let state = try openedLogState(path)
        var bytes = try directory.read("Forms.archive")
        for i in 0..<RecordLog.slotSize { bytes[state.committed + i] = 0 }
        // In place (the same file), as a writer that died before its tail slot leaves it.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(state.committed))
        try handle.write(contentsOf: Data(bytes[state.committed..<state.committed + RecordLog.slotSize]))
        try handle.close()
        // Another process holds the writer lock: the commit may still be syncing, so the reader leaves it.
        let lock = try WriterLock(path: path + ".lock", fileSystem: .kernel)
        #expect(try lock.acquire(exclusive: true, waiting: .never))
        #expect(try reader.count() == 3)
        #expect(try reader.get("id3") == nil)
        lock.release()
        #expect(try reader.count() == 4)
        #expect(try reader.get("id3") == sampleRecords(3..<4)[0])
        try writer.add(sampleRecords(4..<5)[0])
        #expect(try reader.records() == sampleRecords(0..<5))
    }
}
