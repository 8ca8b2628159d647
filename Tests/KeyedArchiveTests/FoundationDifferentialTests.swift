import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// Differential tests against the toolchain's Foundation, both ways. Foundation's known bugs are avoided,
/// not tested: it merges `1` with `true` (no booleans here) and loops on cycles (none here).
@Suite("Differential: Foundation NSKeyedArchiver / NSKeyedUnarchiver")
struct FoundationDifferentialTests {
    static let seeds: [UInt64] = Array(1...40)

    static let foundationClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSUUID.self,
        NSURL.self, NSNull.self, NSSet.self,
    ]

    @Test(arguments: seeds)
    func foundationArchivesOfRandomGraphsDecodeEqualHere(_ seed: UInt64) throws {
        var rng = splitMix64(seed: seed)
        let value = RandomGraph.value(&rng, depth: 0)
        let data = try NSKeyedArchiver.archivedData(withRootObject: RandomGraph.foundationObject(value), requiringSecureCoding: false)
        let ours = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: [UInt8](data))
        #expect(!Canonical.text(value).contains("unknown-type"))
        #expect(Canonical.text(ours) == Canonical.text(value))
    }

    @Test(arguments: seeds)
    func ourArchivesOfRandomGraphsDecodeEqualInFoundation(_ seed: UInt64) throws {
        var rng = splitMix64(seed: seed)
        let value = RandomGraph.value(&rng, depth: 0)
        for format in [PlistFormat.binary, .xml] {
            let bytes = try KeyedArchiver.archivedData(withRootObject: value, format: format)
            let theirs = try NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.foundationClasses, from: Data(bytes))
            #expect(Canonical.text(theirs) == Canonical.text(value), "\(format)")
        }
    }

    @Test func canonicalTextDistinguishesValues() {
        #expect(Canonical.text(["a", 1, 2.5] as [Any]) == "[s:a,n:1,n:2.5]")
        #expect(Canonical.text(NSArray(array: [NSString(string: "a"), NSNumber(value: 1)])) == "[s:a,n:1]")
        #expect(Canonical.text(["k": Date(timeIntervalSinceReferenceDate: 1)]) == "{s:k=date:1.0}")
        #expect(Canonical.text("a") != Canonical.text("b"))
    }

    @Test func foundationCustomClassesDecodeAsOurTypesWithSharingIntact() throws {
        let style = FStyle(name: "Default Stroke", strokeWidth: 1.5)
        let shapes: NSArray = [FCircle(x: 1, y: 2, r: 3, style: style), FCircle(x: 4, y: 5, r: 6, style: style)]
        let data = try NSKeyedArchiver.archivedData(withRootObject: shapes, requiringSecureCoding: false)
        let foundationName = NSStringFromClass(FCircle.self)
        let registry = shapeRegistry.renaming(foundationName, to: Circle.self)
            .renaming(NSStringFromClass(FStyle.self), to: Style.self)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Circle].self, from: [UInt8](data), registry: registry))
        #expect(decoded.map(\.radius) == [3, 6] && decoded.map(\.centerX) == [1, 4])
        #expect(decoded[0].style != nil && decoded[0].style === decoded[1].style)
        #expect(decoded[0].style?.name == "Default Stroke" && decoded[0].style?.strokeWidth == 1.5)
    }

    @Test func ourCustomClassesDecodeInFoundationWithSharingIntact() throws {
        let style = Style(name: "Default Stroke", strokeWidth: 1.5)
        let bytes = try KeyedArchiver.archivedData(withRootObject: [Circle(centerX: 1, centerY: 2, radius: 3, style: style),
                                                                   Circle(centerX: 4, centerY: 5, radius: 6, style: style)])
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FCircle.self, forClassName: "Circle")
        unarchiver.setClass(FStyle.self, forClassName: "Style")
        let decoded = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [FCircle])
        unarchiver.finishDecoding()
        #expect(decoded.map(\.r) == [3, 6] && decoded.map(\.y) == [2, 5])
        #expect(decoded[0].style != nil && decoded[0].style === decoded[1].style)
        #expect(decoded[0].style?.name == "Default Stroke")
    }

    @Test func scalarsWrittenByFoundationReadHere() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(true, forKey: "b")
        archiver.encode(Int32(-7), forKey: "i32")
        archiver.encode(Int64(1) << 40, forKey: "i64")
        archiver.encode(Float(1.5), forKey: "f")
        archiver.encode(2.25, forKey: "d")
        archiver.encode("$", forKey: "$odd")
        archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: [UInt8](archiver.encodedData)) { (u: KeyedUnarchiver) throws in
            #expect(try u.decode(Bool.self, forKey: "b"))
            #expect(try u.decode(Int32.self, forKey: "i32") == -7)
            #expect(try u.decode(Int64.self, forKey: "i64") == 1 << 40)
            #expect(try u.decode(Float.self, forKey: "f") == 1.5)
            #expect(try u.decode(Double.self, forKey: "d") == 2.25)
            #expect(try u.decode(String.self, forKey: "$odd") == "$")
            expectKeyedError(.outOfRange) { try u.decode(Int32.self, forKey: "i64") }
        }
    }

    @Test func scalarsWrittenHereReadInFoundation() throws {
        let archiver = KeyedArchiver()
        archiver.encode(true, forKey: "b")
        archiver.encode(Int32(-7), forKey: "i32")
        archiver.encode(Int64(1) << 40, forKey: "i64")
        archiver.encode(2.25, forKey: "d")
        archiver.encode("$", forKey: "$odd")
        let bytes = try archiver.finishEncoding()
        let u = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        u.requiresSecureCoding = false
        #expect(u.decodeBool(forKey: "b"))
        #expect(u.decodeInt32(forKey: "i32") == -7)
        #expect(u.decodeInt64(forKey: "i64") == 1 << 40)
        #expect(u.decodeDouble(forKey: "d") == 2.25)
        #expect(u.decodeObject(forKey: "$odd") as? String == "$")
        u.finishDecoding()
    }
}

