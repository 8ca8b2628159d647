import Foundation
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

    func entryFiles() -> [String] { files().filter { $0.hasSuffix(".archive") } }
    func stagingFiles() -> [String] { files().filter { $0.hasPrefix("staging/") && $0.hasSuffix(".tmp") } }

    /// Bytes of entry files on disk.
    func entryBytes() -> Int {
        entryFiles().reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? NSNumber)?.intValue ?? 0
            return total + size
        }
    }

    func entryPath(_ key: String) -> String {
        let hex = StableHash(key.utf8).hex
        return path + "/" + hex.prefix(2) + "/" + hex + ".archive"
    }
}

/// A value whose bytes say which key they belong to.
func payload(_ key: String, _ version: Int, size: Int = 64) -> [UInt8] {
    var bytes = Array("\(key)#\(version)#".utf8)
    while bytes.count < size { bytes.append(UInt8(truncatingIfNeeded: bytes.count &* 31 &+ version)) }
    return bytes
}
