import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// `NSAttributedString` as ``ArchivedAttributedString``: the string and its runs with exact UTF-16 ranges, from
/// Apple's archives and back, and malformed run tables refused with the object's index.
@Suite("NSAttributedString")
struct NSAttributedStringTests {
    typealias H = HostileArchive

    func root(_ path: String) throws -> ArchivedAttributedString? {
        try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: KeyedFixtures.bytes(path),
                                             registry: ClassRegistry.standard.allowingUnknownClasses(),
                                             requiresSecureCoding: false)
    }

    /// The runs as `(location, length, Font, Size)`.
    func summary(_ s: ArchivedAttributedString) -> [String] {
        s.runs.map { run in
            let font = run.attributes["Font"] as? String ?? "-"
            let size = (run.attributes["Size"] as? Int).map(String.init) ?? "-"
            return "\(run.range.lowerBound)+\(run.range.count) \(font) \(size)"
        }
    }

    @Test(arguments: ["NSAttributedString.archive", "NSMutableAttributedString.archive"])
    func appleFixtureDecodesToItsSixRuns(_ name: String) throws {
        let s = try #require(try root("keyed/swift-corelibs-foundation/macOS-10.14/" + name))
        #expect(s.string == "0123456789")
        // NSAttributeInfo 01 00 01 01 04 02 02 01 01 03 01 00: (length, attributes) pairs.
        #expect(summary(s) == ["0+1 - -", "1+1 Helvetica 123", "2+4 Times 456", "6+2 Helvetica 123",
                               "8+1 Times 456", "9+1 - -"])
        #expect(s.text(of: s.runs[2]) == "2345")
    }

    @Test func anUnknownAttributeValueIsKeptAsAnArchivedObject() throws {
        let s = try #require(try root("keyed/michaelwright235-nskeyedunarchiver/NSMutableAttributedString.plist"))
        #expect(s.string == "firstsecondthird")
        // NSAttributeInfo 05 00 0b 01: "first" in a color, "secondthird" with no attributes.
        #expect(s.runs.map(\.range) == [0..<5, 5..<16])
        #expect(s.runs[1].attributes.isEmpty)
        let color = try #require(s.runs[0].attributes["NSColor"] as? ArchivedObject)
        #expect(color.className == "NSColor")
    }

    @Test func rangesCountUTF16UnitsAndSurviveARoundTrip() throws {
        // "é" is one UTF-16 unit, "👋" two: the second run starts at 3, as NSRange counts.
        let original = ArchivedAttributedString("hé👋 you", runs: [
            .init(range: 0..<2, attributes: ["bold": true]),
            .init(range: 2..<4, attributes: ["__kIMMessagePartAttributeName": 0]),
            .init(range: 4..<8, attributes: [:]),
        ])
        #expect(original.text(of: original.runs[1]) == "👋")
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: original)
        let objects = try #require(PropertyList.decode(bytes).dictionaryValue?["$objects"]?.arrayValue)
        let info = try #require(objects[1].dictionaryValue?["NSAttributeInfo"]?.uidValue)
        #expect(objects[Int(info.value)].dataValue == [2, 0, 2, 1, 4, 2])
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: bytes))
        #expect(back.string == original.string)
        #expect(back.runs.map(\.range) == [0..<2, 2..<4, 4..<8])
        #expect(back.runs[0].attributes["bold"] as? Bool == true)
        #expect(back.runs[1].attributes["__kIMMessagePartAttributeName"] as? Int == 0)
        #expect(back.runs[2].attributes.isEmpty)
    }

    @Test func oneRunOverTheWholeStringIsOneDictionaryAndNoRunTable() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ArchivedAttributedString("hi", attributes: ["k": "v"]))
        let objects = try #require(PropertyList.decode(bytes).dictionaryValue?["$objects"]?.arrayValue)
        let object = try #require(objects[1].dictionaryValue)
        #expect(object["NSAttributeInfo"] == nil)
        let attributes = try #require(object["NSAttributes"]?.uidValue)
        #expect(objects[Int(attributes.value)].dictionaryValue?["NS.keys"] != nil)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: bytes))
        #expect(back.runs.count == 1)
        #expect(back.runs[0].range == 0..<2)
        #expect(back.runs[0].attributes["k"] as? String == "v")
        let empty: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ArchivedAttributedString(""))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: empty)?.runs.isEmpty == true)
    }

    /// `NSAttributeInfo` data that does not describe the string: each is `.invalidValue` at object 1.
    @Test(arguments: [
        [UInt8](),             // no runs for a string of 3
        [2, 0],                // covers 2 of 3
        [2, 0, 2, 0],          // runs past the end
        [3, 1],                // names attributes 1 of 1
        [0, 0, 3, 0],          // an empty run
        [3],                   // not pairs
        [0x83],                // cut off inside an integer
    ])
    func malformedRunTablesAreInvalidValuesAtTheirObject(_ info: [UInt8]) throws {
        let bytes = try H.bytes([
            "$null",
            .dictionary(["$class": H.uid(5), "NSString": H.uid(2), "NSAttributes": H.uid(3), "NSAttributeInfo": H.uid(4)]),
            "abc",
            .dictionary(["$class": H.uid(7), "NS.objects": .array([H.uid(6)])]),  // an NSArray of one dictionary
            .data(info),
            H.classEntry("NSAttributedString"),
            .dictionary(["$class": H.uid(8), "NS.keys": .array([]), "NS.objects": .array([])]),
            H.classEntry("NSArray"),
            H.classEntry("NSDictionary"),
        ])
        let error = expectKeyedError(.invalidValue) {
            try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: bytes)
        }
        #expect(error?.objectIndex == 1)
    }
}
