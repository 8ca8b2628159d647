import ArchivePlatform
@testable import ArchiveStore
import Foundation
import Testing
import TestSupport

/// The decoded-record cache: a ring of at most `capacity` records by frame offset, the oldest dropped first,
/// emptied when the log or the handle that reads it changes, never holding class instances.
@Suite("DecodedRecords")
struct DecodedRecordsTests {
    final class Box { let value: Int; init(_ value: Int) { self.value = value } }

    @Test func keepsAtMostItsCapacityAndDropsTheOldestFirst() {
        var cache = DecodedRecords<String>(capacity: 3)
        #expect(cache.record(at: 10, generation: 7, handle: 1) == nil)   // adopts the log (7, 1)
        for offset in [10, 20, 30] { cache.keep("r\(offset)", at: offset, generation: 7, handle: 1) }
        #expect([10, 20, 30].map { cache.record(at: $0, generation: 7, handle: 1) } == ["r10", "r20", "r30"])
        cache.keep("r40", at: 40, generation: 7, handle: 1)   // drops 10, the oldest
        cache.keep("r50", at: 50, generation: 7, handle: 1)   // drops 20
        #expect([10, 20, 30, 40, 50].map { cache.record(at: $0, generation: 7, handle: 1) } == [nil, nil, "r30", "r40", "r50"])
        cache.keep("again", at: 30, generation: 7, handle: 1)   // an offset kept already keeps its record
        #expect(cache.record(at: 30, generation: 7, handle: 1) == "r30")
        for offset in [60, 70, 80] { cache.keep("r\(offset)", at: offset, generation: 7, handle: 1) }
        #expect([30, 40, 50, 60, 70, 80].map { cache.record(at: $0, generation: 7, handle: 1) } == [nil, nil, nil, "r60", "r70", "r80"])
    }

    @Test func anotherLogOrFileEmptiesIt() {
        var cache = DecodedRecords<String>(capacity: 4)
        _ = cache.record(at: 0, generation: 1, handle: 1)
        cache.keep("a", at: 8, generation: 1, handle: 1)
        cache.keep("stale", at: 16, generation: 2, handle: 1)   // for another log: not kept
        #expect(cache.record(at: 8, generation: 1, handle: 1) == "a")
        #expect(cache.record(at: 8, generation: 2, handle: 1) == nil)   // a new log: emptied
        #expect(cache.record(at: 8, generation: 2, handle: 1) == nil)
        cache.keep("b", at: 8, generation: 2, handle: 1)
        #expect(cache.record(at: 8, generation: 2, handle: 1) == "b")
        #expect(cache.record(at: 8, generation: 2, handle: 9) == nil)   // another handle: emptied
        #expect(cache.record(at: 8, generation: 2, handle: 9) == nil)
    }

    @Test func classInstancesAndACapacityOfZeroAreNeverKept() {
        var boxes = DecodedRecords<Box>(capacity: 8)
        _ = boxes.record(at: 0, generation: 1, handle: 1)
        boxes.keep(Box(1), at: 0, generation: 1, handle: 1)
        #expect(boxes.record(at: 0, generation: 1, handle: 1) == nil)
        var none = DecodedRecords<Int>(capacity: 0)
        _ = none.record(at: 0, generation: 1, handle: 1)
        none.keep(5, at: 0, generation: 1, handle: 1)
        #expect(none.record(at: 0, generation: 1, handle: 1) == nil)
    }

