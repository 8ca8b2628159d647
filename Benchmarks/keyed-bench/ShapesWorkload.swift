import Foundation
import KeyedArchive

// MARK: - W1 model, ours (NSCoding-style, KeyedArchivable)

/// A drawable shape; `[any BenchShape]` is the polymorphic array of the seed scenario.
protocol BenchShape: AnyObject, KeyedArchivable {
    var style: BenchStyle? { get }
}

final class BenchStyle: KeyedArchivable {
    static var archivedClassName: String { "Style" }
    var name: String
    var strokeWidth: Double
    init(name: String, strokeWidth: Double) {
        self.name = name
        self.strokeWidth = strokeWidth
    }
    init(coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        strokeWidth = try coder.decode(Double.self, forKey: "strokeWidth")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(strokeWidth, forKey: "strokeWidth")
    }
}

final class BenchCircle: BenchShape {
    static var archivedClassName: String { "Circle" }
    var x: Double, y: Double, radius: Double
    var style: BenchStyle?
    init(x: Double, y: Double, radius: Double, style: BenchStyle?) {
        (self.x, self.y, self.radius, self.style) = (x, y, radius, style)
    }
    init(coder: KeyedUnarchiver) throws {
        x = try coder.decode(Double.self, forKey: "center.x")
        y = try coder.decode(Double.self, forKey: "center.y")
        radius = try coder.decode(Double.self, forKey: "radius")
        style = try coder.decodeIfPresent(BenchStyle.self, forKey: "style")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(x, forKey: "center.x")
        coder.encode(y, forKey: "center.y")
        coder.encode(radius, forKey: "radius")
        if let style { coder.encode(style, forKey: "style") }
    }
}

class BenchRectangle: BenchShape {
    class var archivedClassName: String { "Rectangle" }
    var x: Double, y: Double, width: Double, height: Double
    var style: BenchStyle?
    init(x: Double, y: Double, width: Double, height: Double, style: BenchStyle?) {
        (self.x, self.y, self.width, self.height, self.style) = (x, y, width, height, style)
    }
    required init(coder: KeyedUnarchiver) throws {
        x = try coder.decode(Double.self, forKey: "origin.x")
        y = try coder.decode(Double.self, forKey: "origin.y")
        width = try coder.decode(Double.self, forKey: "size.width")
        height = try coder.decode(Double.self, forKey: "size.height")
        style = try coder.decodeIfPresent(BenchStyle.self, forKey: "style")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(x, forKey: "origin.x")
        coder.encode(y, forKey: "origin.y")
        coder.encode(width, forKey: "size.width")
        coder.encode(height, forKey: "size.height")
        if let style { coder.encode(style, forKey: "style") }
    }
}

final class BenchRoundedRectangle: BenchRectangle {
    override class var archivedClassName: String { "RoundedRectangle" }
    var cornerRadius: Double
    init(x: Double, y: Double, width: Double, height: Double, cornerRadius: Double, style: BenchStyle?) {
        self.cornerRadius = cornerRadius
        super.init(x: x, y: y, width: width, height: height, style: style)
    }
    required init(coder: KeyedUnarchiver) throws {
        cornerRadius = try coder.decode(Double.self, forKey: "cornerRadius")
        try super.init(coder: coder)
    }
    override func encode(with coder: KeyedArchiver) {
        super.encode(with: coder)
        coder.encode(cornerRadius, forKey: "cornerRadius")
    }
}

final class BenchContents: KeyedArchivable {
    static var archivedClassName: String { "Contents" }
    var shapes: [any BenchShape]
    init(shapes: [any BenchShape]) { self.shapes = shapes }
    init(coder: KeyedUnarchiver) throws {
        shapes = try coder.decode([any BenchShape].self, forKey: "shapes")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(shapes, forKey: "shapes")
    }
}

let benchRegistry = ClassRegistry([BenchContents.self, BenchCircle.self, BenchRectangle.self,
                                   BenchRoundedRectangle.self, BenchStyle.self])
