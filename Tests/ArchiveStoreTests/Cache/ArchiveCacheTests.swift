import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

@Suite("ArchiveCache: values, keys and entry files")
struct ArchiveCacheValueTests {
    @Test func rawBytesRoundTripAndAbsentKeyIsNil() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([1, 2, 3, 0, 255], forKey: "k")
        #expect(try cache.value(forKey: "k") == [1, 2, 3, 0, 255])
        #expect(try cache.value(forKey: "other") == nil)
        try cache.set([], forKey: "empty")
        #expect(try cache.value(forKey: "empty") == [])
    }

    @Test func keyedArchivableClassRoundTrips() throws {
        let fixture = try CacheFixture()
        let cache = try ArchiveCache<Drawing>(directory: fixture.path, registry: ClassRegistry([Drawing.self]),
                                              options: fixture.options())
        try cache.set(Drawing(title: "home", strokes: [1, 2.5]), forKey: "home")
        #expect(try cache.value(forKey: "home") == Drawing(title: "home", strokes: [1, 2.5]))
    }

    @Test func codableStructRoundTrips() throws {
        let fixture = try CacheFixture()
        let cache = try ArchiveCache<FormDraft>(directory: fixture.path, options: fixture.options())
        let draft = FormDraft(name: "Ada", fields: ["email": "ada@example.com"], savedAt: Date(timeIntervalSince1970: 1_000))
        try cache.set(draft, forKey: "draft")
        #expect(try cache.value(forKey: "draft") == draft)
    }

    @Test func existentialsKeepTheirConcreteTypes() throws {
        let fixture = try CacheFixture()
        let registry = ClassRegistry([CachedCircle.self, CachedRectangle.self, CachedRoundedRectangle.self])
        let cache = try ArchiveCache<[any CachedShape]>(directory: fixture.path, registry: registry, options: fixture.options())
        try cache.set([CachedCircle(radius: 1), CachedRectangle(width: 2, height: 3),
                       CachedRoundedRectangle(width: 4, height: 5, cornerRadius: 1)], forKey: "shapes")
        let shapes = try #require(try cache.value(forKey: "shapes"))
        #expect(shapes.count == 3)
        #expect(shapes[0] is CachedCircle)
        #expect(type(of: shapes[1]) == CachedRectangle.self)
        #expect((shapes[2] as? CachedRoundedRectangle)?.cornerRadius == 1)
        #expect(shapes.map(\.area) == [3, 6, 20])
    }

    @Test(arguments: ["", "/", "..", "../../etc/passwd", "a\u{0}b", "with space/and/slashes", "x100000"])
    func keysOfAnyContentNeverBecomePaths(name: String) throws {
        let key = name == "x100000" ? String(repeating: "x", count: 100_000) : name
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set(payload(key.isEmpty ? "empty" : String(key.prefix(10)), 1), forKey: key)
        try cache.set([9], forKey: key + "-other")
        #expect(try cache.value(forKey: key) == payload(key.isEmpty ? "empty" : String(key.prefix(10)), 1))
        #expect(try cache.value(forKey: key + "-other") == [9])
        #expect(cache.statistics.entryCount == 2)
        // Only the cache's own names: the key is inside a frame, never a path.
        for file in fixture.files() {
            #expect(file == "cache.lock" || file == "cache.table" || (file.hasPrefix("segments/") && file.utf8.count == 21)
                        || (file.hasPrefix("large/") && file.utf8.count == 46), "\(file.prefix(80))")
        }
    }

    @Test func keysAreComparedByTheirUTF8Bytes() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        try cache.set([1], forKey: "\u{E9}")
        try cache.set([2], forKey: "e\u{301}")
        #expect(try cache.value(forKey: "\u{E9}") == [1])
        #expect(try cache.value(forKey: "e\u{301}") == [2])
        #expect(cache.statistics.entryCount == 2)
    }

    @Test func stableHashIsTheFirstHalfOfSHA256() {
        #expect(StableHash("abc".utf8).hex == "ba7816bf8f01cfea414140de5dae2223")
        #expect(StableHash("".utf8).hex == "e3b0c44298fc1c149afbf4c8996fb924")
        #expect(StableHash("home".utf8).hex == "4ea140588150773ce3aace786aeef7f4")
        #expect(StableHash([UInt8](repeating: 97, count: 1_000_000)).hex == "cdc76e5c9914fb9281a1c7e284d73e67")
        #expect(StableHash(hex: "ba7816bf8f01cfea414140de5dae2223") == StableHash("abc".utf8))
        #expect(StableHash(hex: "BA7816bf8f01cfea414140de5dae2223") == nil)
    }

    /// A small entry is a frame of a segment; its payload is an ordinary keyed archive, which `dd` extracts
    /// (`skip` = the frame's offset + 24 + the key's length, `count` = the rest of the frame).
    @Test func anEntryIsAnOrdinaryKeyedArchiveThatDDExtractsFromItsSegment() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(ttl: .hours(1)))
        try cache.set([7, 7], forKey: "home")
        #expect(fixture.segmentFiles().count == 1)
        #expect(fixture.largeFiles() == [])
        let bytes = try #require(try fixture.extract("home"))
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
        let entry = try ArchiveDecoder().decode(CacheEntryHeader.self, from: bytes)
        #expect(entry.key == "home")
        #expect(entry.created == fixture.clock.now())
        #expect(entry.expires == fixture.clock.now().addingTimeInterval(3_600))
        #expect(try cache.archivedEntry(forKey: "home") == bytes)
        #expect(try cache.archivedEntry(forKey: "nope") == nil)
    }

    /// A large entry is a file of its own, named by the key's hash, with its checksum in the trailer.
    @Test func aLargeEntryIsAFileOfItsOwnNamedByTheKeysHash() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        let big = payload("big", 1, size: 200_000)
        try cache.set(big, forKey: "home")
        #expect(fixture.largeFiles() == ["large/4ea140588150773ce3aace786aeef7f4.archive"])
        #expect(try cache.value(forKey: "home") == big)
        let bytes = try fixture.directory.read("cache/large/4ea140588150773ce3aace786aeef7f4.archive")
        #expect(try cache.archivedEntry(forKey: "home") == bytes)
        try cache.set([1], forKey: "home")   // small again: the file goes
        #expect(fixture.largeFiles() == [])
        #expect(try cache.value(forKey: "home") == [1])
    }

    @Test func foundationsUnarchiverReadsAnEntryFile() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(ttl: .days(2)))
        try cache.set([1, 2, 3], forKey: "home")
        let bytes = try #require(try fixture.extract("home"))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FoundationCacheEntry.self, forClassName: "ArchiveCacheEntry")
        let entry = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FoundationCacheEntry)
        #expect(entry.key == "home")
        #expect(entry.value == Data([1, 2, 3]))
        #expect(entry.created == fixture.clock.now())
        #expect(entry.expires == fixture.clock.now().addingTimeInterval(2 * 86_400))
    }

    @Test func valueThatCannotBeArchivedIsAnInvalidArgument() throws {
        let fixture = try CacheFixture()
        let cache = try ArchiveCache<[Double]>(directory: fixture.path, options: fixture.options())
        try cache.set([1, .infinity], forKey: "ok")   // doubles archive as they are
        #expect(try cache.value(forKey: "ok") == [1, .infinity])
        let unarchivable = try ArchiveCache<NotArchivable>(directory: fixture.path, options: fixture.options())
        let error = #expect(throws: StoreError.self) { try unarchivable.set(NotArchivable(), forKey: "x") }
        #expect(error?.code == .invalidArgument)
        #expect(cache.statistics.entryCount == 1)
    }
}

struct NotArchivable {}

/// Reads an entry file with Foundation's NSKeyedUnarchiver.
final class FoundationCacheEntry: NSObject, NSCoding {
    let key: String?
    let value: Data?
    let created: Date?
    let expires: Date?

    init?(coder: NSCoder) {
        key = coder.decodeObject(forKey: "key") as? String
        value = coder.decodeObject(forKey: "value") as? Data
        // Seconds since 2001 (NSDate's reference date) as reals.
        created = coder.containsValue(forKey: "created") ? Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "created")) : nil
        expires = coder.containsValue(forKey: "expires") ? Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "expires")) : nil
    }

    func encode(with coder: NSCoder) {}
}