    @Test func capacityOneAndAnEvictedOffsetKeptAgain() {
        var cache = DecodedRecords<String>(capacity: 1)
        _ = cache.record(at: 0, generation: 1, handle: 1)
        cache.keep("a", at: 8, generation: 1, handle: 1)
        cache.keep("b", at: 16, generation: 1, handle: 1)
        #expect(cache.record(at: 8, generation: 1, handle: 1) == nil)
        #expect(cache.record(at: 16, generation: 1, handle: 1) == "b")
        cache.keep("a2", at: 8, generation: 1, handle: 1)
        #expect(cache.record(at: 8, generation: 1, handle: 1) == "a2")
        #expect(cache.record(at: 16, generation: 1, handle: 1) == nil)

        var ring = DecodedRecords<Int>(capacity: 3)
        _ = ring.record(at: 0, generation: 1, handle: 1)
        // Pseudo-random keeps (offsets 0..<8) against a first-in-first-out model.
        var model: [(Int, Int)] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<5000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = Int(seed >> 61)
            if !model.contains(where: { $0.0 == offset }) {
                if model.count == 3 { model.removeFirst() }
                model.append((offset, i))
            }
            ring.keep(i, at: offset, generation: 1, handle: 1)
            for o in 0..<8 {
                let expected = model.first(where: { $0.0 == o })?.1
                if ring.record(at: o, generation: 1, handle: 1) != expected { Issue.record("offset \(o) at step \(i)"); return }
            }
        }
    }

    /// The byte budget: the oldest records are dropped while the frames kept would pass it; a frame larger than
    /// the budget is not kept (and drops nothing).
    @Test func keepsAtMostItsByteBudget() {
        var cache = DecodedRecords<String>(capacity: 10, byteBudget: 100)
        _ = cache.record(at: 0, generation: 1, handle: 1)
        for offset in [10, 20, 30] { cache.keep("r\(offset)", at: offset, length: 40, generation: 1, handle: 1) }
        #expect([10, 20, 30].map { cache.record(at: $0, generation: 1, handle: 1) } == [nil, "r20", "r30"])
        #expect(cache.bytes == 80)
        cache.keep("big", at: 40, length: 101, generation: 1, handle: 1)
        #expect(cache.record(at: 40, generation: 1, handle: 1) == nil)
        #expect(cache.bytes == 80 && cache.keptCount == 2)
        cache.keep("r50", at: 50, length: 100, generation: 1, handle: 1)   // drops 20 and 30
        #expect([20, 30, 50].map { cache.record(at: $0, generation: 1, handle: 1) } == [nil, nil, "r50"])
        #expect(cache.bytes == 100 && cache.keptCount == 1)
        for offset in 100..<112 { cache.keep("s\(offset)", at: offset, length: 1, generation: 1, handle: 1) }
        // s100 drops r50 (the budget); s110 and s111 drop s100 and s101 (the capacity).
        #expect([50, 100, 101, 102, 111].map { cache.record(at: $0, generation: 1, handle: 1) } == [nil, nil, nil, "s102", "s111"])
        #expect(cache.bytes == 10 && cache.keptCount == 10)
    }

    /// The ring with a byte budget against a model: 4,000 keeps of frames of random lengths at 40 offsets, a
    /// capacity of 6 and a budget of 300 bytes; every offset checked after each keep.
    @Test func theByteBudgetAgainstAModel() {
        var cache = DecodedRecords<Int>(capacity: 6, byteBudget: 300)
        _ = cache.record(at: 0, generation: 1, handle: 1)
        var model: [(offset: Int, value: Int, length: Int)] = []
        var seed: UInt64 = 0x0123_4567_89AB_CDEF
        for i in 0..<4_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = 8 * Int((seed >> 58) % 40 + 1)
            let length = Int((seed >> 20) % 330)
            if !model.contains(where: { $0.offset == offset }) && length <= 300 {
                while !model.isEmpty && (model.count == 6 || model.reduce(0, { $0 + $1.length }) + length > 300) { model.removeFirst() }
                model.append((offset, i, length))
            }
            cache.keep(i, at: offset, length: length, generation: 1, handle: 1)
            for o in stride(from: 8, through: 8 * 41, by: 8) where cache.record(at: o, generation: 1, handle: 1) != model.first(where: { $0.offset == o })?.value {
                Issue.record("offset \(o) at step \(i)")
                return
            }
            if cache.bytes != model.reduce(0, { $0 + $1.length }) || cache.keptCount != model.count {
                Issue.record("bytes \(cache.bytes) at step \(i)")
                return
            }
        }
    }

    /// The offset table (open addressing, entries moved back on removal) against a model: 50 records in a
    /// table of 128 slots, offsets that collide, 5,000 keeps; every offset's record and key checked each step.
    @Test func theOffsetTableAgainstAModel() {
        var cache = DecodedRecords<Int>(capacity: 50)
        _ = cache.record(at: 0, generation: 1, handle: 1)
        var model: [(offset: Int, value: Int)] = []
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        // Offsets scattered as frames of many sizes are (an even progression would spread without collisions).
        var offsetSeed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let offsets = (0..<120).map { _ in
            offsetSeed = offsetSeed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(offsetSeed >> 40)
        }
        for i in 0..<5_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = offsets[Int(seed >> 33) % offsets.count]
            if !model.contains(where: { $0.offset == offset }) {
                if model.count == 50 { model.removeFirst() }
                model.append((offset, i))
            }
            cache.keep(i, at: offset, key: Array("k\(offset)".utf8), generation: 1, handle: 1)
            for o in offsets {
                let expected = model.first(where: { $0.offset == o })?.value
                guard cache.record(at: o, generation: 1, handle: 1) == expected,
                      cache.keeps(o, key: Array("k\(o)".utf8), generation: 1, handle: 1) == (expected != nil),
                      !cache.keeps(o, key: Array("other".utf8), generation: 1, handle: 1) else {
                    Issue.record("offset \(o) at step \(i)")
                    return
                }
            }
        }
        #expect(!cache.keeps(model[0].offset, key: Array("k\(model[0].offset)".utf8), generation: 2, handle: 1))
    }

    /// A `get` whose record is kept reads only the commit slots: the frame is neither read nor decoded again;
    /// a record changed since is read at its new frame.
    @Test func aGetOfAKeptRecordReadsNoFrame() throws {
        let directory = try TemporaryDirectory()
        let log = CallLog()
        var options = RepositoryOptions()
        options.fileSystem = log.fileSystem
        let repository = ArchiveRepository<SampleRecord>(path: directory.file("kept.archive"), options: options)
        try repository.add(contentsOf: sampleRecords(0..<3))
        #expect(try repository.count() == 3)
        func readsAndDecodes(_ id: String) throws -> (reads: Int, decodes: Int, name: String?) {
            log.clear()
            let decoded = repository.statistics.recordsDecoded
            let record = try repository.get(id)
            return (log.calls.filter { $0.0 == .read }.count, repository.statistics.recordsDecoded - decoded, record?.name)
        }
        let first = try readsAndDecodes("id1")
        #expect(first.reads == 2 && first.decodes == 1)   // the slots, then the frame
        let again = try readsAndDecodes("id1")
        #expect(again.reads == 1 && again.decodes == 0 && again.name == first.name)
        var changed = try #require(try repository.get("id1"))
        changed.name = "changed"
        try repository.update(changed)
        let updated = try readsAndDecodes("id1")
        #expect(updated.decodes == 1 && updated.name == "changed")
        #expect(try readsAndDecodes("id9").name == nil)

        var none = RepositoryOptions()
        none.fileSystem = log.fileSystem
        none.decodedRecordCacheCapacity = 0
        let uncached = ArchiveRepository<SampleRecord>(path: directory.file("kept.archive"), options: none)
        #expect(try uncached.get("id2")?.id == "id2")
        log.clear()
        #expect(try uncached.get("id2")?.id == "id2")
        #expect(log.calls.filter { $0.0 == .read }.count == 2)
    }

    /// A decoded record is checked against its frame's key without making the key of a string id: the same
    /// answer as comparing ``ArchiveRepository/key(_:)`` (a non-string id goes through its description).
    @Test func aRecordIsCheckedAgainstItsFramesKey() {
        typealias Samples = ArchiveRepository<SampleRecord>
        for (id, key, expected) in [("id1", "id1", true), ("id1", "id2", false), ("id1", "id10", false), ("", "", true),
                                    ("", "x", false), ("é", "é", true), ("e\u{301}", "é", false)] {
            #expect(Samples.isKey(Array(key.utf8), of: id) == expected, "\(id) / \(key)")
            #expect(Samples.isKey(Array(key.utf8), of: id) == (Samples.key(id) == Array(key.utf8)))
        }
        typealias Numbered = ArchiveRepository<RenamedReading>
        #expect(Numbered.isKey(Array("42".utf8), of: 42))
        #expect(!Numbered.isKey(Array("42".utf8), of: 420))
    }

    /// Eight tasks reading and keeping at once through the repository's lock: every record found is the one kept
    /// at its offset.
    @Test func theLockedCacheFromManyThreads() async {
        let cache = Locked(DecodedRecords<Int>(capacity: 4))
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<20_000 {
                        let gen = UInt64(i / 5000)
                        let offset = (i * 7 + t) % 16
                        if let r = cache.withLock({ $0.record(at: offset, generation: gen, handle: 1) }) {
                            if r != offset * 1000 { Issue.record("wrong record") }
                        } else {
                            cache.withLock { $0.keep(offset * 1000, at: offset, generation: gen, handle: 1) }
                        }
                    }
                }
            }
        }
    }
}
