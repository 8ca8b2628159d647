import Foundation
import KeyedArchive

/// W1 through the Codable bridge: ArchiveEncoder/ArchiveDecoder against PropertyListEncoder/Decoder and
/// JSONEncoder/JSONDecoder on the same Codable model. Foundation's coders cannot keep dynamic types, so for
/// them each shape is tagged with its class name by hand (what a Codable user has to write today).
enum CodableWorkload {
    protocol Shape: ArchiveCodable {}

    final class Style: ArchiveCodable {
        let name: String
        let strokeWidth: Double
        init(name: String, strokeWidth: Double) { (self.name, self.strokeWidth) = (name, strokeWidth) }
    }

    final class Circle: Shape {
        var centerX, centerY, radius: Double
        var style: Style?
        init(_ x: Double, _ y: Double, _ r: Double, _ style: Style?) { (centerX, centerY, radius, self.style) = (x, y, r, style) }
        enum CodingKeys: String, CodingKey {
            case centerX = "center.x", centerY = "center.y", radius, style
        }
    }

    class Rectangle: Shape {
        var x, y, width, height: Double
        var style: Style?
        init(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ style: Style?) {
            (self.x, self.y, width, height, self.style) = (x, y, w, h, style)
        }
        enum CodingKeys: String, CodingKey {
            case x = "origin.x", y = "origin.y", width = "size.width", height = "size.height", style
        }
    }

