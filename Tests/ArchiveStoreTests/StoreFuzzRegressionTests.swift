import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import ArchiveStore
import TestSupport

/// Findings of the `store` fuzz target (`Fuzz/StoreFuzz.swift`), each as the scenario it stands for.
@Suite struct StoreFuzzRegressionTests {
    func forms(_ directory: TemporaryDirectory, mergeFrames: Int = 1024) -> ArchiveRepository<SampleRecord> {
        var options = RepositoryOptions()
        options.tuning.mergeFrames = mergeFrames
        options.tuning.maintainsInBackground = false
        return ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options)
    }

    /// Two branches of one log (same generation): `a` rewrote id0...id3, `b` added id4...id7 instead.
    /// Returns the directory of `b` and the index `a` merged.
    func branches(sameFrameSizes: Bool) throws -> (TemporaryDirectory, [UInt8]) {
        let a = try TemporaryDirectory(), b = try TemporaryDirectory()
        let repository = forms(a, mergeFrames: 4)
        for record in sampleRecords(0..<4) { try repository.add(record) }   // merged: the index covers 4 frames
        try b.write(try a.read("Forms.archive"), to: "Forms.archive")
        try b.write(try a.read("Forms.archive.index"), to: "Forms.archive.index")
        for record in sampleRecords(0..<4) { try repository.update(record) }  // merged again: 8 frames
        let added = sameFrameSizes ? sampleRecords(4..<8)
            : sampleRecords(4..<8).map { SampleRecord(id: $0.id + "-longer", name: $0.name, fields: $0.fields,
                                                     registeredAt: $0.registeredAt, expiresAt: $0.expiresAt) }
        for record in added { try forms(b).add(record) }                      // b keeps its 4-frame index
        return (b, try a.read("Forms.archive.index"))
    }

    /// Finding 1 (session 6, `count() 6 but all() returned 0`): an index with valid checksums that belongs to
    /// another branch of the same log, its covered length a frame boundary of this one, made `all()` deliver
    /// only the frames its entries named, while `count()` (the commit) said more.
    @Test func anIndexFromAnotherBranchOfTheLogDoesNotHideRecordsFromAll() throws {
        let (b, foreignIndex) = try branches(sameFrameSizes: true)
        let repository = forms(b)
        #expect(try repository.records() == sampleRecords(0..<8))
        try b.write(foreignIndex, to: "Forms.archive.index")
        for repository in [repository, forms(b)] {   // the open one, and one that opens the store with that index
            #expect(try repository.count() == 8)
            #expect(try repository.records() == sampleRecords(0..<8))
            #expect(try repository.records().count == repository.count())
            #expect(try repository.expired(at: Date(timeIntervalSince1970: 3_000)).count == 8)
        }
    }

    /// The same index where its covered length falls inside a frame of this log: the log was reported
    /// corrupt; the index is now set aside and the log read.
    @Test func anIndexWhoseCoveredLengthFallsInsideAFrameIsSetAside() throws {
        let (b, foreignIndex) = try branches(sameFrameSizes: false)
        try b.write(foreignIndex, to: "Forms.archive.index")
        let repository = forms(b)
        #expect(try repository.count() == 8)
        #expect(try repository.records().map(\.id) == ["id0", "id1", "id2", "id3", "id4-longer", "id5-longer", "id6-longer", "id7-longer"])
        #expect(try repository.get("id5-longer")?.name == "name5")
        // The next writer replaces the index with one of this log.
        try repository.add(sampleRecords(8..<9)[0])
        #expect(try repository.records().count == 9)
    }

    /// A log whose frames disagree with its own commit's live count is corrupt, for every read, for a
    /// repository that had it open and for one that opens it.
    @Test func aCommitWhoseLiveCountDisagreesWithTheFramesIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<3) { try repository.add(record) }
        var bytes = try directory.read("Forms.archive")
        let state = try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state
        var lying = state
        lying.liveCount = 2
        let slot = [UInt8](lying.serialized())
        // Both slots hold the lying state (the higher sequence wins either way).
        bytes.replaceSubrange(RecordLog.headerSize..<RecordLog.headerSize + slot.count, with: slot)
        bytes.replaceSubrange(RecordLog.headerSize + RecordLog.slotSize..<RecordLog.headerSize + RecordLog.slotSize + slot.count, with: slot)
        try directory.write(bytes, to: "Forms.archive")
        try? FileManager.default.removeItem(atPath: directory.file("Forms.archive.index"))
        for repository in [repository, forms(directory)] {
            let count = #expect(throws: StoreError.self) { try repository.count() }
            #expect(count?.code == .corrupt)
            let error = #expect(throws: StoreError.self) { try repository.records() }
            #expect(error?.code == .corrupt)
            #expect(error?.reason == "the log's frames are not the ones its commit names (chain, frame count or live records differ)")
            #expect(error?.offset == state.committed)
            let expired = #expect(throws: StoreError.self) { try repository.expired(at: Date(timeIntervalSince1970: 3_000)) }
            #expect(expired?.code == .corrupt)
        }
    }

    /// Finding of session 50 (the refresh of an open repository): the newest slot damaged in place while the
    /// store was open, the commits after the older slot intact. A repository that opens the store takes them
    /// through the chain; the open one read the older slot as "nothing changed" and kept showing the store as
    /// it was. It now looks past its commit whenever the slots changed but their newest valid one did not.
    @Test func aNewestSlotDamagedUnderAnOpenRepositoryHidesNothingFromIt() throws {
        let directory = try TemporaryDirectory()
        try forms(directory).add(contentsOf: sampleRecords(0..<2))
        let reader = forms(directory)
        #expect(try reader.records() == sampleRecords(0..<2))
        try forms(directory).write { transaction in
            _ = try transaction.remove("id0")
            try transaction.add(sampleRecords(3..<4)[0])
        }
        var bytes = try directory.read("Forms.archive")
        let newest = RecordLog.slotOffset(of: try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state)
        bytes[newest + 40] ^= 0x02   // its live bytes: the slot fails its checksum
        let fd = open(directory.file("Forms.archive"), O_WRONLY)
        #expect(fd >= 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }   // in place: the same file
        close(fd)
        let expected = sampleRecords(1..<2) + sampleRecords(3..<4)
        #expect(try forms(directory).records() == expected)
        #expect(try reader.records() == expected)
        #expect(try reader.count() == 2)
    }
}

