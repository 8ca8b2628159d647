import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

@Suite("ArchiveCache: expiry, limits, LRU order")
struct CacheLimitTests {
    @Test func expiredEntryIsNeverReturnedAndIsDeletedWhenMet() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        try cache.set([1], forKey: "short", timeToLive: .seconds(10))
        try cache.set([2], forKey: "long", timeToLive: .hours(1))
        fixture.clock.advance(9.999)
        #expect(try cache.value(forKey: "short") == [1])
        fixture.clock.advance(0.001)
        #expect(try cache.value(forKey: "short") == nil)   // expiry instant reached: expired (memory hit path)
        #expect(try cache.value(forKey: "long") == [2])
        #expect(!FileManager.default.fileExists(atPath: fixture.entryPath("short")))
        let statistics = cache.statistics
        #expect(statistics.expired == 1)
        #expect(statistics.entryCount == 1)
    }

    @Test func expiredEntryOnDiskIsAMissAndIsRemoved() throws {
        let fixture = try CacheFixture()
        let writer = try fixture.bytesCache(fixture.options(ttl: .minutes(1)))
        try writer.set([1], forKey: "k")
        fixture.clock.advance(61)
        let reader = try fixture.bytesCache(fixture.options())
        #expect(try reader.value(forKey: "k") == nil)
        #expect(fixture.entryFiles() == [])
        #expect(reader.statistics.expired == 1)
        #expect(reader.statistics.misses == 1)
    }

    @Test func removeExpiredRemovesExactlyTheExpiredEntries() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(memory: 1 << 20, ttl: .hours(2)))
        for i in 0..<10 { try cache.set([UInt8(i)], forKey: "a\(i)", timeToLive: .minutes(30)) }
        for i in 0..<5 { try cache.set([UInt8(i)], forKey: "b\(i)") }
        try cache.set([0], forKey: "never", timeToLive: .days(365))
        fixture.clock.advance(3_600)
        #expect(try cache.removeExpired() == 10)
        #expect(fixture.entryFiles().count == 6)
        #expect(try cache.removeExpired() == 0)
        fixture.clock.advance(3_600)
        #expect(try cache.removeExpired() == 5)
        #expect(try cache.value(forKey: "never") == [0])
        #expect(cache.statistics.entryCount == 1)
    }

    @Test func entryLargerThanTheByteLimitIsRefused() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1_000))
        try cache.set(payload("k", 1, size: 100), forKey: "k")
        let error = #expect(throws: StoreError.self) { try cache.set([UInt8](repeating: 1, count: 2_000), forKey: "big") }
        #expect(error?.code == .entryTooLarge)
        #expect(error?.recordID == "big")
        #expect(try cache.value(forKey: "k") == payload("k", 1, size: 100))
        #expect(fixture.entryFiles().count == 1)
        #expect(fixture.stagingFiles() == [])
    }

    @Test func byteAndCountLimitsHoldAfterEverySet() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 8_000, countLimit: 30))
        var random = SeededRandom(seed: 7)
        for step in 0..<400 {
            let size = 50 + random.below(700)
            try cache.set(payload("k\(random.below(60))", step, size: size), forKey: "k\(random.below(60))")
            let onDisk = fixture.entryBytes()
            let newest = cache.statistics
            #expect(onDisk <= 8_000 + 1_000, "step \(step): \(onDisk) bytes on disk")
            #expect(fixture.entryFiles().count <= 30)
            #expect(newest.byteCount == onDisk, "index bytes \(newest.byteCount) against disk \(onDisk)")
            #expect(newest.entryCount == fixture.entryFiles().count)
        }
        #expect(cache.statistics.evictions > 0)
    }

    @Test func leastRecentlyUsedIsEvictedFirst() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(countLimit: 3))
        try cache.set([1], forKey: "a")
        try cache.set([2], forKey: "b")
        try cache.set([3], forKey: "c")
        #expect(try cache.value(forKey: "a") == [1])
        try cache.set([4], forKey: "d")
        #expect(try cache.value(forKey: "b") == nil)
        #expect(try cache.value(forKey: "a") == [1])
        #expect(try cache.value(forKey: "c") == [3])
        #expect(try cache.value(forKey: "d") == [4])
    }

    @Test func restartKeepsLRUOrder() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 3))
            try cache.set([1], forKey: "a")
            try cache.set([2], forKey: "b")
            try cache.set([3], forKey: "c")
            #expect(try cache.value(forKey: "a") == [1])   // a is now the most recent: b is the oldest
        }
        let reopened = try fixture.bytesCache(fixture.options(countLimit: 3))
        try reopened.set([4], forKey: "d")
        #expect(try reopened.value(forKey: "b") == nil)
        #expect(try reopened.value(forKey: "a") == [1])
        #expect(try reopened.value(forKey: "c") == [3])
        // After a compaction too: the snapshot keeps the order.
        #expect(try reopened.value(forKey: "c") == [3])
        try reopened.trim(toByteLimit: 0)
        #expect(fixture.entryFiles() == [])
    }

    @Test func restartAfterCompactionKeepsLRUOrder() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 1_000))
            for i in 0..<50 { try cache.set([UInt8(i)], forKey: "k\(i)") }
            for i in stride(from: 49, through: 0, by: -1) { _ = try cache.value(forKey: "k\(i)") }
            _ = cache.statistics   // writes the uses to the journal
            try cache.compactIndex()
            #expect(FileManager.default.fileExists(atPath: fixture.path + "/cache.index"))
            let journal = try FileManager.default.attributesOfItem(atPath: fixture.path + "/cache.journal")[.size] as? NSNumber
            #expect(journal?.intValue == CacheJournalRecord.size)   // only the header of the new generation
        }
        let reopened = try fixture.bytesCache(fixture.options(countLimit: 1_000))
        try reopened.trim(toByteLimit: reopened.statistics.byteCount - 10 * 300)
        // The last pass read k49 ... k0, so k49... are the least recent.
        let remaining = try reopened.entries().map(\.key)
        #expect(remaining.count < 50)
        #expect(remaining.last == "k0")
        #expect(!remaining.contains("k49"))
    }

    @Test func lostIndexIsRebuiltFromTheEntryFiles() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
            for i in 0..<20 { try cache.set(payload("k\(i)", 0, size: 200), forKey: "k\(i)") }
        }
        try FileManager.default.removeItem(atPath: fixture.path + "/cache.journal")
        try? FileManager.default.removeItem(atPath: fixture.path + "/cache.index")
        let cache = try fixture.bytesCache(fixture.options(countLimit: 10))
        #expect(cache.statistics.entryCount == 20)   // rebuilt by scanning
        try cache.set(payload("new", 0, size: 200), forKey: "new")
        #expect(fixture.entryFiles().count == 10)
        #expect(try cache.value(forKey: "new") == payload("new", 0, size: 200))
    }

    @Test func damagedIndexAndJournalAreRebuilt() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
            for i in 0..<20 { try cache.set([UInt8(i)], forKey: "k\(i)") }
        }
        var journal = try fixture.directory.read("cache/cache.journal")
        journal[100] ^= 0xFF
        try fixture.directory.write(journal, to: "cache/cache.journal")
        try fixture.directory.write(Array("ACINDEX1 garbage".utf8), to: "cache/cache.index")
        let cache = try fixture.bytesCache(fixture.options(countLimit: 5))
        #expect(cache.statistics.entryCount == 20)
        try cache.set([99], forKey: "new")
        #expect(fixture.entryFiles().count == 5)
        #expect(try cache.value(forKey: "new") == [99])
    }
}

