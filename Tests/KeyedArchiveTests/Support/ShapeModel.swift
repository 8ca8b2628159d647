import KeyedArchive

/// The seed scenario's model: a Contents holding `[any Shape]`, one shared Style.
protocol Shape: KeyedArchivable {
    var style: Style? { get }
}

final class Style: KeyedArchivable {
    let name: String
    let strokeWidth: Double
    init(name: String, strokeWidth: Double) {
        self.name = name
        self.strokeWidth = strokeWidth
    }
    required init(coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        strokeWidth = try coder.decode(Double.self, forKey: "strokeWidth")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(strokeWidth, forKey: "strokeWidth")
    }
}

final class Circle: Shape {
    var centerX, centerY, radius: Double
    var style: Style?
    init(centerX: Double, centerY: Double, radius: Double, style: Style? = nil) {
        (self.centerX, self.centerY, self.radius, self.style) = (centerX, centerY, radius, style)
    }
    required init(coder: KeyedUnarchiver) throws {
        centerX = try coder.decode(Double.self, forKey: "center.x")
        centerY = try coder.decode(Double.self, forKey: "center.y")
        radius = try coder.decode(Double.self, forKey: "radius")
        style = try coder.decodeIfPresent(Style.self, forKey: "style")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(centerX, forKey: "center.x")
        coder.encode(centerY, forKey: "center.y")
        coder.encode(radius, forKey: "radius")
        if let style { coder.encode(style, forKey: "style") }
    }
}

class Rectangle: Shape {
    var x, y, width, height: Double
    var style: Style?
    init(x: Double, y: Double, width: Double, height: Double, style: Style? = nil) {
        (self.x, self.y, self.width, self.height, self.style) = (x, y, width, height, style)
    }
    required init(coder: KeyedUnarchiver) throws {
        x = try coder.decode(Double.self, forKey: "origin.x")
        y = try coder.decode(Double.self, forKey: "origin.y")
        width = try coder.decode(Double.self, forKey: "size.width")
        height = try coder.decode(Double.self, forKey: "size.height")
        style = try coder.decodeIfPresent(Style.self, forKey: "style")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(x, forKey: "origin.x")
        coder.encode(y, forKey: "origin.y")
        coder.encode(width, forKey: "size.width")
        coder.encode(height, forKey: "size.height")
        if let style { coder.encode(style, forKey: "style") }
    }
}

final class RoundedRectangle: Rectangle {
    var cornerRadius: Double
    init(x: Double, y: Double, width: Double, height: Double, cornerRadius: Double, style: Style? = nil) {
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

final class Contents: KeyedArchivable {
    var shapes: [any Shape]
    init(shapes: [any Shape]) { self.shapes = shapes }
    required init(coder: KeyedUnarchiver) throws {
        shapes = try coder.decode([any Shape].self, forKey: "shapes")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(shapes, forKey: "shapes")
    }
}

let shapeRegistry = ClassRegistry([Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self])

/// W1-like contents: shapes rotating Circle, Rectangle, RoundedRectangle; every 10th refers to one Style.
func makeContents(count: Int) -> (Contents, Style) {
    let style = Style(name: "Default Stroke", strokeWidth: 1.5)
    var shapes: [any Shape] = []
    for i in 0..<count {
        let d = Double(i)
        let s: Style? = i % 10 == 0 ? style : nil
        switch i % 3 {
        case 0: shapes.append(Circle(centerX: d, centerY: d + 0.5, radius: d / 3, style: s))
        case 1: shapes.append(Rectangle(x: d, y: -d, width: 2 * d, height: d + 1, style: s))
        default: shapes.append(RoundedRectangle(x: d, y: d, width: 3, height: 4, cornerRadius: d / 7, style: s))
        }
    }
    return (Contents(shapes: shapes), style)
}
