import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// Eviction and replacement when a write fails, power is cut or the directory is hostile: what a review of
/// the cache's power-cut fixes found. Each test fails on the code before its fix.
@Suite("Cache: eviction and replacement under faults")
struct CacheEvictionFaultTests {
    /// A cache on `root/cache` with 16 KiB segments (a byte limit of 400,000), nothing in memory.
    private func cache(_ root: String, _ durability: Durability, clock: ManualClock,
                       _ fileSystem: FileSystem = .kernel) throws -> ArchiveCache<[UInt8]> {
        var options = CacheOptions()
        options.durability = durability
        options.clock = clock
        options.memoryCostLimit = 0
        options.byteLimit = 400_000
        return try ArchiveCache<[UInt8]>(directory: root + "/cache", registry: .standard, options: options,
                                         fileSystem: fileSystem, keyHash: { StableHash($0.utf8) })
    }

    /// A large entry replaced by a large one of another size, whose frame cannot be appended (the disk fails or
    /// is full): the set fails, and the old value still reads back (the new file has the other name).
    @Test(arguments: [EIO, ENOSPC])
    func aFailedReplaceOfALargeEntryKeepsTheOldValue(errno: Int32) throws {
        let fixture = try CacheFixture()
        let old = payload("big", 0, size: 70 << 10)
        try fixture.bytesCache().set(old, forKey: "big")
        let failingSegments = FileSystem { call, path in call == .write && path.hasSuffix(".seg") ? .error(errno) : nil }
        let cache = try fixture.bytesCache(fixture.options(), fileSystem: failingSegments)
        let error = #expect(throws: StoreError.self) { try cache.set(payload("big", 1, size: 80 << 10), forKey: "big") }
        #expect(error?.code == .io)
        #expect(error?.errno == errno)
        #expect(error?.path?.hasSuffix(".seg") == true)
        #expect(try fixture.bytesCache().value(forKey: "big") == old)
        // The new file stays (a rebuild may yet find a frame that names it), counted: what du shows.
        let again = try fixture.bytesCache()
        #expect(fixture.largeFiles().count == 2)
        #expect(again.statistics.byteCount == fixture.diskUsage())
        // The next set of the key replaces it, and the old file goes once the new slot is written.
        let next = payload("big", 2, size: 90 << 10)
        try again.set(next, forKey: "big")
        #expect(try fixture.bytesCache().value(forKey: "big") == next)
        #expect(fixture.largeFiles().count == 1)
        #expect(again.statistics.byteCount == fixture.diskUsage())
    }

    /// `.synchronous`: a trim that evicts two segments and carries a used entry out of the second. In every
    /// crash state, every entry the trim kept reads back (the carried entry's new slot is synced before the
    /// segment it left is unlinked).
    @Test func aSynchronousTrimKeepsTheEntriesItCarriesForwardInEveryCrashState() throws {
        let clock = ManualClock()
        var before: [String: [UInt8]] = [:]
        var kept: [String: [UInt8]] = [:]
        let report = try CrashSweep.run("cache: trim carrying from the second segment", setUp: { root in
            let setup = try cache(root, .relaxed, clock: clock)
            for i in 0..<12 {
                let value = payload("k\(i)", 0, size: 3_000)
                try setup.set(value, forKey: "k\(i)")
                before["k\(i)"] = value
            }
            _ = try setup.value(forKey: "k5")   // used since written: eviction carries it forward
            _ = setup.statistics                // the use is marked in the table
        }, operate: { root, fileSystem in
            try cache(root, .synchronous, clock: clock, fileSystem).trim(toByteLimit: 50_000)
            let plain = try cache(root, .synchronous, clock: clock)
            for key in before.keys { if let value = try plain.value(forKey: key) { kept[key] = value } }
        }, check: { root, _ in
            let reader = try cache(root, .synchronous, clock: clock)
            var problems: [String] = []
            for (key, value) in kept.sorted(by: { $0.key < $1.key }) {
                let seen = try reader.value(forKey: key)
                if seen != value { problems.append("\(key) (kept by the trim) reads \(seen.map { "\($0.count) bytes" } ?? "nil")") }
            }
            return problems
        })
        #expect(kept.keys.sorted() == ["k10", "k11", "k5", "k8", "k9"])
        #expect(report.failures == [], "\(report.failures.count) failing states, e.g. \(report.failures.prefix(2))")
    }

