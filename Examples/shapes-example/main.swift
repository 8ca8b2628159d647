// shapes-example: a drawing of `[any Shape]` saved as a keyed archive through ArchiveEncoder and restored,
// concrete types intact, through ArchiveDecoder.
//
// USAGE: shapes-example <file>
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

// MARK: The model: plain Codable types, registered once.

protocol Shape: ArchiveCodable, CustomStringConvertible {}

struct Point: Codable {
    var x: Double
    var y: Double
}

struct Size: Codable {
    var width: Double
    var height: Double
}

struct Circle: Shape {
    var center: Point
    var radius: Double

    var description: String { "Circle(center: (\(center.x), \(center.y)), radius: \(radius))" }
}

class Rectangle: Shape {
    var origin: Point
    var size: Size

    init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    var description: String {
        "Rectangle(origin: (\(origin.x), \(origin.y)), size: \(size.width) x \(size.height))"
    }
}

final class RoundedRectangle: Rectangle {
    var cornerRadius: Double

    init(origin: Point, size: Size, cornerRadius: Double) {
        self.cornerRadius = cornerRadius
        super.init(origin: origin, size: size)
    }

    private enum CodingKeys: String, CodingKey { case cornerRadius }

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

    override var description: String {
        "RoundedRectangle(origin: (\(origin.x), \(origin.y)), size: \(size.width) x \(size.height), cornerRadius: \(cornerRadius))"
    }
}

struct Contents: Codable {
    @Polymorphic var shapes: [any Shape]
}

let registry = ClassRegistry([Circle.self, Rectangle.self, RoundedRectangle.self])

// MARK: Saving and restoring.

func writeError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func run(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2 else {
        writeError("Error: expected one argument, the archive file to write\nUsage: shapes-example <file>")
        return 64
    }
    let url = URL(fileURLWithPath: arguments[1])
    let drawing = Contents(shapes: [
        Circle(center: Point(x: 10, y: 20), radius: 30),
        Rectangle(origin: Point(x: 40, y: 50), size: Size(width: 60, height: 70)),
        RoundedRectangle(origin: Point(x: 1, y: 2), size: Size(width: 3, height: 4), cornerRadius: 5),
    ])
    do {
        try Data(try ArchiveEncoder().encode(drawing)).write(to: url)
        let restored = try ArchiveDecoder(registry: registry).decode(Contents.self, from: try Data(contentsOf: url))
        for shape in restored.shapes { print(shape) }
        return 0
    } catch {
        writeError("Error: \(error)")
        return 1
    }
}

exit(run(CommandLine.arguments))
