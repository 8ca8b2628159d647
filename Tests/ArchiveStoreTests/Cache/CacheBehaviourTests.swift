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

    /// A flipped journal record is itself detected (its CRC-32): the index is rebuilt from the entry files,
    /// not replayed from a journal that lies. An entry file removed behind the cache's back tells the two
    /// apart: snapshot and journal still count it, the entry files do not.
    @Test func aFlippedJournalRecordIsDetectedAndTheIndexIsRebuiltFromTheFiles() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
            for i in 0..<20 { try cache.set([UInt8(i)], forKey: "k\(i)") }
            try cache.compactIndex()   // a good snapshot of the 20
            for i in 20..<25 { try cache.set([UInt8(i)], forKey: "k\(i)") }
        }
        var journal = try fixture.directory.read("cache/cache.journal")
        let records = CacheJournalFile.parse(Array(journal[CacheJournalRecord.size...]))
        #expect(records.damaged == false)
        #expect(records.records.filter { $0.kind == .set }.count == 10)   // each set is recorded before and after its rename
        let set = try #require(records.records.firstIndex { $0.kind == .set })
        journal[CacheJournalRecord.size * (set + 1) + 20] ^= 0x01   // inside the first set's hash (a record that ends
                                                                      // the journal could still be being written)
        try fixture.directory.write(journal, to: "cache/cache.journal")
        #expect(CacheJournalFile.parse(Array(journal[CacheJournalRecord.size...])).damaged == true)
        try FileManager.default.removeItem(atPath: fixture.entryPath("k3"))

        let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
        #expect(cache.statistics.entryCount == 24)   // from the files: the journal was not trusted
        #expect(try cache.value(forKey: "k22") == [22])
        let fresh = try fixture.directory.read("cache/cache.journal")
        #expect(fresh.count == CacheJournalRecord.size)   // started over by the rebuild
    }

    /// A damaged snapshot (its CRC-32 fails) is rebuilt from the entry files too.
    @Test func aDamagedSnapshotIsRebuiltFromTheFiles() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
            for i in 0..<20 { try cache.set([UInt8(i)], forKey: "k\(i)") }
            try cache.compactIndex()
        }
        var snapshot = try fixture.directory.read("cache/cache.index")
        #expect(CacheIndexSnapshot(snapshot)?.entries.count == 20)
        snapshot[snapshot.count - 3] ^= 0x10
        #expect(CacheIndexSnapshot(snapshot) == nil)
        try fixture.directory.write(snapshot, to: "cache/cache.index")
        try FileManager.default.removeItem(atPath: fixture.entryPath("k0"))
        let cache = try fixture.bytesCache(fixture.options(countLimit: 5))
        #expect(cache.statistics.entryCount == 19)
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

    /// Each kind of bad entry file is a miss, removed and counted as damaged. The foreign and other-type files
    /// carry a valid checksum, so that what rejects them is their content, not the checksum.
    @Test(arguments: ["garbage", "truncated", "foreign-plist", "foreign-archive", "empty", "other-value-type", "unsealed", "flipped-byte"])
    func damagedEntryFileIsAMissAndIsRemoved(kind: String) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set(payload("k", 1, size: 300), forKey: "k")
        let path = fixture.entryPath("k")
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var damaged: [UInt8]
        switch kind {
        case "garbage": damaged = [UInt8](repeating: 0x5A, count: 300)
        case "truncated": damaged = Array(good.prefix(good.count / 2))
        case "foreign-plist": damaged = sealed([UInt8](try PropertyListSerialization.data(fromPropertyList: ["key": "k"], format: .binary, options: 0)))
        case "foreign-archive": damaged = sealed([UInt8](try NSKeyedArchiver.archivedData(withRootObject: ["key": "k"], requiringSecureCoding: false)))
        case "other-value-type": damaged = try CacheEntryCoding.encode(CacheEntryFile(key: "k", value: "a string", created: Date(), expires: nil))
        case "unsealed": damaged = try ArchiveEncoder().encode(CacheEntryFile(key: "k", value: payload("k", 1, size: 300), created: Date(), expires: nil))
        case "flipped-byte":
            damaged = good
            damaged[good.count / 2] ^= 0x04
        default: damaged = []
        }
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        #expect(try cache.value(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.statistics.damaged == 1)
        try cache.set([5], forKey: "k")
        #expect(try cache.value(forKey: "k") == [5])
    }

    /// The reproduction: one byte of a stored string changed on disk. Without a checksum the changed
    /// string came back as a disk hit; now it is a miss, counted as damaged, and the file is gone.
    @Test func aFlippedByteInAnEntryIsAMissNeverWrongData() throws {
        let fixture = try CacheFixture()
        let cache = try ArchiveCache<String>(directory: fixture.path, options: fixture.options())
        try cache.set("abcdefghijklmnop", forKey: "drawing")
        let path = fixture.entryPath("drawing")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("abcdefghijklmnop".utf8)) })
        bytes[at + 15] = UInt8(ascii: "q")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try cache.value(forKey: "drawing") == nil)
        #expect(cache.statistics.damaged == 1)
        #expect(cache.statistics.diskHits == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try cache.archivedEntry(forKey: "drawing") == nil)
    }

    /// The checksum sits in the binary plist trailer's unused bytes (so the file stays an ordinary keyed
    /// archive: `foundationsUnarchiverReadsAnEntryFile`), and is checked as the README tells, with nothing but
    /// zlib's CRC-32.
    @Test func theEntryChecksumIsTheCRC32OfTheFileWithoutTheTrailersFirstFiveBytes() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([1, 2, 3], forKey: "k")
        let bytes = try #require(try cache.archivedEntry(forKey: "k"))
        #expect(bytes[bytes.count - 32] == 0x43)
        let crc = Checksum.crc32(Array(bytes[..<(bytes.count - 32)]) + Array(bytes[(bytes.count - 27)...]))
        #expect(UInt32(readLittleEndian(bytes, bytes.count - 31, width: 4)) == crc)
        #expect(Array(bytes[(bytes.count - 27)...].prefix(3)) == [0, 1, 1])   // sort version, widths: untouched
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

/// `bytes` (a binary plist) with a valid entry checksum.
private func sealed(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    CacheEntryChecksum.seal(&bytes)
    return bytes
}