    /// A carry forward that fails (the disk is full) leaves the entry where it was, and the next eviction,
    /// with room again, carries it: it is neither dropped nor counted without being listed.
    @Test func aCarryForwardThatFailsLeavesTheEntryForTheNextEviction() throws {
        let fixture = try CacheFixture()
        let options = fixture.options(byteLimit: 400_000)   // 16 KiB segments
        let setup = try fixture.bytesCache(options)
        for i in 0..<12 { try setup.set(payload("k\(i)", 0, size: 3_000), forKey: "k\(i)") }
        #expect(try setup.value(forKey: "k1") == payload("k1", 0, size: 3_000))   // used: eviction carries it forward
        _ = setup.statistics
        let full = Shared(false)
        let fullDisk = FileSystem { call, path in full.value && call == .write && path.hasSuffix(".seg") ? .error(ENOSPC) : nil }
        do {
            let cache = try fixture.bytesCache(options, fileSystem: fullDisk)
            full.value = true
            let error = #expect(throws: StoreError.self) { try cache.trim(toByteLimit: 50_000) }
            #expect(error?.code == .io)
            #expect(error?.errno == ENOSPC)
        }
        let plain = try fixture.bytesCache(options)
        #expect(try plain.value(forKey: "k1") == payload("k1", 0, size: 3_000))
        try plain.trim(toByteLimit: 64_000)   // room again: about one segment goes
        let listed = try plain.entries().map(\.key).sorted()
        #expect(try plain.value(forKey: "k1") == payload("k1", 0, size: 3_000))
        #expect(listed.contains("k1"))
        #expect(plain.statistics.entryCount == listed.count)
    }

    /// `.synchronous`: a trim below what the cache's own files take evicts every segment and then rebuilds the
    /// table in the same section. In every crash state, after the next write, the byte count is what `du`
    /// shows (no segment the rebuilt table does not count comes back).
    @Test func aSynchronousTrimToATinyLimitKeepsTheByteCountAtDiskUsage() throws {
        let clock = ManualClock()
        let report = try CrashSweep.run("cache: trim to a tiny limit", setUp: { root in
            let setup = try cache(root, .relaxed, clock: clock)
            for i in 0..<12 { try setup.set(payload("k\(i)", 0, size: 3_000), forKey: "k\(i)") }
        }, operate: { root, fileSystem in
            try cache(root, .synchronous, clock: clock, fileSystem).trim(toByteLimit: 1_000)
        }, check: { root, _ in
            try cache(root, .synchronous, clock: clock).set([9, 9], forKey: "next")
            let counted = try cache(root, .synchronous, clock: clock).statistics.byteCount
            let onDisk = diskUsage(of: root + "/cache")
            return counted == onDisk ? [] : ["counted \(counted) bytes, du \(onDisk)"]
        })
        #expect(report.failures == [], "\(report.failures.count) failing states, e.g. \(report.failures.prefix(2))")
    }

    /// A symbolic link in place of the oldest segment (a hostile directory): its entries are misses, and
    /// eviction passes over it (it removes the link, never what it points to).
    @Test func aSymbolicLinkAtTheOldestSegmentIsAMissAndEvictionPassesOverIt() throws {
        let fixture = try CacheFixture()
        let options = fixture.options(byteLimit: 400_000)
        let setup = try fixture.bytesCache(options)
        for i in 0..<12 { try setup.set(payload("k\(i)", 0, size: 3_000), forKey: "k\(i)") }
        let oldest = fixture.path + "/" + fixture.segmentFiles()[0]
        let target = fixture.directory.path + "/elsewhere.seg"
        try FileManager.default.moveItem(atPath: oldest, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: oldest, withDestinationPath: target)
        let cache = try fixture.bytesCache(options)
        #expect(try cache.value(forKey: "k0") == nil)
        try cache.trim(toByteLimit: 50_000)
        try cache.trim(toByteLimit: 50_000)
        #expect(FileManager.default.fileExists(atPath: target))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: oldest)) == nil)
        let listed = try cache.entries().map(\.key)
        #expect(!listed.contains("k0"))
        #expect(cache.statistics.entryCount == listed.count)
        #expect(try cache.value(forKey: "k11") == payload("k11", 0, size: 3_000))
    }

    /// A symbolic link in place of a segment that is not the oldest, when the table is rebuilt (it was lost):
    /// the rebuild passes over it, and the cache's other entries read and write on.
    @Test func aRebuildPassesOverASymbolicLinkAmongTheSegments() throws {
        let fixture = try CacheFixture()
        let options = fixture.options(byteLimit: 400_000)
        let setup = try fixture.bytesCache(options)
        for i in 0..<12 { try setup.set(payload("k\(i)", 0, size: 3_000), forKey: "k\(i)") }
        let segments = fixture.segmentFiles()
        #expect(segments.count >= 3)
        let second = fixture.path + "/" + segments[1]
        try FileManager.default.moveItem(atPath: second, toPath: fixture.directory.path + "/elsewhere.seg")
        try FileManager.default.createSymbolicLink(atPath: second, withDestinationPath: fixture.directory.path + "/elsewhere.seg")
        try FileManager.default.removeItem(atPath: fixture.path + "/cache.table")
        let cache = try fixture.bytesCache(options)
        try cache.set([7], forKey: "new")   // the writer rebuilds the table
        #expect(try cache.value(forKey: "new") == [7])
        #expect(try cache.value(forKey: "k0") == payload("k0", 0, size: 3_000))
        #expect(try cache.value(forKey: "k11") == payload("k11", 0, size: 3_000))
        #expect(cache.statistics.entryCount == (try cache.entries()).count)
    }
}