/// The shared SplitMix64 generator, seeded as this suite always was (the seed times the golden ratio).
func splitMix64(seed: UInt64) -> SeededGenerator { SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15) }

/// Random graphs of standard values (no booleans, no integral reals: Foundation merges those).
enum RandomGraph {
    static func value(_ rng: inout SeededGenerator, depth: Int) -> Any {
        let kind = Int.random(in: depth >= 3 ? 0...6 : 0...9, using: &rng)
        switch kind {
        case 0: return ["alpha", "beta", "ünïcödé", "", "$dollar", "x y z"][Int.random(in: 0...5, using: &rng)] + String(Int.random(in: 0...9, using: &rng))
        case 1: return Int.random(in: -1_000_000...1_000_000, using: &rng) * 7 + 2
        case 2: return Double(Int.random(in: -1000...1000, using: &rng)) + 0.5
        case 3: return Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1_000_000, using: &rng)) + 0.25)
        case 4: return Data((0..<Int.random(in: 0...20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 5: return UUID(uuid: (UInt8.random(in: 0...255, using: &rng), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                   UInt8.random(in: 0...255, using: &rng)))
        case 6: return URL(string: "https://example.com/p\(Int.random(in: 0...99, using: &rng))?q=1") ?? "url"
        case 7: return (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) }
        case 8:
            var d: [String: Any] = [:]
            for i in 0..<Int.random(in: 0...4, using: &rng) { d["k\(i)"] = value(&rng, depth: depth + 1) }
            return d
        default:
            return Set((0..<Int.random(in: 0...4, using: &rng)).map { "m\($0 * 3 + Int.random(in: 0...2, using: &rng))" })
        }
    }

    /// The same value as Foundation objects.
    static func foundationObject(_ v: Any) -> Any {
        switch v {
        case let s as String: return NSString(string: s)
        case let i as Int: return NSNumber(value: i)
        case let d as Double: return NSNumber(value: d)
        case let d as Date: return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case let d as Data: return NSData(data: d)
        case let u as UUID: return NSUUID(uuidString: u.uuidString) ?? NSNull()
        case let u as URL: return NSURL(string: u.absoluteString) ?? NSNull()
        case let a as [Any]: return NSArray(array: a.map(foundationObject))
        case let d as [String: Any]:
            let m = NSMutableDictionary()
            for (k, x) in d { m[NSString(string: k)] = foundationObject(x) }
            return m
        case let s as Set<String>: return NSSet(array: s.map { NSString(string: $0) })
        default: return NSNull()
        }
    }
}

