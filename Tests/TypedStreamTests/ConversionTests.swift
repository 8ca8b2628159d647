import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TypedStream

/// Typedstream to keyed archive and back, through the values both readers give.
@Suite("Typedstream conversion")
struct ConversionTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    @Test(arguments: ["NSString", "NumberInt64", "NSDate", "NSData", "NSArrayWithNull", "NSDictionaryNested", "NSURLRelative",
                      "NestedContainers", "NSSet"])
    func foundationFixturesConvertToTheKeyedArchiveOfTheSameValues(_ name: String) throws {
        let bytes = try typedStreamFixture("crabstep/foundation/" + name)
        // The value as conversion reads it: an NSMutableArray stays one.
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes)
        unarchiver.keepsMutableClasses = true
        let value = try unarchiver.decodeObject()
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes)
        #expect(keyed == (try KeyedArchiver.archivedData(withRootObject: value) as [UInt8]))
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        #expect(try TypedStreamConversion.keyedArchive(fromTypedStream: back) == keyed)
    }

    @Test func unknownClassesBecomeKeyedObjectsOfTheirChainWithUnkeyedValues() throws {
        let bytes = try typedStreamFixture("fruitsamples-TLayer/MainMenu.nib/objects.nib")
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes)
        let root = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: keyed, registry: Self.generic,
                                                                       requiresSecureCoding: false))
        #expect(root.classChain == ["NSIBObjectData", "NSObject"])
        guard case .value(.array(let versions))? = root["$versions"] else { Issue.record("no $versions"); return }
        #expect(versions == [.integer(224), .integer(0)])
        // And back: the keyed archive converts to a typedstream that reads as the original does.
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        #expect(try TypedStreamConversion.keyedArchive(fromTypedStream: back) == keyed)
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic)
        unarchiver.keepsMutableClasses = true
        let original = try TypedStreamArchiver.archivedData(withRootObject: try unarchiver.decodeObject()) as [UInt8]
        #expect(back == original)
    }

    @Test func severalTopLevelGroupsBecomeTypedTopValuesAndBack() throws {
        let archiver = TypedStreamArchiver()
        archiver.encodeObject("one")
        archiver.encodeValue(Int32(2), ofObjCType: "i")
        archiver.encodeObject(nil)
        let stream = try archiver.finishEncoding()
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: stream)
        let top = try #require(try PropertyList.decode(keyed).dictionaryValue?["$top"]?.dictionaryValue)
        #expect(top.keys == ["$types", "$0", "$1", "$2"])
        #expect(top["$types"] == .array(["@", "i", "@"]))
        #expect(top["$1"] == .integer(2))
        let values = try KeyedUnarchiver.withUnarchiver(for: keyed) { u in try (0..<3).map { _ in try u.decodeObject(of: Any.self) } }
        #expect(values[0] as? String == "one")
        #expect(values[1] as? Int == 2)
        #expect(values[2] == nil)
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        #expect(back == stream)
        let again = try TypedStreamUnarchiver(forReadingWith: back).decodeAllValues()
        #expect(again.count == 3)
        #expect(again[0] as? String == "one")
        #expect(again[1] as? Int32 == 2)
        #expect(again[2] == nil)
    }

    @Test func aKeyedArchiveOfUntypedTopValuesConvertsEachToAGroupOfItsType() throws {
        // What this conversion wrote before the groups kept their types: $0, $1, ... without $types.
        let archiver = KeyedArchiver()
        archiver.encode(.object("one"), forArchivedKey: "$0")
        archiver.encode(.object(2), forArchivedKey: "$1")
        let keyed = try archiver.finishEncoding()
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        let again = try TypedStreamUnarchiver(forReadingWith: back).decodeAllValues()
        #expect(again.count == 2)
        #expect(again[0] as? String == "one")
        #expect(again[1] as? Int == 2)
    }

    @Test func keyedArchivesOfUnkeyedObjectsConvertWithInferredTypes() throws {
        let object = ArchivedObject(classChain: ["Legacy", "NSObject"], fields: [
            ("$0", .value(.integer(5))), ("$1", .value(.real(0.5))), ("$2", .object("name")),
        ])
        let keyed = try KeyedArchiver.archivedData(withRootObject: object) as [UInt8]
        let stream = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        let back = try #require(try TypedStreamUnarchiver.unarchiveObject(with: stream, registry: Self.generic) as? ArchivedObject)
        #expect(back.classChain == ["Legacy", "NSObject"])
        guard case .value(.array(let types))? = back["$types"] else { Issue.record("no $types"); return }
        #expect(types == ["q", "d", "@"])
    }

    @Test func keyedArchivesATypedstreamCannotHoldAreErrors() throws {
        let keyed = try KeyedArchiver.archivedData(withRootObject: UUID()) as [UInt8]
        #expect(typedStreamFailure { _ = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed) }?.code == .unsupportedType)
        let broken = typedStreamFailure { _ = try TypedStreamConversion.typedStream(fromKeyedArchive: Array("bplist00".utf8)) }
        #expect(broken?.code == .keyedArchive)
        #expect(broken?.underlying != nil)
    }
}
