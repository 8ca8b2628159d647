import Foundation
import Testing
import KeyedArchive
import TestSupport
@testable import ArchiveStore

/// A clock the test moves by hand.
final class ManualClock: StoreClock, @unchecked Sendable { // Sendable: `now` behind a lock.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    func now() -> Date { lock.withLock { current } }
    func advance(_ seconds: Double) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// A KeyedArchivable class value (NSCoding style).
final class Drawing: KeyedArchivable, Equatable, @unchecked Sendable {
    var title: String
    var strokes: [Double]

    init(title: String, strokes: [Double]) {
        self.title = title
        self.strokes = strokes
    }

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decode(String.self, forKey: "title")
        strokes = try coder.decode([Double].self, forKey: "strokes")
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "title")
        coder.encode(strokes, forKey: "strokes")
    }

    static func == (a: Drawing, b: Drawing) -> Bool { a.title == b.title && a.strokes == b.strokes }
}

/// A plain Codable value.
struct FormDraft: Codable, Equatable, Sendable {
    var name: String
    var fields: [String: String]
    var savedAt: Date
}

/// Polymorphic Codable values.
protocol CachedShape: ArchiveCodable {
    var area: Double { get }
}

struct CachedCircle: CachedShape, Equatable {
    var radius: Double
    var area: Double { 3 * radius * radius }
}

class CachedRectangle: CachedShape {
    var width: Double
    var height: Double
    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
    var area: Double { width * height }
}

final class CachedRoundedRectangle: CachedRectangle {
    var cornerRadius: Double
    init(width: Double, height: Double, cornerRadius: Double) {
        self.cornerRadius = cornerRadius
        super.init(width: width, height: height)
    }
    enum CodingKeys: String, CodingKey { case cornerRadius }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cornerRadius, forKey: .cornerRadius)
        try super.encode(to: container.superEncoder())
    }
}

/// Opens caches on one temporary directory.
struct CacheFixture {
    let directory: TemporaryDirectory
    let clock = ManualClock()

    init() throws { directory = try TemporaryDirectory() }

    var path: String { directory.path + "/cache" }

    func options(byteLimit: Int = 0, countLimit: Int = 0, memory: Int = 0, ttl: TimeToLive? = nil,
                 durability: Durability = .relaxed) -> CacheOptions {
        var options = CacheOptions()
        options.byteLimit = byteLimit
        options.countLimit = countLimit
        options.memoryCostLimit = memory
        options.defaultTimeToLive = ttl
        options.durability = durability
        options.clock = clock
        return options
    }

    func bytesCache(_ options: CacheOptions? = nil, fileSystem: FileSystem = .kernel,
                    keyHash: (@Sendable (String) -> StableHash)? = nil) throws -> ArchiveCache<[UInt8]> {
        try ArchiveCache<[UInt8]>(directory: path, registry: .standard, options: options ?? self.options(),
                                  fileSystem: fileSystem, keyHash: keyHash ?? { StableHash($0.utf8) })
    }

    /// Every regular file below the cache directory, relative paths, sorted.
    func files() -> [String] {
        let base = URL(fileURLWithPath: path)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var found: [String] = []
        while let name = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base.appendingPathComponent(name).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(name)
            }
        }
        return found.sorted()
    }

    func segmentFiles() -> [String] { files().filter { $0.hasPrefix("segments/") && $0.hasSuffix(".seg") } }
    func largeFiles() -> [String] { files().filter { $0.hasPrefix("large/") && $0.hasSuffix(".archive") } }

    /// What the cache directory takes on disk, as `du -s` counts it: the allocated blocks of every file and
    /// directory below it, the directory itself included.
    func diskUsage() -> Int { TestSupport.diskUsage(of: path) }

    /// Where `key`'s entry is: its frame's segment file, offset and length, and whether the value is a large
    /// file of its own (then `largePath`).
    func location(_ key: String) throws -> (segment: String, offset: Int, length: Int, largePath: String?)? {
        let files = try CacheDirectory(path: path, fileSystem: .kernel)
        let hash = StableHash(key.utf8)
        guard case .found(_, let location) = try files.lookup(CacheDirectory.frameKey(Array(key.utf8), hash: hash), hash: hash,
                                                              limit: 1 << 30) else {
            return nil
        }
        return (files.segments.file(location.slot.segment), Int(location.slot.offset), Int(location.slot.length),
                location.slot.isExternal ? files.largeFile(StableHash(key.utf8)) : nil)
    }

    /// The slot `key`'s entry has in the table: its index and contents.
    func slot(_ key: String) throws -> (index: Int, slot: CacheSlot)? {
        let files = try CacheDirectory(path: path, fileSystem: .kernel)
        let hash = StableHash(key.utf8)
        guard case .found(_, let location) = try files.lookup(CacheDirectory.frameKey(Array(key.utf8), hash: hash), hash: hash,
                                                              limit: 1 << 30) else {
            return nil
        }
        return (location.index, location.slot)
    }

    /// Writes `slot` at `index` of the table, as a hostile or damaged file would have it.
    func overwriteSlot(_ slot: CacheSlot, at index: Int) throws {
        let table = try #require(try CacheTable.open(path + "/cache.table", fileSystem: .kernel, writable: true))
        try table.write(slot, at: index)
    }

    /// The table's header as it is on disk.
    func tableHeader() throws -> CacheTableHeader? {
        guard let table = try CacheTable.open(path + "/cache.table", fileSystem: .kernel, writable: false) else { return nil }
        return try table.header()
    }

    /// The keyed archive of `key` as a standard tool extracts it: `dd` of the frame's payload from its segment
    /// (`skip` = offset + 24 + the key's length), or the large file.
    func extract(_ key: String) throws -> [UInt8]? {
        guard let found = try location(key) else { return nil }
        if let large = found.largePath { return [UInt8](try Data(contentsOf: URL(fileURLWithPath: large))) }
        let segment = [UInt8](try Data(contentsOf: URL(fileURLWithPath: found.segment)))
        let start = found.offset + 24 + CacheDirectory.frameKey(Array(key.utf8), hash: StableHash(key.utf8)).count
        return Array(segment[start..<found.offset + found.length])
    }

    /// Flips one bit of `key`'s stored entry (in its frame, or in its large file) at `offset` from the start
    /// of the keyed archive.
    func damage(_ key: String, at offset: Int = 40) throws {
        let found = try #require(try location(key))
        let file = found.largePath ?? found.segment
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let start = found.largePath == nil ? found.offset + 24 + CacheDirectory.frameKey(Array(key.utf8), hash: StableHash(key.utf8)).count : 0
        bytes[start + offset] ^= 0x04
        try Data(bytes).write(to: URL(fileURLWithPath: file))
    }
}

/// A value whose bytes say which key they belong to.
func payload(_ key: String, _ version: Int, size: Int = 64) -> [UInt8] {
    var bytes = Array("\(key)#\(version)#".utf8)
    while bytes.count < size { bytes.append(UInt8(truncatingIfNeeded: bytes.count &* 31 &+ version)) }
    return bytes
}
