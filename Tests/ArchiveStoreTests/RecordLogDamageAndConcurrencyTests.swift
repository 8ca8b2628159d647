import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive
import TestSupport
import Testing
@testable import ArchiveStore

// Review of the record log (ArchiveRepository on RecordLog / RecordIndex / RecordStore). Each test states the
// scenario; a failing test is a defect. Tests that would trap run as exit tests.

/// A fresh scratch directory for an exit test (the child may die before cleaning up).
private func childScratch(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "/record-log-child-" + name
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private func repositoryMergingEvery(_ path: String, mergeFrames: Int = 1024) -> ArchiveRepository<SampleRecord> {
    var options = RepositoryOptions()
    options.tuning.mergeFrames = mergeFrames
    return ArchiveRepository<SampleRecord>(path: path, options: options)
}

private func readAll(_ path: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

private func writeAll(_ bytes: [UInt8], _ path: String) {
    try? Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Rewrites the current commit slot of the log at `path` (CRC recomputed), as a damaged or hostile file could.
private func patchCurrentSlot(_ path: String, _ change: (inout LogState) -> Void) -> Bool {
    var bytes = readAll(path)
    guard bytes.count >= RecordLog.firstFrame,
          let state = try? RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: path).state
    else { return false }
    var patched = state
    change(&patched)
    let offset = RecordLog.slotOffset(of: state)
    let slot = patched.serialized()
    bytes.replaceSubrange(offset..<offset + slot.count, with: slot)
    writeAll(bytes, path)
    return true
}

/// How many of this process's descriptors are open on `path` (other tests running in parallel open files of
/// their own, so the process-wide count would not do).
private func openDescriptorCount(on path: String) throws -> Int {
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    var count = 0
    #if os(Linux)
    for fd in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
        // A descriptor listed may close before it is read: it is then not open on `path`.
        guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd) else { continue }
        if destination == target { count += 1 }
    }
    #elseif canImport(Darwin)
    // No /proc: ask each descriptor for its path (fcntl F_GETPATH, <sys/fcntl.h>).
    for fd in 0..<getdtablesize() {
        var buffer = [CChar](repeating: 0, count: Int(MAXPATHLEN))
        guard fcntl(fd, F_GETPATH, &buffer) != -1 else { continue }
        if URL(fileURLWithPath: String(cString: buffer)).resolvingSymlinksInPath().path == target { count += 1 }
    }
    #endif
    return count
}


/// A store of eight records (all expiring at 2000), added in one import, whose index (written with it) has a
/// byte of its last entry changed: it fails its checksum. Returns how many entries the index held, or -1.
private func makeStoreWithADamagedIndex(_ path: String) -> Int {
    let repository = repositoryMergingEvery(path, mergeFrames: 1)
    guard (try? repository.add(contentsOf: sampleRecords(0..<8), skippingExisting: false)) == 8 else { return -1 }
    var index = readAll(path + ".index")
    guard index.count == IndexFile.headerSize + 8 * IndexFile.entrySize else { return -1 }
    index[index.count - 1] ^= 1   // the last entry's expiry
    writeAll(index, path + ".index")
    return Int(readLittleEndian(index, 32, width: 8))
}

@Suite("Record log: damaged files, concurrent readers, migration", .serialized)
struct RecordLogDamageAndConcurrencyTests {
    // MARK: Lost records