/// A canonical text of a decoded graph, whether made of Swift values or Foundation objects.
enum Canonical {
    static func text(_ v: Any?) -> String {
        guard let v else { return "nil" }
        switch v {
        case is ArchivedNull, is NSNull: return "null"
        case let s as String: return "s:" + s
        case let n as Int: return "n:\(n)"
        case let d as Double: return "n:\(d)"
        case let d as Date: return "date:\(d.timeIntervalSinceReferenceDate)"
        case let d as Data: return "data:" + d.base64EncodedString()
        case let u as UUID: return "uuid:" + u.uuidString
        case let u as URL: return "url:" + u.absoluteString
        case let s as NSString: return "s:" + s.substring(from: 0)
        case let n as NSNumber: return "n:" + n.description
        case let d as NSDate: return "date:\(d.timeIntervalSinceReferenceDate)"
        case let d as NSData: return "data:" + d.base64EncodedString()
        case let u as NSUUID: return "uuid:" + u.uuidString
        case let u as NSURL: return "url:" + u.absoluteString
        case let a as NSArray: return "[" + a.map { text($0) }.joined(separator: ",") + "]"
        case let a as [Any]: return "[" + a.map { text($0) }.joined(separator: ",") + "]"
        case let d as NSDictionary:
            return "{" + d.map { "\(text($0.key))=\(text($0.value))" }.sorted().joined(separator: ",") + "}"
        case let d as [AnyHashable: Any]:
            return "{" + d.map { "\(text($0.key.base))=\(text($0.value))" }.sorted().joined(separator: ",") + "}"
        case let s as NSSet: return "set(" + s.map { text($0) }.sorted().joined(separator: ",") + ")"
        case let s as Set<AnyHashable>: return "set(" + s.map { text($0.base) }.sorted().joined(separator: ",") + ")"
        case let s as Set<String>: return "set(" + s.map { text($0) }.sorted().joined(separator: ",") + ")"
        default: return "unknown-type:\(type(of: v))"
        }
    }
}

/// Foundation's side of the shapes model.
final class FStyle: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let strokeWidth: Double
    init(name: String, strokeWidth: Double) {
        self.name = name
        self.strokeWidth = strokeWidth
    }
    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        strokeWidth = coder.decodeDouble(forKey: "strokeWidth")
    }
    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(strokeWidth, forKey: "strokeWidth")
    }
}

final class FCircle: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let x, y, r: Double
    let style: FStyle?
    init(x: Double, y: Double, r: Double, style: FStyle?) {
        (self.x, self.y, self.r, self.style) = (x, y, r, style)
    }
    init?(coder: NSCoder) {
        x = coder.decodeDouble(forKey: "center.x")
        y = coder.decodeDouble(forKey: "center.y")
        r = coder.decodeDouble(forKey: "radius")
        style = coder.decodeObject(forKey: "style") as? FStyle
    }
    func encode(with coder: NSCoder) {
        coder.encode(x, forKey: "center.x")
        coder.encode(y, forKey: "center.y")
        coder.encode(r, forKey: "radius")
        if let style { coder.encode(style, forKey: "style") }
    }
}
