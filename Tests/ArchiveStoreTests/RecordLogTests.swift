import BinaryPlist
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive
import Testing
import TestSupport
@testable import ArchiveStore
import ArchivePlatform

/// A store file taken apart as a plist: its top dictionary, `$objects`, and where the records are.
struct StorePlist {
    var top: PlistDictionary
    var objects: [PlistValue]
    var rootUID: Int
    var arrayUID: Int
    var recordUIDs: [Int]

    static func records(_ range: Range<Int>) -> [SampleRecord] {
        range.map {
            SampleRecord(id: "id\($0)", name: "name\($0)", fields: ["k": "v\($0)"],
                       registeredAt: Date(timeIntervalSince1970: 1_000), expiresAt: Date(timeIntervalSince1970: 2_000))
        }
    }

    init(_ bytes: [UInt8]) throws {
        let plist = try PropertyList.decode(bytes)
        top = try #require(plist.dictionaryValue)
        objects = try #require(top["$objects"]?.arrayValue)
        rootUID = Int(try #require(top["$top"]?["root"]?.uidValue).value)
        arrayUID = Int(try #require(objects[rootUID]["records"]?.uidValue).value)
        recordUIDs = try #require(objects[arrayUID]["NS.objects"]?.arrayValue).map { Int($0.uidValue?.value ?? 0) }
    }

    var bytes: [UInt8] {
        get throws {
            var top = top
            top["$objects"] = .array(objects)
            return try PropertyList.encode(.dictionary(top))
        }
    }

    /// Sets `key` of the dictionary at `uid` to `value`.
    mutating func set(_ uid: Int, _ key: String, _ value: PlistValue) throws {
        var d = try #require(objects[uid].dictionaryValue)
        d[key] = value
        objects[uid] = .dictionary(d)
    }
}

/// Records for the log tests: one per id, an expiry each.
func sampleRecords(_ range: Range<Int>, expiringAt expiry: TimeInterval = 2_000) -> [SampleRecord] {
    range.map {
        SampleRecord(id: "id\($0)", name: "name\($0)", fields: ["k": "v\($0)"],
                   registeredAt: Date(timeIntervalSince1970: 1_000), expiresAt: Date(timeIntervalSince1970: expiry))
    }
}

/// The record log: its files, reading and writing them, migration from single-archive stores, export,
/// merging the index and compacting the log, and damage anywhere in either file.
@Suite("Record log")
struct RecordLogTests {
    func forms(_ directory: TemporaryDirectory, tuning: StoreTuning = StoreTuning()) -> ArchiveRepository<SampleRecord> {
        var options = RepositoryOptions()
        options.tuning = tuning
        return ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options)
    }

    /// Tuning that writes the index every `frames` frames, inside the write (where a test sees it).
    static func indexEvery(_ frames: Int) -> StoreTuning {
        var tuning = StoreTuning()
        tuning.mergeFrames = frames
        tuning.maintainsInBackground = false
        return tuning
    }

    @Test func theStoreIsARecordLogWithAnIndexAndAnExportIsAnOrdinaryKeyedArchive() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory, tuning: Self.indexEvery(2))
        let records = sampleRecords(0..<5)
        for record in records { try repository.add(record) }
        let bytes = try directory.read("Forms.archive")
        #expect(Array(bytes.prefix(8)) == Array("ARCHLOG1".utf8))
        #expect(try directory.entries() == ["Forms.archive", "Forms.archive.index", "Forms.archive.lock"])
        #expect(try directory.mode("Forms.archive") == 0o600)
        #expect(try directory.mode("Forms.archive.index") == 0o600)
        #expect(try repository.count() == 5)
        try repository.exportArchive(to: directory.file("export.archive"))
        #expect(try directory.mode("export.archive") == 0o600)
        let exported = try directory.read("export.archive")
        #expect(try ArchiveRepository<SampleRecord>.records(inArchive: exported, source: "x") == records)
        // Read back into another store.
        let other = ArchiveRepository<SampleRecord>(path: directory.file("Other.archive"))
        #expect(try other.add(contentsOf: records, skippingExisting: true) == records.count)
        var skipped: [String] = []
        #expect(try other.add(contentsOf: records, skippingExisting: true, skipped: { skipped.append($0.id) }) == 0)
        #expect(skipped == records.map(\.id))
        #expect(try other.records() == records)
    }

    @Test func aSingleArchiveStoreIsReadAsItIsAndBecomesALogOnTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let old = sampleRecords(0..<4)
        let bytes = try RepositoryFile<SampleRecord>.encode(old, path: "x")
        try directory.write(bytes, to: "Forms.archive")
        let repository = forms(directory)
        #expect(try repository.records() == old)
        #expect(try repository.get("id2") == old[2])
        #expect(try repository.count() == 4)
        #expect(try directory.read("Forms.archive") == bytes)   // reads leave it as it is
        try repository.add(sampleRecords(4..<5)[0])
        #expect(RecordLog.isLog(try directory.read("Forms.archive")))
        #expect(try repository.records() == sampleRecords(0..<5))
        // No index yet: a store this small opens by reading its log.
        #expect(try directory.entries() == ["Forms.archive", "Forms.archive.lock"])
    }

    @Test func aDamagedSingleArchiveStoreIsReportedAndNeverMigrated() throws {
        let directory = try TemporaryDirectory()
        var bytes = try RepositoryFile<SampleRecord>.encode(sampleRecords(0..<4), path: "x")
        bytes.removeLast(9)
        try directory.write(bytes, to: "Forms.archive")
        let repository = forms(directory)
        let error = #expect(throws: StoreError.self) { try repository.add(sampleRecords(4..<5)[0]) }
        #expect(error?.code == .corrupt)
        #expect(try directory.read("Forms.archive") == bytes)
    }

    /// Defect 7: a byte changed inside a stored string is found by the frame's checksum.
    @Test func aChangedByteInAStoredStringIsReportedAsCorruptWithItsFrame() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<3) { try repository.add(record) }
        var bytes = try directory.read("Forms.archive")
        let name = Array("name1".utf8)
        let at = try #require((0..<bytes.count - name.count).first { bytes[$0..<$0 + name.count].elementsEqual(name) })
        bytes[at + 4] = UInt8(ascii: "7")   // "name7": still a valid archive, another string
        try directory.write(bytes, to: "Forms.archive")
        let all = #expect(throws: StoreError.self) { try repository.records() }
        #expect(all?.code == .corrupt)
        let frameStart = try #require(all?.offset)
        #expect(frameStart >= RecordLog.firstFrame && frameStart < at)
        let readError = #expect(throws: StoreError.self) { try repository.get("id1") }
        #expect(readError?.code == .corrupt)
        // Writes are refused and leave the file as it is; it can be moved aside.
        let writeError = #expect(throws: StoreError.self) { try repository.add(sampleRecords(3..<4)[0]) }
        #expect(writeError?.code == .corrupt)
        #expect(try directory.read("Forms.archive") == bytes)
        let moved = try repository.moveAside(suffix: "corrupt")
        #expect(moved == directory.file("Forms.archive.corrupt"))
        #expect(try repository.records() == [])
    }

    @Test func randomChangesKeepTheSameRecordsThroughMergesAndCompactions() throws {
        let directory = try TemporaryDirectory()
        var tuning = StoreTuning()
        tuning.mergeFrames = 5
        tuning.compactionFloor = 0
        let repository = forms(directory, tuning: tuning)
        var model: [String: SampleRecord] = [:]
        var order: [String] = []
        var rng = SeededGenerator(seed: 11)
        var compactions = 0
        var largest = 0
        for step in 0..<300 {
            let id = "id\(Int.random(in: 0..<40, using: &rng))"
            let record = SampleRecord(id: id, name: "n\(step)", fields: ["s": "\(step)"], registeredAt: Date(timeIntervalSince1970: 1),
                                    expiresAt: Date(timeIntervalSince1970: Double(Int.random(in: 1...10, using: &rng))))
            switch Int.random(in: 0..<5, using: &rng) {
            case 0, 1:
                if model[id] == nil {
                    try repository.add(record)
                    model[id] = record
                    order.append(id)
                } else {
                    let duplicate = #expect(throws: StoreError.self) { try repository.add(record) }
                    #expect(duplicate?.code == .duplicateID)
                }
            case 2:
                if model[id] != nil {
                    try repository.update(record)
                    model[id] = record
                    order.removeAll { $0 == id }
                    order.append(id)
                } else {
                    let missing = #expect(throws: StoreError.self) { try repository.update(record) }
                    #expect(missing?.code == .notFound)
                }
            case 3:
                #expect(try repository.remove(id) == model[id])
                model[id] = nil
                order.removeAll { $0 == id }
            default:
                let now = Date(timeIntervalSince1970: Double(Int.random(in: 0...4, using: &rng)))
                let removed = try repository.removeExpired(at: now)
                let expected = order.filter { model[$0]!.expiresAt <= now }
                #expect(removed.map(\.id) == expected)
                for id in expected { model[id] = nil }
                order.removeAll { expected.contains($0) }
            }
            let size = (try? directory.read("Forms.archive").count) ?? 0
            if size < largest { compactions += 1 }
            largest = size
            #expect(try repository.records() == order.map { model[$0]! })
            #expect(try repository.count() == model.count)
            for probe in ["id\(step % 40)", id] { #expect(try repository.get(probe) == model[probe]) }
        }
        #expect(compactions > 0)
        let index = try directory.read("Forms.archive.index")
        #expect(readLittleEndian(index, 16, width: 8) > UInt64(RecordLog.firstFrame))   // merged past the start
    }

    @Test func aMissingStaleOrDamagedIndexOnlyCostsAScanAndIsRebuiltByTheNextWrite() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory, tuning: Self.indexEvery(2))
        let records = sampleRecords(0..<20)
        for record in records { try repository.add(record) }
        let good = try directory.read("Forms.archive.index")
        #expect(readLittleEndian(good, 32, width: 8) == 20)   // it covers every record
        var rng = SeededGenerator(seed: 3)
        for round in 0..<60 {
            var index = good
            switch round % 4 {
            case 0: index = []
            case 1: index.removeLast(Int.random(in: 1...32, using: &rng))
            case 2: index[Int.random(in: 64..<index.count, using: &rng)] ^= 0x04
            default: index[Int.random(in: 0..<56, using: &rng)] &+= 1   // the bytes the header's checksum covers
            }
            let indexPath = directory.file("Forms.archive.index")
            if index.isEmpty {
                if FileManager.default.fileExists(atPath: indexPath) { try FileManager.default.removeItem(atPath: indexPath) }
            } else {
                try directory.write(index, to: "Forms.archive.index")
            }
            // A repository that opens the store now reads the log instead, and is right.
            let reader = forms(directory, tuning: Self.indexEvery(2))
            #expect(try reader.records() == records, "round \(round)")
            for probe in [0, 7, 19] { #expect(try reader.get("id\(probe)") == records[probe]) }
            #expect(try reader.get("absent") == nil)
            #expect(try reader.count() == 20)
        }
        // The next writer that opens the store replaces the damaged index with one of the log.
        try directory.write(Array(good.dropLast(3)), to: "Forms.archive.index")
        let writer = forms(directory, tuning: Self.indexEvery(2))
        try writer.add(sampleRecords(20..<21)[0])
        let rebuilt = try directory.read("Forms.archive.index")
        #expect(readLittleEndian(rebuilt, 32, width: 8) == 21)
        #expect(try forms(directory).get("id20") == sampleRecords(20..<21)[0])
    }

    @Test func bytesPastTheCommitAreIgnoredAndCutOffByTheNextWrite() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<3) { try repository.add(record) }
        let committed = try directory.read("Forms.archive")
        // A frame written but never committed (a crash between the two syncs), then garbage.
        let frame = FrameHeader.encode(kind: .put, key: Array("id9".utf8), expiry: nil,
                                       payload: try KeyedArchiver.archivedData(withRootObject: sampleRecords(9..<10)[0]))
        try directory.write(committed + frame + [1, 2, 3], to: "Forms.archive")
        #expect(try repository.records() == sampleRecords(0..<3))
        #expect(try repository.get("id9") == nil)
        try repository.add(sampleRecords(3..<4)[0])
        #expect(try repository.records() == sampleRecords(0..<4))
        let after = try directory.read("Forms.archive")
        #expect(Array(after.prefix(committed.count - 0)).elementsEqual(after.prefix(committed.count)))
        #expect(after.count < committed.count + frame.count + 3 + 600)
    }

    @Test(arguments: [64, 70, 0, 20])
    func damageToTheHeaderOrBothSlotsIsCorruptAndNeverOverwritten(at offset: Int) throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<3) { try repository.add(record) }
        var bytes = try directory.read("Forms.archive")
        bytes[offset] ^= 0x40
        if offset == 64 || offset == 70 { bytes[offset + 64] ^= 0x40 }   // both slots
        try directory.write(bytes, to: "Forms.archive")
        // The repository that had it open, and one that opens it.
        for repository in [repository, forms(directory)] {
            let readError = #expect(throws: StoreError.self) { try repository.records() }
            #expect(readError?.code == .corrupt)
            #expect(readError?.offset == (offset == 0 ? nil : offset < 64 ? 0 : 64))   // byte 0: not a log at all
            let writeError = #expect(throws: StoreError.self) { try repository.add(sampleRecords(5..<6)[0]) }
            #expect(writeError?.code == .corrupt)
            #expect(try directory.read("Forms.archive") == bytes)
        }
    }

    /// The newest slot damaged (bit rot, or a write torn in a way no power cut tears a sector): the slot is only
    /// a checkpoint, so the older one is used and the commit after it found through the chain. Nothing is lost
    /// and the next write publishes a good slot again.
    @Test func aDamagedNewestSlotIsReadPastThroughTheChain() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<3) { try repository.add(record) }
        var bytes = try directory.read("Forms.archive")
        let newest = RecordLog.slotOffset(of: try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state)
        bytes[newest + 3] ^= 0x40
        try directory.write(bytes, to: "Forms.archive")
        for repository in [repository, forms(directory)] {
            #expect(try repository.records() == sampleRecords(0..<3))
            #expect(try repository.count() == 3)
        }
        #expect(try directory.read("Forms.archive") == bytes, "reading changes nothing")
        let recovery = #expect(throws: StoreError.self) { try repository.recoverDamagedCommit() }
        #expect(recovery?.code == .invalidArgument)
        try forms(directory).add(sampleRecords(3..<4)[0])
        let after = try directory.read("Forms.archive")
        #expect(try RecordLog.prologue(Array(after[0..<RecordLog.firstFrame]), path: "x").state.liveCount == 4)
        #expect(try forms(directory).records() == sampleRecords(0..<4))
    }

    /// A store written by the last build of format 2 (`Fixtures/store/format2`, see PROVENANCE.md): read as it
    /// is (its index, of another format, ignored), and rewritten as format 3 by the first change, every record
    /// kept, the records' bytes unchanged.
    @Test func aFormatTwoStoreIsReadAndRewrittenAsFormatThreeOnTheFirstChange() throws {
        let directory = try TemporaryDirectory()
        let original = try RepositoryFixtures.bytes("store/format2/FormCache.cache")
        try directory.write(original, to: "Forms.archive")
        try directory.write(try RepositoryFixtures.bytes("store/format2/FormCache.cache.index"), to: "Forms.archive.index")
        #expect(original[8] == 2)
        let repository = forms(directory)
        let expected = ["rec-0", "rec-1", "rec-4", "rec-5", "rec-3", "rec-6"]
        let records = try repository.records()
        #expect(records.map(\.id) == expected)
        #expect(records.map(\.name) == ["form-0", "form-1", "form-4", "form-5", "form-3-updated", "expiring"])
        #expect(try repository.get("rec-4")?.fields == ["email": "user4@example.com"])
        #expect(try repository.get("rec-2") == nil)
        #expect(try repository.count() == 6)
        #expect(try directory.read("Forms.archive") == original, "reading changes nothing")

        try repository.add(sampleRecords(7..<8)[0])
        let upgraded = try directory.read("Forms.archive")
        #expect(upgraded[8] == 3)
        #expect(try forms(directory).records().map(\.id) == expected + ["id7"])
        #expect(try forms(directory).records().dropLast() == records[...])
        // The records' archives were copied byte for byte.
        for record in records {
            let archive = try KeyedArchiver.archivedData(withRootObject: record) as [UInt8]
            #expect(original.firstRange(of: archive) != nil && upgraded.firstRange(of: archive) != nil, "\(record.id)")
        }
    }

    /// The upgrade of a format 2 store cut short by a full disk at each of its writes in turn: an upgrade that
    /// fails leaves the file byte for byte as it was, and every record reads, through the repository that failed and a new one, until
    /// the disk has room and the upgrade succeeds (review finding: the open file was marked retired with a
    /// format 3 slot before the new log was written, which a format 2 reader took for an unknown version).
    @Test func aFormatTwoUpgradeCutShortByAFullDiskLeavesTheStoreAsItWas() throws {
        let original = try RepositoryFixtures.bytes("store/format2/FormCache.cache")
        let expected = ["rec-0", "rec-1", "rec-4", "rec-5", "rec-3", "rec-6"]
        var failures = 0
        for fullAt in 1...40 {
            let directory = try TemporaryDirectory()
            try directory.write(original, to: "Forms.archive")
            let disk = FillingDisk()
            var options = RepositoryOptions()
            options.fileSystem = disk.fileSystem
            options.tuning.maintainsInBackground = false
            let full = ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options)
            #expect(try full.records().map(\.id) == expected)   // the old file open in the repository
            disk.arm(fullAt: fullAt)
            do {
                try full.add(sampleRecords(7..<8)[0])
                #expect(try forms(directory).records().map(\.id) == expected + ["id7"])
                break
            } catch {
                #expect(error.errno == ENOSPC, "write \(fullAt): \(error)")
                // Before the rename the old file is untouched; after it, the add's own commit failed on the
                // upgraded store, which holds the same records.
                let now = try directory.read("Forms.archive")
                if now[8] == 2 {
                    failures += 1
                    #expect(now == original, "write \(fullAt)")
                }
                #expect(try forms(directory).records().map(\.id) == expected, "write \(fullAt)")
                disk.arm(fullAt: nil)
                #expect(try full.records().map(\.id) == expected, "write \(fullAt)")
                try full.add(sampleRecords(7..<8)[0])
                #expect(try forms(directory).records().map(\.id) == expected + ["id7"], "write \(fullAt)")
            }
        }
        #expect(failures == 2, "the upgrade writes its new log's frames, then its prologue")
    }

    /// A store of format 1, which only development builds wrote (the format 2 fixture patched back: no chain, a
    /// checksum of 56 bytes in each slot): refused with `unsupportedVersion` naming the format, the file left
    /// as it was.
    @Test func aFormatOneStoreIsRefusedNamingItsFormat() throws {
        let directory = try TemporaryDirectory()
        var bytes = try RepositoryFixtures.bytes("store/format2/FormCache.cache")
        bytes[8] = 1
        let headerCRC = Checksum.crc32(bytes, 0..<24)
        for i in 0..<4 { bytes[24 + i] = UInt8(truncatingIfNeeded: headerCRC >> UInt32(8 * i)) }
        for slot in [64, 128] where bytes[slot..<slot + 64].contains(where: { $0 != 0 }) {
            let crc = Checksum.crc32(bytes, slot..<slot + 56)
            for i in 0..<4 { bytes[slot + 56 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
            for i in 60..<64 { bytes[slot + i] = 0 }
        }
        try directory.write(bytes, to: "Forms.archive")
        let repository = forms(directory)
        let read = #expect(throws: StoreError.self) { try repository.records() }
        #expect(read?.code == .unsupportedVersion)
        #expect(read?.offset == 8)
        #expect(read?.reason.hasPrefix("store file format 1 is older than format 2") == true)
        let write = #expect(throws: StoreError.self) { try repository.add(sampleRecords(7..<8)[0]) }
        #expect(write?.code == .unsupportedVersion)
        #expect(try directory.read("Forms.archive") == bytes)
    }

    /// A format 2 store whose newer slot is damaged while intact frames follow the older commit (as that format
    /// could be left): reported, never cut off, and recovered with every frame kept.
    @Test func aFormatTwoStoreWithADamagedNewerSlotIsReportedAndRecovered() throws {
        let directory = try TemporaryDirectory()
        var bytes = try RepositoryFixtures.bytes("store/format2/FormCache.cache")
        let newest = RecordLog.slotOffset(of: try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state)
        bytes[newest + 3] ^= 0x10
        try directory.write(bytes, to: "Forms.archive")
        let repository = forms(directory)
        let readError = #expect(throws: StoreError.self) { try repository.records() }
        #expect(readError?.code == .damagedCommit)
        #expect(readError?.offset == newest)
        let writeError = #expect(throws: StoreError.self) { try repository.add(sampleRecords(7..<8)[0]) }
        #expect(writeError?.code == .damagedCommit)
        #expect(try directory.read("Forms.archive") == bytes)
        let recovery = try repository.recoverDamagedCommit()
        #expect(recovery.recoveredFrames == 1)
        #expect(recovery.damagedFrames == 0)
        #expect(try directory.read("Forms.archive.before-recovery") == bytes)
        #expect(try repository.records().map(\.id) == ["rec-0", "rec-1", "rec-4", "rec-5", "rec-3", "rec-6"])
    }

    /// Widths read from the file that do not fit the platform's `Int` (or the file) are damage with an offset,
    /// never a trap or a truncation: a frame length above `Int32.max`, a commit slot whose numbers are above
    /// `Int.max`.
    @Test func lengthsAboveInt32MaxAndIntMaxAreDamageNotTraps() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<2) { try repository.add(record) }
        let good = try directory.read("Forms.archive")
        let state = try RecordLog.prologue(Array(good.prefix(RecordLog.firstFrame)), path: "x").state

        // The last frame claims 0xFFFF_FFF0 bytes (above Int32.max).
        var bytes = good
        let lastFrame = try #require((RecordLog.firstFrame..<state.committed).last { offset in
            offset + 4 <= good.count && Int(readLittleEndian(good, offset, width: 4)) == state.committed - offset
        })
        for (i, byte) in [0xF0, 0xFF, 0xFF, 0xFF].enumerated() { bytes[lastFrame + i] = UInt8(byte) }
        try directory.write(bytes, to: "Forms.archive")
        if FileManager.default.fileExists(atPath: directory.file("Forms.archive.index")) {
            try FileManager.default.removeItem(atPath: directory.file("Forms.archive.index"))
        }
        let frame = #expect(throws: StoreError.self) { try repository.records() }
        #expect(frame?.code == .corrupt)
        #expect(frame?.offset == lastFrame)

        // Both slots claim a committed length above Int.max.
        bytes = good
        for slot in [64, 128] {
            for i in 0..<8 { bytes[slot + 8 + i] = 0xFF }
        }
        try directory.write(bytes, to: "Forms.archive")
        let slots = #expect(throws: StoreError.self) { try repository.records() }
        #expect(slots?.code == .corrupt)
        #expect(slots?.offset == 64)
    }

    /// The newest slot lost and the last commit's frame torn (a power cut before that commit's sync was done):
    /// the commit before it is the store's, and the next write carries on from it, cutting the torn frame off.
    @Test func aTornLastCommitWithItsSlotLostRollsBack() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<3) { try repository.add(record) }
        var bytes = try directory.read("Forms.archive")
        let newest = RecordLog.slotOffset(of: try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state)
        let committed = try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state.committed
        for i in 0..<RecordLog.slotSize { bytes[newest + i] = 0 }
        bytes[committed - 5] ^= 0x01   // the last frame (the lost commit's) fails its checksum
        try directory.write(bytes, to: "Forms.archive")
        #expect(try forms(directory).records() == sampleRecords(0..<2))
        try forms(directory).add(sampleRecords(5..<6)[0])
        #expect(try forms(directory).records() == sampleRecords(0..<2) + sampleRecords(5..<6))
    }

    @Test(arguments: [1 << 40, 300, RecordLog.firstFrame + 1])
    func aCommitThatClaimsWhatTheFileDoesNotHoldIsCorrupt(committed: Int) throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<2) { try repository.add(record) }
        var bytes = try directory.read("Forms.archive")
        var state = try RecordLog.prologue(Array(bytes.prefix(RecordLog.firstFrame)), path: "x").state
        state.sequence += 1
        state.committed = committed
        state.frameCount = min(state.frameCount, (committed - RecordLog.firstFrame) / RecordLog.frameHeaderSize)
        state.liveCount = min(state.liveCount, state.frameCount)
        state.liveBytes = 0
        let slot = state.serialized()
        bytes.replaceSubrange(RecordLog.slotOffset(of: state)..<RecordLog.slotOffset(of: state) + slot.count, with: slot)
        try directory.write(bytes, to: "Forms.archive")
        let error = #expect(throws: StoreError.self) { try repository.records() }
        #expect(error?.code == .corrupt)
        #expect(error?.offset != nil)
        let writeError = #expect(throws: StoreError.self) { try repository.add(sampleRecords(3..<4)[0]) }
        #expect(writeError?.code == .corrupt)
        #expect(try directory.read("Forms.archive") == bytes)
    }

    @Test func idsAreComparedByTheirBytesAsNSStringComparesThem() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        var first = sampleRecords(0..<1)[0]
        first.id = composed
        first.name = composed
        var second = sampleRecords(1..<2)[0]
        second.id = decomposed
        second.name = decomposed
        try repository.add(first)
        try repository.add(second)
        #expect(try repository.records().map { Array($0.name.unicodeScalars) } == [Array(composed.unicodeScalars), Array(decomposed.unicodeScalars)])
        #expect(try repository.get(decomposed).map { Array($0.name.unicodeScalars) } == Array(decomposed.unicodeScalars))
    }

    @Test func aRecordThatWouldNotReadBackIsRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        let stored = sampleRecords(0..<3)
        for record in stored { try repository.add(record) }
        let before = try directory.read("Forms.archive")
        for bad in [Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: .nan)] {
            var record = sampleRecords(3..<4)[0]
            record.expiresAt = bad
            let error = #expect(throws: StoreError.self) { try repository.add(record) }
            #expect(error?.code == .invalidArgument)
            #expect(try directory.read("Forms.archive") == before)
        }
        #expect(try repository.records() == stored)
    }

    @Test func concurrentAddsThroughTwoRepositoriesLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        var tuning = StoreTuning()
        tuning.mergeFrames = 7
        tuning.compactionFloor = 0
        let first = forms(directory, tuning: tuning)
        let second = forms(directory, tuning: tuning)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let repository = worker.isMultiple(of: 2) ? first : second
                    for index in 0..<25 {
                        let id = "\(worker)-\(index)"
                        try repository.add(SampleRecord(id: id, name: id, fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                                                      expiresAt: Date(timeIntervalSince1970: 2)))
                        if index.isMultiple(of: 5) { _ = try repository.remove(id) }
                        #expect(try repository.get("\(worker)-0") == nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try first.records()
        #expect(all.count == 160)
        #expect(Set(all.map(\.id)).count == 160)
    }

    /// The lock path is only opened and locked, never written: another store kept there is left intact. The
    /// index path is the store's own: whatever regular file is there (random bytes, another store) is a
    /// damaged index, replaced by the next writer's.
    @Test func theLockPathIsNeverWrittenAndTheIndexPathIsTheStoresOwn() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory, tuning: Self.indexEvery(1))
        let lockNamed = ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive.lock"))
        try lockNamed.add(sampleRecords(0..<2)[0])
        try directory.write(Array("not an index at all".utf8), to: "Forms.archive.index")
        for record in sampleRecords(5..<8) { try repository.add(record) }
        _ = try repository.remove("id6")
        #expect(try repository.records() == [sampleRecords(5..<6)[0], sampleRecords(7..<8)[0]])
        #expect(try repository.get("id7") == sampleRecords(7..<8)[0])
        #expect(try lockNamed.records() == sampleRecords(0..<1))
        let index = try directory.read("Forms.archive.index")
        #expect(Array(index.prefix(8)) == IndexFile.magic)
        #expect(readLittleEndian(index, 32, width: 8) == 2)   // the two live records
    }

    @Test func getDoesNotWaitOnALockPathThatIsAFIFO() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        for record in sampleRecords(0..<2) { try repository.add(record) }
        try FileManager.default.removeItem(atPath: repository.lockPath)
        #expect(mkfifo(repository.lockPath, 0o600) == 0)
        let result = Locked<SampleRecord??>(nil)
        let thread = Thread { result.withLock { $0 = .some(try? repository.get("id1")) } }
        thread.start()
        // A liveness bound, not a timing target: a `get` that waits for a writer on the FIFO never finishes.
        for _ in 0..<20_000 where result.withLock({ $0 }) == nil { usleep(1_000) }
        if result.withLock({ $0 }) == nil {
            Issue.record("get waited on the FIFO at the lock path")
            let fd = open(repository.lockPath, O_WRONLY | O_NONBLOCK)  // lets it go on
            if fd >= 0 { close(fd) }
            while result.withLock({ $0 }) == nil { usleep(1_000) }
        }
        #expect(result.withLock { $0 } == .some(sampleRecords(1..<2)[0]))
    }

    @Test func theChecksumIsZlibsCRC32() {
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.crc32([]) == 0)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        // Slicing-by-8 and the byte loop agree at every split.
        for split in [0, 1, 7, 8, 9, 500, 999] {
            #expect(Checksum.crc32(continuing: Checksum.crc32(long, 0..<split), long, split..<1000) == Checksum.crc32(long))
        }
    }
}

@Suite("ISO 8601 text of dates")
struct ISO8601TextTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (1_714_564_800.9, "2024-05-01T12:00:00Z"), (-1.5, "1969-12-31T23:59:58Z"),
        (-62_198_755_200, "-0001-01-01T00:00:00Z"), (253_402_300_800, "10000-01-01T00:00:00Z"),
        (.infinity, "1970-01-01T00:00:00Z"), (.nan, "1970-01-01T00:00:00Z"),
    ] as [(Double, String)])
    func formatsAsThePlistDateTextInUTC(seconds: Double, text: String) {
        #expect(ISO8601Text.format(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func farInstantsAreClampedNotTrappedOn() {
        #expect(ISO8601Text.format(Date(timeIntervalSince1970: 1e300)) == ISO8601Text.format(Date(timeIntervalSince1970: 1e15)))
        #expect(ISO8601Text.format(Date(timeIntervalSince1970: -1e300)).hasPrefix("-"))
    }
}