    final class RoundedRectangle: Rectangle {
        var cornerRadius: Double
        init(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ c: Double, _ style: Style?) {
            cornerRadius = c
            super.init(x, y, w, h, style)
        }
        enum Keys: String, CodingKey { case cornerRadius }
        required init(from decoder: any Decoder) throws {
            cornerRadius = try decoder.container(keyedBy: Keys.self).decode(Double.self, forKey: .cornerRadius)
            try super.init(from: decoder)
        }
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(cornerRadius, forKey: .cornerRadius)
        }
    }

    struct Contents: Codable {
        @Polymorphic var shapes: [any Shape]
    }

    /// The same contents for Foundation's coders: each shape tagged with its class name.
    struct TaggedContents: Codable {
        var shapes: [any Shape]
        init(shapes: [any Shape]) { self.shapes = shapes }
        enum K: String, CodingKey { case type, shape }
        func encode(to encoder: any Encoder) throws {
            var list = encoder.unkeyedContainer()
            for shape in shapes {
                var c = list.nestedContainer(keyedBy: K.self)
                try c.encode(Swift.type(of: shape).archivedClassName, forKey: .type)
                try shape.encode(to: c.superEncoder(forKey: .shape))
            }
        }
        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            shapes = []
            while !list.isAtEnd {
                let c = try list.nestedContainer(keyedBy: K.self)
                let inner = try c.superDecoder(forKey: .shape)
                switch try c.decode(String.self, forKey: .type) {
                case "Circle": shapes.append(try Circle(from: inner))
                case "Rectangle": shapes.append(try Rectangle(from: inner))
                case "RoundedRectangle": shapes.append(try RoundedRectangle(from: inner))
                case let other: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown \(other)")
                }
            }
        }
    }

    static func shapes(_ count: Int) -> [any Shape] {
        let style = Style(name: "Default Stroke", strokeWidth: 1.5)
        return (0..<count).map { i -> any Shape in
            let d = Double(i)
            let s: Style? = i % 10 == 0 ? style : nil
            switch i % 3 {
            case 0: return Circle(d, d + 0.5, d / 3, s)
            case 1: return Rectangle(d, -d, 2 * d, d + 1, s)
            default: return RoundedRectangle(d, d, 3, 4, d / 7, s)
            }
        }
    }

    /// Only our encode or decode, `repeats` times (for a profiler).
    static func profile(_ op: String, count: Int, repeats: Int) throws {
        let contents = Contents(shapes: shapes(count))
        let registry = ClassRegistry([Circle.self, Rectangle.self, RoundedRectangle.self, Style.self])
        let bytes = try ArchiveEncoder().encode(contents)
        for _ in 0..<repeats {
            let ms = try timeMS {
                if op == "encode" {
                    blackHole(try ArchiveEncoder().encode(contents))
                } else {
                    blackHole(try ArchiveDecoder(registry: registry).decode(Contents.self, from: bytes))
                }
            }
            print("\(op) \(String(format: "%.1f", ms)) ms")
        }
    }

    static func run(count: Int, rounds: Int) throws {
        let shapes = shapes(count)
        let contents = Contents(shapes: shapes)
        let tagged = TaggedContents(shapes: shapes)
        let registry = ClassRegistry([Circle.self, Rectangle.self, RoundedRectangle.self, Style.self])
        var results: [String: Measurement] = [:]
        func measure(_ impl: String, _ op: String, _ body: () throws -> Int) rethrows {
            var m = results["\(impl) \(op)"] ?? Measurement(impl: impl, op: op, workload: "w1", n: count)
            var bytes = 0
            m.samples.append(try timeMS { bytes = try body() })
            m.bytes = bytes
            results["\(impl) \(op)"] = m
        }
        // The same data in the idiomatic enum model (one case per shape kind), which Foundation's coders
        // handle without superDecoder: the fairest baseline for them.
        let enumContents = CContents(shapes: shapes.map { shape -> CShape in
            let style = (shape as? Circle)?.style ?? (shape as? Rectangle)?.style
            let cs = style.map { CStyle(name: $0.name, strokeWidth: $0.strokeWidth) }
            if let c = shape as? Circle { return .circle(CCircle(x: c.centerX, y: c.centerY, radius: c.radius, style: cs)) }
            if let r = shape as? RoundedRectangle {
                return .roundedRectangle(CRoundedRectangle(x: r.x, y: r.y, width: r.width, height: r.height, cornerRadius: r.cornerRadius, style: cs))
            }
            let r = shape as? Rectangle
            return .rectangle(CRectangle(x: r?.x ?? 0, y: r?.y ?? 0, width: r?.width ?? 0, height: r?.height ?? 0, style: cs))
        })
        let ours = try ArchiveEncoder().encode(contents)
        let plist = try PropertyListEncoder().encode(tagged)
        let json = try JSONEncoder().encode(tagged)
        let plistEnum = try PropertyListEncoder().encode(enumContents)
        let jsonEnum = try JSONEncoder().encode(enumContents)
        for _ in 0..<rounds {
            try measure("plist-codable-enum", "encode") { try PropertyListEncoder().encode(enumContents).count }
            try measure("plist-codable-enum", "decode") {
                blackHole(try PropertyListDecoder().decode(CContents.self, from: plistEnum))
                return plistEnum.count
            }
            try measure("json-codable-enum", "encode") { try JSONEncoder().encode(enumContents).count }
            try measure("json-codable-enum", "decode") {
                blackHole(try JSONDecoder().decode(CContents.self, from: jsonEnum))
                return jsonEnum.count
            }
            try measure("ours-codable", "encode") { try ArchiveEncoder().encode(contents).count }
            try measure("ours-codable", "decode") {
                let c = try ArchiveDecoder(registry: registry).decode(Contents.self, from: ours)
                blackHole(c)
                return ours.count
            }
            try measure("plist-codable", "encode") {
                let e = PropertyListEncoder()
                e.outputFormat = .binary
                return try e.encode(tagged).count
            }
            try measure("plist-codable", "decode") {
                blackHole(try PropertyListDecoder().decode(TaggedContents.self, from: plist))
                return plist.count
            }
            try measure("json-codable", "encode") { try JSONEncoder().encode(tagged).count }
            try measure("json-codable", "decode") {
                blackHole(try JSONDecoder().decode(TaggedContents.self, from: json))
                return json.count
            }
        }
        let order = ["ours-codable", "plist-codable", "plist-codable-enum", "json-codable", "json-codable-enum"]
        let all = order.flatMap { impl in ["encode", "decode"].compactMap { results["\(impl) \($0)"] } }
        report(all) { _ in nil }
        for op in ["encode", "decode"] {
            guard let ours = results["ours-codable \(op)"] else { continue }
            let ratios = order.dropFirst().compactMap { impl in
                results["\(impl) \(op)"].map { "\(impl) \(String(format: "%.1fx", $0.median / ours.median))" }
            }
            print("ours-codable \(op) is faster than: " + ratios.joined(separator: ", "))
        }
        print("(-enum rows: an enum case per shape kind; the others tag each shape with its class name and use")
        print(" superDecoder, as TaggedContents does)")
    }
}
