// Mirrors README.md (see ArticleCode in TestSupport)
import ArchiveStore
import FormCache
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// The README's Swift code, compiled and run; its manifest snippet checked against `Package.swift`.
@Suite("README")
struct ReadmeTests {
    enum NSCodingWay {
        // snippet
        protocol Shape: KeyedArchivable {}

        final class Circle: Shape {
            var radius: Double
            init(radius: Double) { self.radius = radius }
            init(coder: KeyedUnarchiver) throws { radius = try coder.decode(Double.self, forKey: "radius") }
            func encode(with coder: KeyedArchiver) { coder.encode(radius, forKey: "radius") }
        }

        final class Square: Shape {
            var side: Double
            init(side: Double) { self.side = side }
            init(coder: KeyedUnarchiver) throws { side = try coder.decode(Double.self, forKey: "side") }
            func encode(with coder: KeyedArchiver) { coder.encode(side, forKey: "side") }
        }
        // end snippet
    }

    @Test func shapesComeBackAsWhatTheyWere() throws {
        typealias Shape = NSCodingWay.Shape
        typealias Circle = NSCodingWay.Circle
        typealias Square = NSCodingWay.Square
        // snippet
        let shapes: [any Shape] = [Circle(radius: 1), Square(side: 2)]
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: shapes)
        let registry = ClassRegistry([Circle.self, Square.self])
        let restored = try KeyedUnarchiver.unarchivedObject(ofType: [any Shape].self, from: bytes, registry: registry)
        // end snippet
        let back = try #require(restored)
        #expect(back.count == 2)
        #expect((back[0] as? Circle)?.radius == 1)
        #expect((back[1] as? Square)?.side == 2)
    }

    enum CodableWay {
        // snippet
        protocol Figure: ArchiveCodable {}
        struct Dot: Figure { var x, y: Double }
        struct Line: Figure { var length: Double }

        struct Sketch: Codable {
            @Polymorphic var figures: [any Figure]
        }
        // end snippet
    }

    @Test func figuresComeBackThroughCodable() throws {
        typealias Sketch = CodableWay.Sketch
        typealias Dot = CodableWay.Dot
        typealias Line = CodableWay.Line
        // snippet
        let sketch = Sketch(figures: [Dot(x: 1, y: 2), Line(length: 3)])
        let archive = try ArchiveEncoder().encode(sketch)
        let decoded = try ArchiveDecoder(registry: ClassRegistry([Dot.self, Line.self])).decode(Sketch.self, from: archive)
        // end snippet
        #expect(decoded.figures.count == 2)
        #expect((decoded.figures[0] as? Dot)?.y == 2)
        #expect((decoded.figures[1] as? Line)?.length == 3)
    }

    // snippet
    struct Exercise: ArchiveRecord, Codable {
        let id: String
        var date: Date
        var count: Int
        static let indexes: [RecordIndex<Exercise>] = [RecordIndex("date", \.date), RecordIndex("count", \.count)]
    }
    // end snippet

    let temporary: TemporaryDirectory
    var directory: URL { URL(fileURLWithPath: temporary.path, isDirectory: true) }

    init() throws { temporary = try TemporaryDirectory(prefix: "readme") }

    @Test func aStoreOfRecords() throws {
        // snippet
        let exercises = try ArchiveRepository<Exercise>(url: directory.appendingPathComponent("Exercises.archive"))
        try exercises.add(Exercise(id: "monday", date: Date(), count: 20))
        let best = try exercises.max(of: \.count)
        let recent = try exercises.records(matching: RecordQuery().sorted(by: \.date, ascending: false).limit(10))
        // end snippet
        #expect(best == 20)
        #expect(recent.map(\.id) == ["monday"])
    }

    @Test func aFormCache() throws {
        // snippet
        let forms = try FormCache(directory: directory.appendingPathComponent("forms"))
        let signup = try forms.add(name: "signup", fields: ["email": "ada@example.com"], timeToLive: .days(30))
        // end snippet
        #expect(try forms.get(signup.id).fields == ["email": "ada@example.com"])
        #expect(signup.expiresAt.timeIntervalSince(signup.registeredAt) == 30 * 86_400)
    }

    @Test func aFileCache() throws {
        // snippet
        var options = CacheOptions()
        options.byteLimit = 64 << 20
        options.defaultTimeToLive = .days(7)
        let thumbnails = try ArchiveCache<[UInt8]>(directory: directory.appendingPathComponent("thumbnails"), options: options)
        try thumbnails.set([0x89, 0x50, 0x4E, 0x47], forKey: "avatar")
        let avatar = try thumbnails.value(forKey: "avatar")   // nil: a miss (absent, expired, damaged or locked)
        // end snippet
        #expect(avatar == [0x89, 0x50, 0x4E, 0x47])
    }

    /// The manifest snippet (not Swift a test can compile: it is part of a `Package.swift`) names products
    /// this package has, and the release the tools print.
    @Test func theManifestSnippetNamesRealProductsAndTheRelease() throws {
        let blocks = ArticleCode.fencedBlocks(inMarkdown: try ArticleCode.text("README.md")).filter { $0.language == "swift-package" }
        try #require(blocks.count == 1)
        let manifest = try ArticleCode.text("Package.swift")
        let named = blocks[0].block.text.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: ".product(name: \"") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
        #expect(named == ["KeyedArchive", "ArchiveStore"])
        for product in named { #expect(manifest.contains(".library(name: \"\(product)\"")) }
        #expect(manifest.contains("name: \"KeyedArchiveStore\""))
        #expect(blocks[0].block.text.contains("from: \"0.1.0\""))
    }
}
