import Foundation
import FormCache

// MARK: - W1 model for Foundation's NSKeyedArchiver (NSObject + NSCoding), the same keys and class names

final class FStyle: NSObject, NSCoding {
    let name: String
    let strokeWidth: Double
    init(name: String, strokeWidth: Double) { (self.name, self.strokeWidth) = (name, strokeWidth) }
    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        strokeWidth = coder.decodeDouble(forKey: "strokeWidth")
    }
    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(strokeWidth, forKey: "strokeWidth")
    }
}

final class FCircle: NSObject, NSCoding {
    let x: Double, y: Double, radius: Double
    let style: FStyle?
    init(x: Double, y: Double, radius: Double, style: FStyle?) { (self.x, self.y, self.radius, self.style) = (x, y, radius, style) }
    init?(coder: NSCoder) {
        x = coder.decodeDouble(forKey: "center.x")
        y = coder.decodeDouble(forKey: "center.y")
        radius = coder.decodeDouble(forKey: "radius")
        style = coder.containsValue(forKey: "style") ? coder.decodeObject(forKey: "style") as? FStyle : nil  // a missing key traps on Linux
    }
    func encode(with coder: NSCoder) {
        coder.encode(x, forKey: "center.x")
        coder.encode(y, forKey: "center.y")
        coder.encode(radius, forKey: "radius")
        if let style { coder.encode(style, forKey: "style") }
    }
}

class FRectangle: NSObject, NSCoding {
    let x: Double, y: Double, width: Double, height: Double
    let style: FStyle?
    init(x: Double, y: Double, width: Double, height: Double, style: FStyle?) {
        (self.x, self.y, self.width, self.height, self.style) = (x, y, width, height, style)
    }
    required init?(coder: NSCoder) {
        x = coder.decodeDouble(forKey: "origin.x")
        y = coder.decodeDouble(forKey: "origin.y")
        width = coder.decodeDouble(forKey: "size.width")
        height = coder.decodeDouble(forKey: "size.height")
        style = coder.containsValue(forKey: "style") ? coder.decodeObject(forKey: "style") as? FStyle : nil  // a missing key traps on Linux
    }
    func encode(with coder: NSCoder) {
        coder.encode(x, forKey: "origin.x")
        coder.encode(y, forKey: "origin.y")
        coder.encode(width, forKey: "size.width")
        coder.encode(height, forKey: "size.height")
        if let style { coder.encode(style, forKey: "style") }
    }
}

final class FRoundedRectangle: FRectangle {
    let cornerRadius: Double
    init(x: Double, y: Double, width: Double, height: Double, cornerRadius: Double, style: FStyle?) {
        self.cornerRadius = cornerRadius
        super.init(x: x, y: y, width: width, height: height, style: style)
    }
    required init?(coder: NSCoder) {
        cornerRadius = coder.decodeDouble(forKey: "cornerRadius")
        super.init(coder: coder)
    }
    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(cornerRadius, forKey: "cornerRadius")
    }
}

final class FContents: NSObject, NSCoding {
    let shapes: [NSObject]
    init(shapes: [NSObject]) { self.shapes = shapes }
    init?(coder: NSCoder) { shapes = coder.decodeObject(forKey: "shapes") as? [NSObject] ?? [] }
    func encode(with coder: NSCoder) { coder.encode(shapes as NSArray, forKey: "shapes") }
}

enum FoundationArchiving {
    static let names: [(AnyClass, String)] = [(FContents.self, "Contents"), (FCircle.self, "Circle"),
        (FRectangle.self, "Rectangle"), (FRoundedRectangle.self, "RoundedRectangle"), (FStyle.self, "Style"),
        (FForm.self, "FormRecord")]

    static func archive(_ root: NSObject) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        for entry in names { let (cls, name): (AnyClass, String) = entry; archiver.setClassName(name, for: cls) }
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static func unarchive(_ data: Data) throws -> Any? {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        for entry in names { let (cls, name): (AnyClass, String) = entry; unarchiver.setClass(cls, forClassName: name) }
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }
}

// MARK: - W2 model for Foundation

final class FForm: NSObject, NSCoding {
    let id: String, name: String, email: String, note: String
    let registeredAt: Date, expiresAt: Date
    init(id: String, name: String, email: String, note: String, registeredAt: Date, expiresAt: Date) {
        (self.id, self.name, self.email, self.note, self.registeredAt, self.expiresAt) = (id, name, email, note, registeredAt, expiresAt)
    }
    init?(coder: NSCoder) {
        id = coder.decodeObject(forKey: "id") as? String ?? ""
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        email = coder.decodeObject(forKey: "email") as? String ?? ""
        note = coder.decodeObject(forKey: "note") as? String ?? ""
        registeredAt = coder.decodeObject(forKey: "registeredAt") as? Date ?? Date(timeIntervalSinceReferenceDate: 0)
        expiresAt = coder.decodeObject(forKey: "expiresAt") as? Date ?? Date(timeIntervalSinceReferenceDate: 0)
    }
    func encode(with coder: NSCoder) {
        coder.encode(id, forKey: "id")
        coder.encode(registeredAt, forKey: "registeredAt")
        coder.encode(name, forKey: "name")
        coder.encode(email, forKey: "email")
        coder.encode(note, forKey: "note")
        coder.encode(expiresAt, forKey: "expiresAt")
    }
}

// MARK: - Codable models (PropertyListEncoder / JSONEncoder): the same data, polymorphism by an enum

struct CStyle: Codable { var name: String; var strokeWidth: Double }
struct CCircle: Codable {
    var x: Double, y: Double, radius: Double
    var style: CStyle?
    enum CodingKeys: String, CodingKey { case x = "center.x", y = "center.y", radius, style }
}
struct CRectangle: Codable {
    var x: Double, y: Double, width: Double, height: Double
    var style: CStyle?
    enum CodingKeys: String, CodingKey { case x = "origin.x", y = "origin.y", width = "size.width", height = "size.height", style }
}
struct CRoundedRectangle: Codable {
    var x: Double, y: Double, width: Double, height: Double, cornerRadius: Double
    var style: CStyle?
    enum CodingKeys: String, CodingKey {
        case x = "origin.x", y = "origin.y", width = "size.width", height = "size.height", cornerRadius, style
    }
}
enum CShape: Codable {
    case circle(CCircle)
    case rectangle(CRectangle)
    case roundedRectangle(CRoundedRectangle)
}
struct CContents: Codable { var shapes: [CShape] }
struct CForm: Codable {
    var id: String, registeredAt: Date, name: String, email: String, note: String, expiresAt: Date
}
