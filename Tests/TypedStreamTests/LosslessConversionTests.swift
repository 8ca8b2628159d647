import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TypedStream

/// Conversion keeps what the archives hold: mutable classes (with Apple's chains, shared where they are
/// shared), and the groups of a stream of several.
@Suite("Lossless conversion")
struct LosslessConversionTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    /// The `$classes` chains of a keyed archive, each once.
    static func chains(_ keyed: [UInt8]) throws -> Set<[String]> {
        let objects = try #require(try PropertyList.decode(keyed).dictionaryValue?["$objects"]?.arrayValue)
        return Set(objects.compactMap { $0.dictionaryValue?["$classes"]?.arrayValue?.compactMap(\.stringValue) })
    }

    /// How many objects of `className` a keyed archive holds.
    static func count(_ className: String, in keyed: [UInt8]) throws -> Int {
        let objects = try #require(try PropertyList.decode(keyed).dictionaryValue?["$objects"]?.arrayValue)
        let classUIDs = Set(objects.indices.filter { objects[$0].dictionaryValue?["$classname"]?.stringValue == className })
        return objects.count { object in
            guard case .uid(let uid)? = object.dictionaryValue?["$class"] else { return false }
            return classUIDs.contains(Int(uid.value))
        }
    }

    @Test func aMessagesBodyKeepsItsMutableAttributedStringAndMutableString() throws {
        let body = try typedStreamFixture("crabstep/messages/Mention")
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: body)
        let chains = try Self.chains(keyed)
        #expect(chains.contains(["NSMutableAttributedString", "NSAttributedString", "NSObject"]))
        #expect(chains.contains(["NSMutableString", "NSString", "NSObject"]))
        #expect(!chains.contains(["NSAttributedString", "NSObject"]))
        // And back: the stream names the classes the original does, first use first.
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        let original = try TypedStreamConversion.keyedArchiveAndClasses(fromTypedStream: body)
        let again = try TypedStreamConversion.keyedArchiveAndClasses(fromTypedStream: back)
        #expect(again.classes == original.classes)
        #expect(again.classes == ["NSMutableAttributedString", "NSMutableString", "NSDictionary", "NSString", "NSNumber"])
        #expect(again.keyed == keyed)
    }

    @Test(arguments: ["JanX2-Rotater/MainMenu.nib/objects.nib", "JanX2-Rotater/MyDocument.nib/objects.nib",
                      "fruitsamples-Simple-Outline/MainMenu.nib/objects.nib", "fruitsamples-TLayer/MainMenu.nib/objects.nib",
                      "fruitsamples-TLayer/TLayerDemo.nib/objects.nib"])
    func anOldNibKeepsItsMutableCollectionsBothWays(_ path: String) throws {
        let nib = try typedStreamFixture(path)
        let original = try TypedStreamConversion.keyedArchiveAndClasses(fromTypedStream: nib)
        for name in ["NSMutableArray", "NSMutableSet", "NSMutableString"] { #expect(original.classes.contains(name)) }
        let chains = try Self.chains(original.keyed)
        #expect(chains.contains(["NSMutableArray", "NSArray", "NSObject"]))
        #expect(chains.contains(["NSMutableSet", "NSSet", "NSObject"]))
        #expect(chains.contains(["NSMutableString", "NSString", "NSObject"]))
        // typedstream -> keyed -> typedstream -> keyed: the same classes, the same objects, the same bytes.
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: original.keyed)
        let again = try TypedStreamConversion.keyedArchiveAndClasses(fromTypedStream: back)
        #expect(again.classes == original.classes)
        #expect(try Self.count("NSMutableArray", in: again.keyed) == (try Self.count("NSMutableArray", in: original.keyed)))
        #expect(again.keyed == original.keyed)
    }

    @Test func aColourListComesBackWithItsGroupsAndTheirTypes() throws {
        let list = try typedStreamFixture("pytypedstream/Emacs.clr")
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: list)
        let top = try #require(try PropertyList.decode(keyed).dictionaryValue?["$top"]?.dictionaryValue)
        #expect(top["root"] == nil)
        let typeList = top["$types"]?.arrayValue?.compactMap { $0.stringValue }
        let types = try #require(typeList)
        // i (the version), @i (the name, nil here, and the number of colours), then a @@ group per colour
        // (its name and its NSColor), as pytypedstream reads the file.
        #expect(types.count == 754)
        #expect(Array(types.prefix(3)) == ["i", "@i", "@@"])
        #expect(types.dropFirst(2).allSatisfy { $0 == "@@" })
        // The leading integers stay integers inline in $top, not NSNumber objects.
        #expect(top["$0"] == .integer(1))
        #expect(top["$2"] == .integer(752))
        // And back: byte for byte the stream NSColorList wrote.
        #expect(try TypedStreamConversion.typedStream(fromKeyedArchive: keyed) == list)
    }

    /// A -> C -> W (a mutable array holding A), and A -> B -> W again: B's reference to W, read before, is a
    /// reference back to A, so B joins A's cycle and everything is freed once the caller lets go.
    @Test func aMutableArrayReferencedAgainOnACycleLeavesNoReferenceCycle() throws {
        let a = ArchivedObject(classChain: ["A", "NSObject"])
        let b = ArchivedObject(classChain: ["B", "NSObject"])
        let c = ArchivedObject(classChain: ["C", "NSObject"])
        let w = ArchivedMutableObject(className: "NSMutableArray", value: [a] as [Any])
        c.fields = [(TypedStreamUnarchiver.typesKey, .value(.array(["@"]))), ("$0", .object(w))]
        b.fields = [(TypedStreamUnarchiver.typesKey, .value(.array(["@"]))), ("$0", .object(w))]
        a.fields = [(TypedStreamUnarchiver.typesKey, .value(.array(["@@"]))), ("$0", .object(c)), ("$1", .object(b))]
        let stream = try TypedStreamArchiver.archivedData(withRootObject: a) as [UInt8]
        a.fields = []
        w.value = []  // the cycle written, broken
        weak var readA: ArchivedObject?
        weak var readB: ArchivedObject?
        weak var readW: ArchivedMutableObject?
        try {
            let unarchiver = try TypedStreamUnarchiver(forReadingWith: stream, registry: Self.generic)
            unarchiver.keepsMutableClasses = true
            let root = try #require(try unarchiver.decodeObject() as? ArchivedObject)
            readA = root
            guard case .object(let bValue?)? = root["$1"], let bObject = bValue as? ArchivedObject,
                  case .object(let wValue?)? = bObject["$0"], let wObject = wValue as? ArchivedMutableObject else {
                Issue.record("B or W is missing")
                return
            }
            readB = bObject
            readW = wObject
            #expect((wObject.value as? [Any])?.first as? ArchivedObject === root)
        }()
        #expect(readA == nil)
        #expect(readB == nil)
        #expect(readW == nil)
    }

    @Test func aStreamOfOneNonObjectGroupKeepsItsType() throws {
        let archiver = TypedStreamArchiver()
        archiver.encodeValues([Int32(7), UInt32(9)], ofObjCTypes: "iI")
        let stream = try archiver.finishEncoding()
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: stream)
        let top = try #require(try PropertyList.decode(keyed).dictionaryValue?["$top"]?.dictionaryValue)
        #expect(top == ["$types": .array(["iI"]), "$0": .integer(7), "$1": .integer(9)])
        #expect(try TypedStreamConversion.typedStream(fromKeyedArchive: keyed) == stream)
    }
}