@Suite("ArchiveCache: damaged files, collisions, foreign files, modes")
struct CacheRobustnessTests {
    @Test func hashCollisionNeverReturnsAnotherKeysValue() throws {
        let fixture = try CacheFixture()
        let collide: @Sendable (String) -> StableHash = { _ in StableHash(high: 0xAB, low: 1) }
        let cache = try fixture.bytesCache(fixture.options(), keyHash: collide)
        try cache.set([1], forKey: "first")
        try cache.set([2], forKey: "second")   // same file: replaces "first"
        #expect(try cache.value(forKey: "first") == nil)
        #expect(try cache.value(forKey: "second") == [2])
        try cache.removeValue(forKey: "first")    // another key's file: kept
        #expect(try cache.value(forKey: "second") == [2])
        #expect(cache.statistics.misses == 1)
        #expect(cache.statistics.damaged == 0)
    }

    @Test func misplacedFileOfAnotherKeyIsAMiss() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([1], forKey: "a")
        try cache.set([2], forKey: "b")
        try FileManager.default.removeItem(atPath: fixture.entryPath("b"))
        try FileManager.default.copyItem(atPath: fixture.entryPath("a"), toPath: fixture.entryPath("b"))
        #expect(try cache.value(forKey: "b") == nil)
        #expect(try cache.value(forKey: "a") == [1])
    }

    @Test(arguments: ["garbage", "truncated", "foreign-plist", "foreign-archive", "empty", "other-value-type"])
    func damagedEntryFileIsAMissAndIsRemoved(kind: String) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set(payload("k", 1, size: 300), forKey: "k")
        let path = fixture.entryPath("k")
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let damaged: [UInt8]
        switch kind {
        case "garbage": damaged = [UInt8](repeating: 0x5A, count: 300)
        case "truncated": damaged = Array(good.prefix(good.count / 2))
        case "foreign-plist": damaged = [UInt8](try PropertyListSerialization.data(fromPropertyList: ["key": "k"], format: .binary, options: 0))
        case "foreign-archive": damaged = [UInt8](try NSKeyedArchiver.archivedData(withRootObject: ["key": "k"], requiringSecureCoding: false))
        case "other-value-type": damaged = try ArchiveEncoder().encode(CacheEntryFile(key: "k", value: "a string", created: Date(), expires: nil))
        default: damaged = []
        }
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        #expect(try cache.value(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.statistics.damaged == 1)
        try cache.set([5], forKey: "k")
        #expect(try cache.value(forKey: "k") == [5])
    }

    @Test func fifoAtAnEntryPathIsAMissWithoutBlockingAndIsKept() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([1], forKey: "k")
        let path = fixture.entryPath("k")
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        #expect(try cache.value(forKey: "k") == nil)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func filesTheCacheDidNotWriteAreNeverDeleted() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(countLimit: 2))
        for i in 0..<5 { try cache.set([UInt8(i)], forKey: "k\(i)") }
        let hash = StableHash("k4".utf8).hex
        let fanOut = fixture.path + "/" + hash.prefix(2)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: fixture.path + "/notes.txt"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: fanOut + "/README"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: fanOut + "/" + hash + ".archive.bak"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: fixture.path + "/staging/notes.tmp"))
        try cache.removeAll()
        #expect(fixture.entryFiles() == [])
        for file in ["/notes.txt", "/" + hash.prefix(2) + "/README", "/" + hash.prefix(2) + "/" + hash + ".archive.bak"] {
            #expect(FileManager.default.fileExists(atPath: fixture.path + file), "\(file)")
        }
        try cache.trim(toByteLimit: 0)
        _ = try fixture.bytesCache()
        #expect(FileManager.default.fileExists(atPath: fixture.path + "/notes.txt"))
        #expect(cache.statistics.entryCount == 0)
    }

    @Test func filesAre0600AndDirectories0700() throws {
        let fixture = try CacheFixture()
        let old = umask(0)
        defer { umask(old) }
        let cache = try fixture.bytesCache(fixture.options(durability: .synchronous))
        try cache.set([1], forKey: "k")
        for file in fixture.files() {
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.path + "/" + file)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(file)")
        }
        for directory in ["", "/staging", "/" + StableHash("k".utf8).hex.prefix(2)] {
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.path + directory)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o700, "\(directory)")
        }
    }

    @Test func staleTemporaryFilesOfDeadWritersAreRemovedOnOpenAndTrim() throws {
        let fixture = try CacheFixture()
        let live = try fixture.bytesCache()
        try live.set([1], forKey: "k")
        let staging = fixture.path + "/staging/"
        // A dead writer: owner file nobody locks, two temporaries. An orphan temporary without an owner.
        try Data().write(to: URL(fileURLWithPath: staging + "0badf00d.owner"))
        try Data(repeating: 1, count: 10_000).write(to: URL(fileURLWithPath: staging + "0badf00d-1.tmp"))
        try Data(repeating: 1, count: 10_000).write(to: URL(fileURLWithPath: staging + "0badf00d-2.tmp"))
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: staging + "12345678-9.tmp"))
        // The live writer's own temporary (as if mid-write) must stay.
        let liveOwner = try #require(fixture.files().first { $0.hasSuffix(".owner") && !$0.contains("0badf00d") })
        let livePrefix = String(liveOwner.dropFirst("staging/".count).prefix(8))
        try Data(repeating: 2, count: 10).write(to: URL(fileURLWithPath: staging + livePrefix + "-99.tmp"))
        let second = try fixture.bytesCache()
        let left = Set(fixture.files().filter { $0.hasPrefix("staging/") })
        #expect(!left.contains("staging/0badf00d-1.tmp"))
        #expect(!left.contains("staging/0badf00d-2.tmp"))
        #expect(!left.contains("staging/0badf00d.owner"))
        #expect(!left.contains("staging/12345678-9.tmp"))
        #expect(left.contains("staging/" + livePrefix + "-99.tmp"))
        // Trim removes them too.
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: staging + "0badf00e.owner"))
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: staging + "0badf00e-1.tmp"))
        try second.trim(toByteLimit: 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: staging + "0badf00e-1.tmp"))
        #expect(try live.value(forKey: "k") == [1])
    }
}

/// SplitMix64 for the cache tests.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