extension StoreFuzzRegressionTests {
    /// Finding (`a recovered store does not read`): a store of format 2
    /// (`Fixtures/store/fuzz/damaged-slot-record-not-an-archive.archive`, the fuzzer's input) whose newer slot fails
    /// its checksum while an intact frame follows the older one, and one of whose intact frames holds bytes that
    /// are no keyed archive. Recovery keeps every record as it was, so the log reads (`count()`) and the record
    /// that never was an archive still fails to decode, by its offset, as it did in the file as it was. The
    /// finding was the fuzz target's expectation, not the store: it now asks that a recovered log reads.
    @Test func aRecoveredStoreKeepsARecordThatIsNoArchiveAndNamesIt() throws {
        let directory = try TemporaryDirectory()
        let original = try RepositoryFixtures.bytes("store/fuzz/damaged-slot-record-not-an-archive.archive")
        try directory.write(original, to: "Forms.archive")
        let repository = forms(directory)
        let damaged = #expect(throws: StoreError.self) { try repository.count() }
        #expect(damaged?.code == .damagedCommit)
        let recovery = try repository.recoverDamagedCommit()
        #expect(recovery.recoveredFrames == 1)
        #expect(recovery.damagedFrames == 0)
        #expect(try directory.read("Forms.archive.before-recovery") == original)
        #expect(try repository.count() == 4)
        do {
            _ = try repository.records()
            Issue.record("a record that is no archive decoded")
        } catch {
            #expect(error.code == .corrupt)
            #expect(error.offset == 1278)
            #expect(error.reason.hasPrefix("cannot read a record: keyed archive: bplist: object 38 at byte 418"))
        }
    }
}