    /// `modify(_:)` on a store whose directory does not exist yet calls `body` with no records *before* taking
    /// any lock, then installs what it returned. A writer that creates the store meanwhile (another process;
    /// here a second repository called from inside `body`) loses its record. The doc says body runs "under
    /// both locks".
    @Test func modifyOfAStoreInAMissingDirectoryDoesNotLoseAConcurrentAdd() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("missing/Forms.archive")
        let first = repositoryMergingEvery(path)
        let other = repositoryMergingEvery(path)
        let concurrent = sampleRecords(1..<2)[0]
        var interrupted = false
        try first.modify { (records: inout [SampleRecord]) throws(StoreError) -> Bool in
            if !interrupted {
                // Another writer gets in between the first call (no lock yet) and the locked one.
                interrupted = true
                try other.add(concurrent)
            }
            records.append(sampleRecords(0..<1)[0])
            return true
        }
        #expect(Set(try first.records().map(\.id)) == ["id0", "id1"], "the concurrent add of id1 was overwritten")
    }

    /// A single-archive store holding two records with one id reads as two records (count 2, all() 2). A
    /// record log holds one record an id, so the migration keeps the first (the one `get` returned) and keeps
    /// the whole original file, byte for byte, at `<path>.before-migration`: no record it held is lost.
    @Test func migratingASingleArchiveStoreWithARepeatedIdKeepsEveryRecordItShowed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let records = sampleRecords(0..<1)
        let twin = SampleRecord(id: "id0", name: "twin", fields: [:], registeredAt: Date(timeIntervalSince1970: 1_000),
                              expiresAt: Date(timeIntervalSince1970: 2_000))
        let original = try RepositoryFile<SampleRecord>.encode(records + [twin], path: path)
        try directory.write(original, to: "Forms.archive")
        let repository = repositoryMergingEvery(path)
        #expect(try repository.count() == 2)
        #expect(try repository.get("id0") == records[0])
        try repository.add(sampleRecords(5..<6)[0])
        #expect(try repository.records() == records + sampleRecords(5..<6))
        #expect(try directory.read("Forms.archive.before-migration") == original)
        #expect(try directory.mode("Forms.archive.before-migration") == 0o600)
        let kept = try ArchiveRepository<SampleRecord>.records(inArchive: try directory.read("Forms.archive.before-migration"), source: "x")
        #expect(kept == records + [twin])
    }

    // MARK: Descriptors

    /// `StoreFile.open` hands the descriptor to `StoreSnapshot.init`, which can throw (a damaged tail frame);
    /// the comment says `deinit` closes it then. Checks no descriptor leaks over many failed reads.
    @Test func aCorruptTailDoesNotLeakTheLogDescriptor() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let repository = repositoryMergingEvery(path)
        try repository.add(sampleRecords(0..<1)[0])
        var bytes = try directory.read("Forms.archive")
        bytes[RecordLog.firstFrame + 40] ^= 0xFF   // inside the tail frame's key/payload: its CRC fails
        try directory.write(bytes, to: "Forms.archive")
        // The count sees a descriptor on the file (so a leaked one would show).
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        #expect(try openDescriptorCount(on: path) == 1)
        try handle.close()
        #expect(try openDescriptorCount(on: path) == 0)
        for _ in 0..<50 {
            #expect(throws: StoreError.self) { _ = try repository.get("id0") }
        }
        #expect(try openDescriptorCount(on: path) == 0)
    }

    /// A reader takes no lock: a writer may commit between the reader's `fstat` of the log and its read of the
    /// commit slots. The reader then saw a committed length past the size it had read and called a healthy
    /// store corrupt (seen once in `lockFreeReadersAlwaysSeeEveryRecordDuringMergesAndCompactions`). Here the
    /// writer commits exactly there, every time.
    @Test func aCommitBetweenTheReadersStatusAndItsSlotReadIsNotCorruption() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        let writer = repositoryMergingEvery(path)
        try writer.add(sampleRecords(0..<1)[0])
        let armed = NSLock()
        nonisolated(unsafe) var pending = true
        nonisolated(unsafe) var sawStatus = false
        var options = RepositoryOptions()
        options.fileSystem = FileSystem(plan: { call, callPath in
            guard callPath == path else { return nil }
            armed.lock()
            defer { armed.unlock() }
            if call == .status && pending { sawStatus = true }
            if call == .read && sawStatus && pending {
                pending = false
                // Between the reader's status and its prologue read: another process commits a record.
                do { try writer.add(sampleRecords(1..<2)[0]) } catch { Issue.record("the writer failed: \(error)") }
            }
            return nil
        })
        let reader = ArchiveRepository<SampleRecord>(path: path, options: options)
        #expect(try reader.get("id0") == sampleRecords(0..<1)[0])
        #expect(!pending)
        #expect(try reader.records().map(\.id) == ["id0", "id1"])
    }

    // MARK: Traps from bytes on disk

    /// A commit slot (valid CRC) whose sequence is UInt64.max: the next commit does `sequence += 1` and traps.
    @Test func aSlotWithTheLargestSequenceDoesNotTrapTheNextWrite() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("sequence") + "/Forms.archive"
            let repository = repositoryMergingEvery(path)
            try repository.add(sampleRecords(0..<1)[0])
            guard patchCurrentSlot(path, { $0.sequence = .max }) else { exit(4) }
            _ = try? repository.add(sampleRecords(1..<2)[0])   // throwing corrupt is fine; trapping is not
        }
    }

    /// A commit slot (valid CRC, passes every check in `LogState(parsing:)`) whose live count is 0 while a put
    /// is live: `remove` computes liveCount -1 and `serialized()` traps in `UInt64(-1)`. Same with liveBytes.
    @Test func aSlotWhoseLiveCountIsTooLowDoesNotTrapARemove() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("live-count") + "/Forms.archive"
            let repository = repositoryMergingEvery(path)
            try repository.add(sampleRecords(0..<1)[0])
            guard patchCurrentSlot(path, { $0.liveCount = 0 }) else { exit(4) }
            _ = try? repository.remove("id0")
        }
    }

    @Test func aSlotWhoseLiveBytesAreTooLowDoesNotTrapARemove() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("live-bytes") + "/Forms.archive"
            let repository = repositoryMergingEvery(path)
            try repository.add(sampleRecords(0..<1)[0])
            guard patchCurrentSlot(path, { $0.liveBytes = 0 }) else { exit(4) }
            _ = try? repository.remove("id0")
        }
    }

    /// An index entry (the entries' checksum recomputed) whose offset does not fit an `Int`: the index is set
    /// aside (the log is read), never trusted or trapped on.
    @Test func anIndexEntryWithAnImpossibleOffsetDoesNotTrapAReader() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("offset") + "/Forms.archive"
            let repository = repositoryMergingEvery(path, mergeFrames: 1)
            try repository.add(contentsOf: sampleRecords(0..<1))   // written with its index
            var index = readAll(path + ".index")
            guard index.count == IndexFile.headerSize + IndexFile.entrySize else { exit(4) }
            for i in 0..<8 { index[IndexFile.headerSize + 8 + i] = 0xFF }   // offset = 2^64 - 1
            let crc = Checksum.crc32(index, IndexFile.headerSize..<index.count)
            for i in 0..<4 { index[52 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
            let headerCRC = Checksum.crc32(index, 0..<56)
            for i in 0..<4 { index[56 + i] = UInt8(truncatingIfNeeded: headerCRC >> UInt32(8 * i)) }
            writeAll(index, path + ".index")
            guard try ArchiveRepository<SampleRecord>(path: path).records() == sampleRecords(0..<1) else { exit(3) }
        }
    }

    /// A store file that is not a record log is read whole (`readFile`, no limit) as a single archive: a
    /// 1 TiB sparse file at the store path makes `get` allocate 1 TiB and die instead of reporting corrupt.
    @Test func aHugeNonLogStoreFileIsCorruptNotACrash() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("huge-store") + "/Forms.archive"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0, ftruncate(fd, off_t(1) << 40) == 0 else { exit(4) }
            close(fd)
            _ = try? repositoryMergingEvery(path).get("id0")
        }
    }

    /// An index whose header (checksum valid) claims 2^32-1 entries, in a sparse file of that size: nothing
    /// is reserved from the claim, the first entry (zeros) fails its checks and the log is read.
    @Test func anIndexClaimingHugeCountsDoesNotCrashAReader() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("huge-index") + "/Forms.archive"
            let repository = repositoryMergingEvery(path, mergeFrames: 1)
            try repository.add(contentsOf: sampleRecords(0..<1))
            let real = readAll(path + ".index")
            guard real.count == IndexFile.headerSize + IndexFile.entrySize else { exit(4) }
            let count = UInt64(UInt32.max)
            var header = Array(real[0..<32])
            appendLittleEndian(count, width: 8, to: &header)
            header += real[40..<56]
            appendLittleEndian(UInt64(Checksum.crc32(header)), width: 4, to: &header)
            header += [UInt8](repeating: 0, count: IndexFile.headerSize - header.count)
            writeAll(header, path + ".index")
            let fd = open(path + ".index", O_WRONLY)
            guard fd >= 0, ftruncate(fd, off_t(IndexFile.headerSize) + off_t(count) * off_t(IndexFile.entrySize)) == 0 else { exit(5) }
            close(fd)
            guard try ArchiveRepository<SampleRecord>(path: path).records() == sampleRecords(0..<1) else { exit(3) }
        }
    }

    // MARK: Lock-free readers against merges, compactions and renames

    /// Ten records always exist; a writer updates them (merging the index every few frames and compacting
    /// whenever dead bytes outweigh live ones) while readers, without a lock, check that every record is
    /// there and nothing is reported damaged.
    @Test func lockFreeReadersAlwaysSeeEveryRecordDuringMergesAndCompactions() async throws {
        let directory = try TemporaryDirectory()
        var options = RepositoryOptions()
        options.tuning.mergeFrames = 3
        options.tuning.compactionFloor = 0
        let repository = ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options)
        for record in sampleRecords(0..<10) { try repository.add(record) }
        let problems = await withTaskGroup(of: [String].self) { group in
            group.addTask {
                var problems: [String] = []
                for round in 0..<300 {
                    var record = sampleRecords((round % 10)..<(round % 10 + 1))[0]
                    record.name = "round\(round)"
                    do { try repository.update(record) } catch { problems.append("update: \(error)") }
                }
                return problems
            }
            for reader in 0..<2 {
                group.addTask {
                    var problems: [String] = []
                    for i in 0..<400 {
                        do {
                            if reader == 0 {
                                let all = try repository.records()
                                if all.count != 10 { problems.append("all() saw \(all.count) records") }
                            } else {
                                if try repository.get("id\(i % 10)") == nil { problems.append("get(id\(i % 10)) saw nothing") }
                                let count = try repository.count()
                                if count != 10 { problems.append("count() saw \(count)") }
                            }
                        } catch {
                            problems.append("reader \(reader): \(error)")
                        }
                    }
                    return problems
                }
            }
            var all: [String] = []
            for await part in group { all += part }
            return all
        }
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(3))")
    }

    // MARK: Accounting

    /// A seeded mix of every kind of change, with small merge and compaction thresholds, checked after each
    /// step against a model: the records (nothing lost or resurrected) and the commit's liveCount/liveBytes
    /// (which drive compaction) against the live frames actually in the log.
    @Test(arguments: [1, 2, 3])
    func liveCountAndBytesMatchTheLiveFramesAfterEveryKindOfChange(seed: Int) throws {
        let directory = try TemporaryDirectory()
        var options = RepositoryOptions()
        options.tuning.mergeFrames = 4
        options.tuning.compactionFloor = 2_000
        let path = directory.file("Forms.archive")
        let repository = ArchiveRepository<SampleRecord>(path: path, options: options)
        var model: [String: SampleRecord] = [:]
        let random = ReviewRandom(seed: seed)
        let next = { (n: Int) -> Int in random.next(n) }
        let record = { (i: Int, step: Int) -> SampleRecord in
            SampleRecord(id: "id\(i)", name: "n\(step)" + String(repeating: "x", count: random.next(200)), fields: [:],
                       registeredAt: Date(timeIntervalSince1970: 1_000),
                       expiresAt: Date(timeIntervalSince1970: Double(1_000 + random.next(100))))
        }
        for step in 0..<250 {
            let i = next(12)
            switch next(8) {
            case 0:
                let r = record(i, step)
                do { try repository.add(r); model[r.id] = r } catch { #expect((error as StoreError).code == .duplicateID) }
            case 1:
                let r = record(i, step)
                do { try repository.update(r); model[r.id] = r } catch { #expect((error as StoreError).code == .notFound) }
            case 2:
                let r = record(i, step)
                try repository.upsert(r)
                model[r.id] = r
            case 3:
                let removed = try repository.remove("id\(i)")
                #expect(removed?.id == model.removeValue(forKey: "id\(i)")?.id)
            case 4:
                let limit = Date(timeIntervalSince1970: Double(1_000 + next(100)))
                let removed = try repository.removeExpired(at: limit)
                for r in removed { model[r.id] = nil }
                #expect(!model.values.contains { $0.expiresAt <= limit }, "step \(step): removeExpired left some")
            case 5:
                let batch = (0..<3).map { _ in record(next(12), step) }
                var skipped: [String] = []
                let added = try repository.add(contentsOf: batch, skippingExisting: true, skipped: { skipped.append($0.id) })
                var expectedSkips: [String] = []
                for r in batch {
                    if model[r.id] == nil { model[r.id] = r } else { expectedSkips.append(r.id) }
                }
                #expect(skipped == expectedSkips && added == batch.count - skipped.count, "step \(step)")
            case 6:
                let updated = try repository.update("id\(i)") { (r: inout SampleRecord) throws(StoreError) -> Bool in
                    r.name += "u"
                    return true
                }
                if let updated { model[updated.id] = updated }
            default:
                let removed = try repository.removeAll { $0.name.count % 7 == 0 }
                for r in removed { model[r.id] = nil }
            }
            let stored = try repository.records()
            #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.name) }) == model.mapValues(\.name),
                    "step \(step)")
            guard case .log(let handle) = try StoreHandle.open(path, fileSystem: .kernel, counters: StoreCounters(), unpublished: .never)
            else { continue }
            var count = 0
            var bytes = 0
            try handle.forEachFrame(handle.table.liveEntries) { frame throws(StoreError) -> Bool in
                count += 1
                bytes += frame.header.length
                return true
            }
            #expect(handle.state.liveCount == count, "step \(step)")
            #expect(handle.state.liveBytes == bytes, "step \(step)")
            #expect(try repository.count() == model.count)
            if handle.state.liveCount != count || handle.state.liveBytes != bytes { break }
        }
    }

    // MARK: Index damage

    /// An index that fails its checksum is set aside whole before anything is read from it: `expired(at:)`
    /// returns each record once, from the log.
    @Test func aDamagedIndexDoesNotDuplicateExpiredRecords() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Forms.archive")
        #expect(makeStoreWithADamagedIndex(path) == 8)
        let expired = try repositoryMergingEvery(path).expired(at: Date(timeIntervalSince1970: 3_000))
        #expect(expired.map(\.id).sorted() == sampleRecords(0..<8).map(\.id).sorted())
    }

    /// The same damage under `removeExpired`: every record removed once, the count zero.
    @Test func aDamagedIndexDoesNotTrapRemoveExpired() async {
        await #expect(processExitsWith: .success) {
            let path = childScratch("damaged-index") + "/Forms.archive"
            guard makeStoreWithADamagedIndex(path) == 8 else { exit(4) }
            let repository = repositoryMergingEvery(path)
            let removed = try repository.removeExpired(at: Date(timeIntervalSince1970: 3_000))
            guard removed.count == 8, try repository.count() == 0 else { exit(3) }
        }
    }
}


private final class ReviewRandom {
    private var state: UInt64
    init(seed: Int) { state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 }
    func next(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(n))
    }
}
