import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

@Suite("ArchiveCache: expiry, limits, eviction order")
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
        #expect(try fixture.location("short") == nil)
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
        #expect(try fixture.location("k") == nil)
        #expect(reader.statistics.expired == 1)
        #expect(reader.statistics.misses == 1)
        #expect(reader.statistics.entryCount == 0)
    }

    @Test func removeExpiredRemovesExactlyTheExpiredEntries() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(memory: 1 << 20, ttl: .hours(2)))
        for i in 0..<10 { try cache.set([UInt8(i)], forKey: "a\(i)", timeToLive: .minutes(30)) }
        for i in 0..<5 { try cache.set([UInt8(i)], forKey: "b\(i)") }
        try cache.set([0], forKey: "never", timeToLive: .days(365))
        fixture.clock.advance(3_600)
        #expect(try cache.removeExpired() == 10)
        #expect(cache.statistics.entryCount == 6)
        #expect(try cache.removeExpired() == 0)
        fixture.clock.advance(3_600)
        #expect(try cache.removeExpired() == 5)
        #expect(try cache.value(forKey: "never") == [0])
        #expect(cache.statistics.entryCount == 1)
    }

    @Test func entryLargerThanTheByteLimitIsRefusedAndATinyLimitIsInvalid() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 64 << 10))
        try cache.set(payload("k", 1, size: 100), forKey: "k")
        let error = #expect(throws: StoreError.self) { try cache.set([UInt8](repeating: 1, count: 100_000), forKey: "big") }
        #expect(error?.code == .entryTooLarge)
        #expect(error?.recordID == "big")
        #expect(try cache.value(forKey: "k") == payload("k", 1, size: 100))
        #expect(cache.statistics.entryCount == 1)
        #expect(fixture.largeFiles() == [])
        let tiny = #expect(throws: StoreError.self) { try fixture.bytesCache(fixture.options(byteLimit: 1_000)) }
        #expect(tiny?.code == .invalidArgument)
    }

    /// An entry under the byte limit that would not fit beside the cache's own files (directories, table) is
    /// refused too: no eviction could bring the directory within the limit. One that fits is kept, alone, and
    /// the directory is within the limit as du counts it.
    @Test func entryThatFitsOnlyWithoutTheCachesOwnFilesIsRefused() throws {
        let fixture = try CacheFixture()
        let limit = 64 << 10
        let cache = try fixture.bytesCache(fixture.options(byteLimit: limit))
        try cache.set(payload("k", 1, size: 100), forKey: "k")
        let error = #expect(throws: StoreError.self) { try cache.set([UInt8](repeating: 1, count: 60_000), forKey: "big") }
        #expect(error?.code == .entryTooLarge)
        #expect(error?.recordID == "big")
        #expect(try cache.value(forKey: "k") == payload("k", 1, size: 100))
        try cache.set([UInt8](repeating: 2, count: 25_000), forKey: "fits")
        #expect(try cache.value(forKey: "fits")?.count == 25_000)
        #expect(fixture.diskUsage() <= limit, "du \(fixture.diskUsage())")
        #expect(cache.statistics.byteCount == fixture.diskUsage())
    }

    /// The byte limit is what `du` shows for the whole directory: after every set, the allocated blocks of every
    /// file and directory below it are within the limit, and `statistics.byteCount` is that very figure.
    @Test func byteAndCountLimitsHoldAfterEverySetAsDuCountsThem() throws {
        let fixture = try CacheFixture()
        let limit = 96 << 10
        let cache = try fixture.bytesCache(fixture.options(byteLimit: limit, countLimit: 60))
        var random = SeededRandom(seed: 7)
        for step in 0..<600 {
            let size = 50 + random.below(1_500)
            let key = "k\(random.below(120))"
            try cache.set(payload(key, step, size: size), forKey: key)
            let onDisk = fixture.diskUsage()
            let statistics = cache.statistics
            #expect(onDisk <= limit, "step \(step): \(onDisk) bytes on disk")
            #expect(statistics.byteCount == onDisk, "step \(step): counted \(statistics.byteCount), du \(onDisk)")
            #expect(statistics.entryCount <= 60)
            #expect(try cache.value(forKey: key) == payload(key, step, size: size))   // never evicts what it just wrote
        }
        #expect(cache.statistics.evictions > 0)
    }

    /// Second chance: an entry read since it was written is carried forward when its segment is evicted; an
    /// unread one goes first.
    @Test func anEntryReadSinceItWasWrittenOutlivesAnUnreadOne() throws {
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
        #expect(cache.statistics.evictions == 1)
    }

    /// The uses a cache object read are marked in the table when it closes (or writes), so they count after a
    /// restart and for every process.
    @Test func usesSurviveARestart() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 1_000))
            for i in 0..<50 { try cache.set([UInt8(i)], forKey: "k\(i)") }
            for i in 25..<50 { _ = try cache.value(forKey: "k\(i)") }
        }
        let reopened = try fixture.bytesCache(fixture.options(countLimit: 26))
        try reopened.set([99], forKey: "new")
        let remaining = Set(try reopened.entries().map(\.key))
        #expect(remaining == Set((25..<50).map { "k\($0)" } + ["new"]))
        try reopened.trim(toByteLimit: 0)
        #expect(reopened.statistics.entryCount == 0)
        #expect(fixture.segmentFiles().count <= 1)
    }

    @Test func aLostTableIsRebuiltFromTheSegments() throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
            for i in 0..<20 { try cache.set(payload("k\(i)", 0, size: 200), forKey: "k\(i)") }
            try cache.removeValue(forKey: "k3")   // a delete frame: the rebuild forgets it too
            try cache.set(payload("k4", 1, size: 200), forKey: "k4")
        }
        try FileManager.default.removeItem(atPath: fixture.path + "/cache.table")
        let cache = try fixture.bytesCache(fixture.options(countLimit: 10))
        #expect(try cache.value(forKey: "k5") == nil)   // a reader before any write: no table, a miss
        #expect(cache.statistics.entryCount == 19)      // a writer's section rebuilds it
        #expect(try cache.value(forKey: "k3") == nil)
        #expect(try cache.value(forKey: "k4") == payload("k4", 1, size: 200))
        try cache.set(payload("new", 0, size: 200), forKey: "new")
        #expect(cache.statistics.entryCount == 10)
        #expect(try cache.value(forKey: "new") == payload("new", 0, size: 200))
    }

    /// A damaged table header (its CRC-32 fails) is detected by the next writer, which rebuilds the table from
    /// the segments; garbage where the table should be is too.
    @Test(arguments: ["header", "garbage"])
    func aDamagedTableIsRebuiltFromTheSegments(damage: String) throws {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
            for i in 0..<25 { try cache.set([UInt8(i)], forKey: "k\(i)") }
            try cache.removeValue(forKey: "k3")
        }
        var table = try fixture.directory.read("cache/cache.table")
        #expect(CacheTableHeader(table)?.count == 24)
        if damage == "header" {
            table[33] ^= 0x10   // the entry count
            #expect(CacheTableHeader(table) == nil)
        } else {
            table = [UInt8](repeating: 0x5A, count: 1_000)
        }
        try fixture.directory.write(table, to: "cache/cache.table")
        let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
        #expect(cache.statistics.entryCount == 24)
        #expect(try cache.value(forKey: "k22") == [22])
        #expect(try cache.value(forKey: "k3") == nil)
        #expect(CacheTableHeader(try fixture.directory.read("cache/cache.table"))?.count == 24)
    }

    /// A cache of ten one-byte entries under a 1 MiB limit, its table file and the table's header.
    static func tenEntriesAndTheirTable() throws -> (CacheFixture, [UInt8], CacheTableHeader) {
        let fixture = try CacheFixture()
        do {
            let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20))
            for i in 0..<10 { try cache.set([UInt8(i)], forKey: "k\(i)") }
        }
        let table = try fixture.directory.read("cache/cache.table")
        return (fixture, table, try #require(CacheTableHeader(table)))
    }

    /// A header whose checksum holds but whose byte figures are beyond any directory (found by the cache fuzz
    /// target: dead bytes weighed against thirty-three times the live ones overflowed) is damaged: the next
    /// writer rebuilds the table from the segments, and a set under a byte limit works.
    @Test(arguments: [80, 88, 48])
    func aTableClaimingMoreBytesThanAnyDirectoryIsRebuilt(figureOffset: Int) throws {
        let (fixture, original, found) = try Self.tenEntriesAndTheirTable()
        var (table, header) = (original, found)
        switch figureOffset {
        case 80: header.liveBytes = CacheTableHeader.largestByteFigure + 1
        case 88: header.segmentBytes = Int.max / 2
        default: header.sealedBytes = Int.max
        }
        table.replaceSubrange(0..<header.bytes.count, with: header.bytes)
        #expect(CacheTableHeader(table) == nil)
        try fixture.directory.write(table, to: "cache/cache.table")
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20))
        try cache.set([UInt8](repeating: 7, count: 3_000), forKey: "new")
        #expect(try cache.value(forKey: "new") == [UInt8](repeating: 7, count: 3_000))
        #expect(try cache.value(forKey: "k9") == [9])
        #expect(cache.statistics.entryCount == 11)
        #expect(cache.statistics.byteCount == fixture.diskUsage())
    }

    /// A table whose segment numbers run 100,000 past the files there are (found by the cache fuzz target: a
    /// trim walked 922,373 absent numbers, a few calls each) is passed over together: eviction unlinks only
    /// the segments that exist, and the trim still empties the cache.
    @Test func evictionPassesOverAbsentSegmentsTogether() throws {
        let (fixture, original, found) = try Self.tenEntriesAndTheirTable()
        var (table, header) = (original, found)
        let segments = fixture.path + "/segments/"
        let oldHead = segments + CacheSegments.hex(header.headSegment) + ".seg"
        header.headSegment += 100_000
        try FileManager.default.moveItem(atPath: oldHead, toPath: segments + CacheSegments.hex(header.headSegment) + ".seg")
        table.replaceSubrange(0..<header.bytes.count, with: header.bytes)
        try fixture.directory.write(table, to: "cache/cache.table")
        let unlinks = Shared(0)
        let counting = FileSystem { call, path in
            if call == .unlink && path.hasSuffix(".seg") { unlinks.value += 1 }
            return nil
        }
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20), fileSystem: counting)
        try cache.trim(toByteLimit: 0)
        #expect(cache.statistics.entryCount == 0)
        #expect(unlinks.value <= 2)
        #expect(try cache.value(forKey: "k3") == nil)
        try cache.set([4], forKey: "k")
        #expect(try fixture.bytesCache().value(forKey: "k") == [4])
    }
}

