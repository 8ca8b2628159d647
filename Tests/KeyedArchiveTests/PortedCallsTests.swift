import Foundation
import KeyedArchive
import Testing

/// The NSCoder / NSKeyedUnarchiver calls people port, each with its Swift-native equivalent.
@Suite("Ported NSCoder calls")
struct PortedCallsTests {
    let registry = shapeRegistry.registering(Tripwire.self)

    @Test func unarchivedArrayOfObjectsDecodesEachElementAsTheType() throws {
        let circles = [Circle(centerX: 0, centerY: 1, radius: 2), Circle(centerX: 3, centerY: 4, radius: 5)]
        let bytes = try KeyedArchiver.archivedData(withRootObject: circles)
        let decoded = try #require(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: bytes, registry: registry))
        #expect(decoded.map(\.radius) == [2, 5])
        #expect(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: try KeyedArchiver.archivedData(withRootObject: nil)) == nil)
        expectKeyedError(.typeMismatch) {
            try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: try KeyedArchiver.archivedData(withRootObject: "x"))
        }
    }

    @Test func unarchivedArrayOfObjectsReadsFoundationsArchive() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["a", "b", "c"]), requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: String.self, from: data) == ["a", "b", "c"])
    }

    @Test func unarchivedDictionaryChecksKeysAndObjects() throws {
        let styles = ["thin": Style(name: "thin", strokeWidth: 0.5), "bold": Style(name: "bold", strokeWidth: 3)]
        let bytes = try KeyedArchiver.archivedData(withRootObject: styles)
        let decoded = try #require(try KeyedUnarchiver.unarchivedDictionary(
            keysOfType: String.self, objectsOfType: Style.self, from: bytes, registry: registry))
        #expect(decoded.mapValues(\.strokeWidth) == ["thin": 0.5, "bold": 3])
        let tripwire = try KeyedArchiver.archivedData(withRootObject: ["t": Tripwire()])
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedDictionary(keysOfType: String.self, objectsOfType: Style.self, from: tripwire, registry: registry)
        }
        #expect(error?.reason == #"secure coding: class "Tripwire" (Tripwire) is not among the types asked for: Dictionary<String, Style>"#)
        let foundation = try NSKeyedArchiver.archivedData(withRootObject: NSDictionary(dictionary: ["n": 1, "m": 2]),
                                                          requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedDictionary(keysOfType: String.self, objectsOfType: Int.self, from: foundation) == ["n": 1, "m": 2])
    }

    @Test func typedOfTypesGivesOneOptionalPerTypeToSwitchOver() throws {
        func kind(_ bytes: [UInt8]) throws -> String {
            switch try KeyedUnarchiver.unarchivedObject(ofTypes: RoundedRectangle.self, Rectangle.self, Circle.self, from: bytes, registry: registry) {
            case (let rounded?, nil, nil): "rounded \(rounded.cornerRadius)"
            case (nil, let rectangle?, nil): "rectangle \(rectangle.width)"
            case (nil, nil, let circle?): "circle \(circle.radius)"
            case (nil, nil, nil): "nothing"
            default: "more than one"
            }
        }
        #expect(try kind(KeyedArchiver.archivedData(withRootObject: Circle(centerX: 0, centerY: 0, radius: 7))) == "circle 7.0")
        #expect(try kind(KeyedArchiver.archivedData(withRootObject: Rectangle(x: 0, y: 0, width: 2, height: 1))) == "rectangle 2.0")
        // The first listed type that fits takes it, so a subclass listed first is never also its superclass.
        #expect(try kind(KeyedArchiver.archivedData(withRootObject: RoundedRectangle(x: 0, y: 0, width: 2, height: 1, cornerRadius: 4))) == "rounded 4.0")
        #expect(try kind(KeyedArchiver.archivedData(withRootObject: nil)) == "nothing")
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofTypes: Circle.self, Rectangle.self,
                                                 from: try KeyedArchiver.archivedData(withRootObject: Tripwire()), registry: registry)
        }
        #expect(error?.keyPath == "root")
    }

    @Test func decodeTopLevelObjectReadsKeysOfTop() throws {
        let archiver = KeyedArchiver()
        archiver.encode(Circle(centerX: 0, centerY: 0, radius: 9), forKey: "root")
        archiver.encode("v2", forKey: "version")
        let bytes = try archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: true) { (u: KeyedUnarchiver) throws in
            #expect(try u.decodeTopLevelObject(of: Circle.self, forKey: "root")?.radius == 9)
            #expect(try u.decodeTopLevelObject(forKey: "version") as? String == "v2")
            #expect((try u.decodeTopLevelObject(of: [Circle.self], forKey: "root") as? Circle)?.radius == 9)
            #expect(try u.decodeTopLevelObject(forKey: "missing") == nil)
            expectKeyedError(.classNotAllowed) { try u.decodeTopLevelObject(of: [Rectangle.self], forKey: "root") }
        }
        // Inside init(coder:) it is refused: it reads $top.
        let nested = try KeyedArchiver.archivedData(withRootObject: TopLevelReader())
        let error = expectKeyedError(.invalidValue) {
            try KeyedUnarchiver.unarchivedObject(ofType: TopLevelReader.self, from: nested, registry: ClassRegistry([TopLevelReader.self]))
        }
        #expect(error?.keyPath == "root.root")
    }

    @Test func dataOverloadsMatchTheByteArrayForms() throws {
        let circle = Circle(centerX: 1, centerY: 2, radius: 3)
        let bytes = try KeyedArchiver.archivedData(withRootObject: circle)
        let data: Data = try KeyedArchiver.archivedData(withRootObject: circle)
        #expect([UInt8](data) == bytes)
        let archiver = KeyedArchiver(outputFormat: .xml)
        archiver.encode(circle, forKey: "root")
        archiver.encodeBytes(Data([1, 2, 3]), forKey: "raw")
        let xml: Data = try archiver.finishEncoding()
        #expect(xml.starts(with: Array("<?xml".utf8)))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: data, registry: registry)?.radius == 3)
        #expect(try KeyedUnarchiver.unarchivedObject(ofTypes: [Circle.self], from: data, registry: registry) is Circle)
        #expect(try KeyedUnarchiver.unarchivedObject(ofTypes: Circle.self, Style.self, from: data, registry: registry).0?.centerY == 2)
        let array: Data = try KeyedArchiver.archivedData(withRootObject: [circle])
        #expect(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: array, registry: registry)?.count == 1)
        let dictionary: Data = try KeyedArchiver.archivedData(withRootObject: ["c": circle])
        #expect(try KeyedUnarchiver.unarchivedDictionary(keysOfType: String.self, objectsOfType: Circle.self, from: dictionary,
                                                         registry: registry)?["c"]?.radius == 3)
        try KeyedUnarchiver.withUnarchiver(for: xml, registry: registry) { (u: KeyedUnarchiver) throws in
            let raw: Data? = try u.decodeBytes(forKey: "raw")
            #expect(raw == Data([1, 2, 3]))
            #expect(try u.decodeBytes(forKey: "raw") == [1, 2, 3])
            #expect(try u.decode(Circle.self, forKey: "root").centerX == 1)
        }
        // Foundation reads the Data as it reads its own.
        let foundation = try NSKeyedUnarchiver(forReadingFrom: try KeyedArchiver.archivedData(withRootObject: ["a", "b"]))
        foundation.requiresSecureCoding = false
        #expect(foundation.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [String] == ["a", "b"])
    }
}

/// Calls decodeTopLevelObject from inside init(coder:).
final class TopLevelReader: KeyedArchivable {
    init() {}
    init(coder: KeyedUnarchiver) throws { _ = try coder.decodeTopLevelObject(forKey: "root") }
    func encode(with coder: KeyedArchiver) {}
}
