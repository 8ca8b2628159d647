import Foundation
import KeyedArchive
import Testing
import TypedStream

/// The Foundation classes as Apple's `NSArchiver` wrote them (crabstep's generated test data): the values
/// the keyed reader gives for the same classes, and, where our writer makes the same choices, the same bytes.
@Suite("Foundation classes in typedstreams")
struct FoundationFixtureTests {
    func root(_ name: String) throws -> Any? {
        try TypedStreamUnarchiver.unarchiveObject(with: try typedStreamFixture("crabstep/foundation/" + name))
    }

    @Test func stringsNumbersAndDates() throws {
        #expect(try root("NSString") as? String == "Hello, world")
        #expect(try root("NumberInt") as? Int == 42)
        #expect(try root("NumberInt64") as? Int == -9_000_000_000)
        #expect(try root("NumberFloat") as? Double == 3.5)
        #expect(try root("NumberDouble") as? Double == 100.5)
        // Apple writes a BOOL as type c: an integer, as NSUnarchiver gives it.
        #expect(try root("NumberBool") as? Int == 1)
        #expect((try root("NSDate") as? Date)?.timeIntervalSinceReferenceDate == 21_692_800)
        #expect(try root("NSData") as? Data == Data([0xde, 0xad, 0xbe, 0xef, 0x00, 0x7f]))
    }

    @Test func collections() throws {
        let withNull = try #require(try root("NSArrayWithNull") as? [Any])
        #expect(withNull.count == 3)
        #expect(withNull[0] as? String == "x")
        #expect(withNull[1] is ArchivedNull)
        #expect(withNull[2] as? String == "y")
        #expect(try root("NSArrayEmpty") as? [Any] != nil)
        #expect(try root("NSSet") as? Set<AnyHashable> == ["s1", "s2"])
        let d = try #require(try root("NSDictionary") as? [AnyHashable: Any])
        #expect(d.count == 2)
        #expect(d["k1"] as? Int == 1)
        #expect(d["k2"] as? String == "v")
    }

    @Test func urlsKeepTheirBase() throws {
        let url = try #require(try root("NSURLRelative") as? URL)
        #expect(url.relativeString == "page.html")
        #expect(url.baseURL?.absoluteString == "https://example.com/dir/")
        #expect(url.absoluteString == "https://example.com/dir/page.html")
    }

    @Test func attributedStringOfOneEmptyRun() throws {
        let a = try #require(try root("NSAttributedString") as? ArchivedAttributedString)
        #expect(a.string == "Hello, world")
        #expect(a.runs.count == 1)
        #expect(a.runs[0].range == 0..<12)
        #expect(a.runs[0].attributes.isEmpty)
    }

    @Test(arguments: ["NSString", "NSArrayEmpty", "NSData", "NSDate", "NSArrayWithNull", "NSURLRelative"])
    func ourWriterWritesAppleBytes(_ name: String) throws {
        let bytes = try typedStreamFixture("crabstep/foundation/" + name)
        let value = try TypedStreamUnarchiver.unarchiveObject(with: bytes)
        #expect(try TypedStreamArchiver.archivedData(withRootObject: value) as [UInt8] == bytes)
    }

    @Test func bigEndianNibsRecordTheirSystemAndClassVersions() throws {
        let bytes = try typedStreamFixture("fruitsamples-TLayer/MainMenu.nib/objects.nib")
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: .standard.allowingUnknownClasses())
        #expect(unarchiver.header == TypedStreamHeader(streamerVersion: 4, byteOrder: .bigEndian, systemVersion: 1000))
        #expect(unarchiver.version(forClassName: "NSIBObjectData") == nil)
        let root = try #require(try unarchiver.decodeObject() as? ArchivedObject)
        #expect(root.classChain == ["NSIBObjectData", "NSObject"])
        #expect(unarchiver.version(forClassName: "NSIBObjectData") == 224)
        #expect(unarchiver.version(forClassName: "NSObject") == 0)
        #expect(root[TypedStreamUnarchiver.versionsKey].map { "\($0)" }?.contains("224") == true)
        #expect(unarchiver.isAtEnd)
    }
}
