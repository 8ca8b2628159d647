import BinaryPlist
import KeyedArchive
import Testing

@Suite("Seed scenario: Contents of [any Shape] with a shared Style")
struct ShapeScenarioTests {
    @Test func roundTripKeepsConcreteTypesAndValues() throws {
        let (contents, _) = makeContents(count: 30)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry))
        #expect(decoded.shapes.count == 30)
        let c = try #require(decoded.shapes[3] as? Circle)
        #expect(c.centerX == 3 && c.centerY == 3.5 && c.radius == 1)
        let r = try #require(decoded.shapes[4] as? Rectangle)
        #expect(!(r is RoundedRectangle))
        #expect(r.x == 4 && r.y == -4 && r.width == 8 && r.height == 5)
        let rr = try #require(decoded.shapes[5] as? RoundedRectangle)
        #expect(rr.width == 3 && rr.height == 4 && rr.cornerRadius == 5.0 / 7)
    }

    @Test func sharedStyleDecodesToOneInstance() throws {
        let (contents, _) = makeContents(count: 30)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry))
        let styles = decoded.shapes.compactMap(\.style)
        #expect(styles.count == 3)
        #expect(styles.allSatisfy { $0 === styles[0] })
        #expect(styles[0].name == "Default Stroke" && styles[0].strokeWidth == 1.5)
        #expect(decoded.shapes[1].style == nil)
    }

    @Test func subclassChainIsWrittenInClasses() throws {
        let (contents, _) = makeContents(count: 30)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let top = try #require(try BinaryPlistDocument(bytes).decodeTopObject().dictionaryValue)
        let objects = try #require(top["$objects"]?.arrayValue)
        // Every class dictionary in $objects, by $classname: each class is written once, with its whole chain.
        var classes: [String: [String]] = [:]
        var classDictionaryCount = 0
        for object in objects {
            guard let d = object.dictionaryValue, let name = d["$classname"]?.stringValue else { continue }
            classDictionaryCount += 1
            classes[name] = try #require(d["$classes"]?.arrayValue).map { try #require($0.stringValue) }
        }
        #expect(classDictionaryCount == 6)
        #expect(classes == [
            "Contents": ["Contents", "NSObject"],
            "NSArray": ["NSArray", "NSObject"],
            "Circle": ["Circle", "NSObject"],
            "Style": ["Style", "NSObject"],
            "Rectangle": ["Rectangle", "NSObject"],
            "RoundedRectangle": ["RoundedRectangle", "Rectangle", "NSObject"],
        ])
        // The ten RoundedRectangle instances (every third shape) all refer to that one class dictionary.
        let roundedClassUIDs = objects.compactMap { object -> UInt64? in
            guard let uid = object.dictionaryValue?["$class"]?.uidValue?.value, uid < UInt64(objects.count),
                  objects[Int(uid)].dictionaryValue?["$classname"]?.stringValue == "RoundedRectangle" else { return nil }
            return uid
        }
        #expect(roundedClassUIDs.count == 10 && Set(roundedClassUIDs).count == 1)

        #expect(RoundedRectangle.archivedClassName == "RoundedRectangle")
        #expect(RoundedRectangle.archivedSuperclassNames == ["Rectangle", "NSObject"])
        #expect(Rectangle.archivedSuperclassNames == ["NSObject"])
    }
}
