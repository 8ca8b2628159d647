import KeyedArchive
import Testing

/// The seed scenario as Codable types, archived under the same class names and keys as the NSCoding-style
/// model in ShapeModel.swift, so that archives of either read with the other.
protocol CodableShape: ArchiveCodable {
    var style: CodableStyle? { get }
}

final class CodableStyle: ArchiveCodable {
    static var archivedClassName: String { "Style" }
    let name: String
    let strokeWidth: Double
    init(name: String, strokeWidth: Double) {
        self.name = name
        self.strokeWidth = strokeWidth
    }
}

final class CodableCircle: CodableShape {
    static var archivedClassName: String { "Circle" }
    var centerX, centerY, radius: Double
    var style: CodableStyle?
    init(centerX: Double, centerY: Double, radius: Double, style: CodableStyle? = nil) {
        (self.centerX, self.centerY, self.radius, self.style) = (centerX, centerY, radius, style)
    }
    enum CodingKeys: String, CodingKey {
        case centerX = "center.x", centerY = "center.y", radius, style
    }
}

class CodableRectangle: CodableShape {
    class var archivedClassName: String { "Rectangle" }
    var x, y, width, height: Double
    var style: CodableStyle?
    init(x: Double, y: Double, width: Double, height: Double, style: CodableStyle? = nil) {
        (self.x, self.y, self.width, self.height, self.style) = (x, y, width, height, style)
    }
    enum CodingKeys: String, CodingKey {
        case x = "origin.x", y = "origin.y", width = "size.width", height = "size.height", style
    }
}

final class CodableRoundedRectangle: CodableRectangle {
    override class var archivedClassName: String { "RoundedRectangle" }
    var cornerRadius: Double
    init(x: Double, y: Double, width: Double, height: Double, cornerRadius: Double, style: CodableStyle? = nil) {
        self.cornerRadius = cornerRadius
        super.init(x: x, y: y, width: width, height: height, style: style)
    }
    private enum Keys: String, CodingKey { case cornerRadius }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try super.encode(to: container.superEncoder())
        try container.encode(cornerRadius, forKey: .cornerRadius)
    }
}

struct CodableContents: ArchiveCodable {
    static var archivedClassName: String { "Contents" }
    @Polymorphic var shapes: [any CodableShape]
}

let codableShapeRegistry = ClassRegistry([
    CodableContents.self, CodableCircle.self, CodableRectangle.self, CodableRoundedRectangle.self, CodableStyle.self,
])

/// The same drawing as `makeContents(count:)`, as Codable values.
func makeCodableContents(count: Int) -> CodableContents {
    let style = CodableStyle(name: "Default Stroke", strokeWidth: 1.5)
    var shapes: [any CodableShape] = []
    for i in 0..<count {
        let d = Double(i)
        let s: CodableStyle? = i % 10 == 0 ? style : nil
        switch i % 3 {
        case 0: shapes.append(CodableCircle(centerX: d, centerY: d + 0.5, radius: d / 3, style: s))
        case 1: shapes.append(CodableRectangle(x: d, y: -d, width: 2 * d, height: d + 1, style: s))
        default: shapes.append(CodableRoundedRectangle(x: d, y: d, width: 3, height: 4, cornerRadius: d / 7, style: s))
        }
    }
    return CodableContents(shapes: shapes)
}

/// Expects `body` to throw a `DecodingError`; returns it for further checks.
func expectDecodingError<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) -> DecodingError? {
    #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { try body() }
}

extension DecodingError {
    var context: Context? {
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): c
        @unknown default: nil
        }
    }

    /// The coding path as its string values, joined by dots.
    var path: String { context?.codingPath.map(\.stringValue).joined(separator: ".") ?? "" }
}