@Suite("ArchiveCache: damaged entries, collisions, foreign files, modes")
struct CacheRobustnessTests {
    /// Keys whose hashes collide each keep their own entry (each frame holds its key, compared on every read).
    @Test func keysWithCollidingHashesKeepTheirOwnEntries() throws {
        let fixture = try CacheFixture()
        let collide: @Sendable (String) -> StableHash = { _ in StableHash(high: 0xAB << 40, low: 1) }
        let cache = try fixture.bytesCache(fixture.options(), keyHash: collide)
        try cache.set([1], forKey: "first")
        try cache.set([2], forKey: "second")
        #expect(try cache.value(forKey: "first") == [1])
        #expect(try cache.value(forKey: "second") == [2])
        try cache.removeValue(forKey: "first")
        #expect(try cache.value(forKey: "first") == nil)
        #expect(try cache.value(forKey: "second") == [2])
        #expect(cache.statistics.entryCount == 1)
        #expect(cache.statistics.damaged == 0)
    }

    /// A large entry's file copied over another key's: the key inside is compared, so it is a miss.
    @Test func aLargeFileOfAnotherKeyIsAMiss() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set(payload("a", 1, size: 100_000), forKey: "a")
        try cache.set(payload("b", 1, size: 100_000), forKey: "b")
        let a = try #require(try fixture.location("a")?.largePath)
        let b = try #require(try fixture.location("b")?.largePath)
        try FileManager.default.removeItem(atPath: b)
        try FileManager.default.copyItem(atPath: a, toPath: b)
        #expect(try cache.value(forKey: "b") == nil)
        #expect(try cache.value(forKey: "a") == payload("a", 1, size: 100_000))
    }

    /// Each kind of bad large entry file is a miss, removed and counted as damaged.
    @Test(arguments: ["garbage", "truncated", "foreign-plist", "unsealed", "flipped-byte", "empty"])
    func aDamagedLargeFileIsAMissAndIsRemoved(kind: String) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set(payload("k", 1, size: 100_000), forKey: "k")
        let path = try #require(try fixture.location("k")?.largePath)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var damaged: [UInt8]
        switch kind {
        case "garbage": damaged = [UInt8](repeating: 0x5A, count: good.count)
        case "truncated": damaged = Array(good.prefix(good.count / 2))
        case "foreign-plist": damaged = sealed([UInt8](try PropertyListSerialization.data(fromPropertyList: ["key": "k"], format: .binary, options: 0)))
        case "unsealed": damaged = try ArchiveEncoder().encode(CacheEntryFile(key: "k", value: payload("k", 1, size: 100_000), created: Date(), expires: nil))
        case "flipped-byte":
            damaged = good
            damaged[good.count / 2] ^= 0x04
        default: damaged = []
        }
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        #expect(try cache.value(forKey: "k") == nil)
        #expect(try fixture.location("k") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.statistics.damaged == 1)
        try cache.set([5], forKey: "k")
        #expect(try cache.value(forKey: "k") == [5])
    }

    /// An entry whose archive holds a value of another type (written by a cache of another `Value`) is a miss,
    /// removed, counted as damaged.
    @Test func anEntryOfAnotherValueTypeIsAMissAndIsRemoved() throws {
        let fixture = try CacheFixture()
        let strings = try ArchiveCache<String>(directory: fixture.path, options: fixture.options())
        try strings.set("a string", forKey: "k")
        let cache = try fixture.bytesCache()
        #expect(try cache.value(forKey: "k") == nil)
        #expect(cache.statistics.damaged == 1)
        #expect(try fixture.location("k") == nil)
    }

    /// The reproduction: one byte of a stored string changed on disk. Without a checksum the changed
    /// string came back as a disk hit; now it is a miss, counted as damaged, and the entry is gone.
    @Test func aFlippedByteInAnEntryIsAMissNeverWrongData() throws {
        let fixture = try CacheFixture()
        let cache = try ArchiveCache<String>(directory: fixture.path, options: fixture.options())
        try cache.set("abcdefghijklmnop", forKey: "drawing")
        let found = try #require(try fixture.location("drawing"))
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: found.segment)))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("abcdefghijklmnop".utf8)) })
        bytes[at + 15] = UInt8(ascii: "q")
        try Data(bytes).write(to: URL(fileURLWithPath: found.segment))
        #expect(try cache.value(forKey: "drawing") == nil)
        #expect(cache.statistics.damaged == 1)
        #expect(cache.statistics.diskHits == 0)
        #expect(try fixture.location("drawing") == nil)
        #expect(try cache.archivedEntry(forKey: "drawing") == nil)
    }

    /// The checksum of a large file sits in the binary plist trailer's unused bytes (so the file stays an
    /// ordinary keyed archive: `foundationsUnarchiverReadsAnEntryFile`), and is checked as the README tells,
    /// with nothing but zlib's CRC-32. A frame has its own CRC-32 too.
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

    @Test func fifoAtALargeEntrysPathIsAMissWithoutBlockingAndIsKept() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set(payload("k", 1, size: 100_000), forKey: "k")
        let path = try #require(try fixture.location("k")?.largePath)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        #expect(try cache.value(forKey: "k") == nil)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func filesTheCacheDidNotWriteAreNeverDeleted() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(countLimit: 2))
        for i in 0..<5 { try cache.set([UInt8(i)], forKey: "k\(i)") }
        try cache.set(payload("big", 1, size: 100_000), forKey: "big")
        let mine = ["/notes.txt", "/segments/README", "/large/README", "/large/k.archive.bak", "/4e/notes"]
        try FileManager.default.createDirectory(atPath: fixture.path + "/4e", withIntermediateDirectories: true)
        for file in mine { try Data("mine".utf8).write(to: URL(fileURLWithPath: fixture.path + file)) }
        try cache.removeAll()
        #expect(cache.statistics.entryCount == 0)
        #expect(fixture.largeFiles() == [])
        try cache.trim(toByteLimit: 0)
        try FileManager.default.removeItem(atPath: fixture.path + "/cache.table")
        _ = try fixture.bytesCache().statistics   // a rebuild, which sweeps large files no frame names
        for file in mine { #expect(FileManager.default.fileExists(atPath: fixture.path + file), "\(file)") }
    }

    @Test func filesAre0600AndDirectories0700() throws {
        let fixture = try CacheFixture()
        let old = umask(0)
        defer { umask(old) }
        let cache = try fixture.bytesCache(fixture.options(durability: .synchronous))
        try cache.set([1], forKey: "k")
        try cache.set(payload("big", 1, size: 100_000), forKey: "big")
        for file in fixture.files() {
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.path + "/" + file)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(file)")
        }
        for directory in ["", "/segments", "/large"] {
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.path + directory)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o700, "\(directory)")
        }
    }

    /// A large entry's temporary file left by a writer that died is removed by the next writer's first change
    /// and by `trim`; a temporary file of another name stays.
    @Test func staleTemporaryFilesOfDeadWritersAreRemoved() throws {
        let fixture = try CacheFixture()
        let live = try fixture.bytesCache()
        try live.set(payload("big", 1, size: 100_000), forKey: "big")
        let large = fixture.path + "/large/"
        try Data(repeating: 1, count: 10_000).write(to: URL(fileURLWithPath: large + ".0123456789abcdef0123456789abcdef.archive.tmp-77-88"))
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: large + "other.tmp"))
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: large + ".notes.archive.tmp-1-2"))
        let second = try fixture.bytesCache()
        try second.set([1], forKey: "k")
        #expect(!FileManager.default.fileExists(atPath: large + ".0123456789abcdef0123456789abcdef.archive.tmp-77-88"))
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: large + ".fedcba9876543210fedcba9876543210.archive.tmp-1-2"))
        try second.trim(toByteLimit: 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: large + ".fedcba9876543210fedcba9876543210.archive.tmp-1-2"))
        #expect(FileManager.default.fileExists(atPath: large + "other.tmp"))
        #expect(FileManager.default.fileExists(atPath: large + ".notes.archive.tmp-1-2"))
        #expect(try live.value(forKey: "big") == payload("big", 1, size: 100_000))
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
