// Mirrors Sources/TypedStream/TypedStream.docc/ReadingNSArchiverData.md (see ArticleCode in TestSupport)
import Foundation
import KeyedArchive
import Testing
import TypedStream

@Suite("Article: Reading NSArchiver data")
struct ReadingNSArchiverDataArticleTests {
    let bytes: [UInt8]
    let nibBytes: [UInt8]

    init() throws {
        bytes = try typedStreamFixture("crabstep/messages/Mention")
        nibBytes = try typedStreamFixture("fruitsamples-TLayer/MainMenu.nib/objects.nib")
    }

    @Test func theBytesAreAsThePageShowsThem() {
        #expect(Array(bytes.prefix(16)) == header)
        #expect(Array(bytes[16..<19]) == [0x84, 0x01, UInt8(ascii: "@")])
        #expect(bytes.contains(UInt8(ascii: "+")))
    }

    @Test func readsTheBody() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet
        let body = try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? ArchivedAttributedString)
        for run in body.runs {
            print(run.range, body.text(of: run), run.attributes["__kIMMentionConfirmedMention"] ?? "-")
        }
        // 0..<5 Test  -
        // 5..<8 Dad +15558675309
        // 8..<9   -
        // end snippet
        #expect(printed == ["0..<5 Test  -", "5..<8 Dad +15558675309", "8..<9   -"])
    }

    @Test func looksCloser() throws {
        // snippet
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes)
        let root = try unarchiver.decodeObject()
        let version = unarchiver.version(forClassName: "NSMutableAttributedString")   // 0
        let order = unarchiver.header.byteOrder                                     // .littleEndian
        // end snippet
        #expect(root is ArchivedAttributedString)
        #expect(version == 0)
        #expect(order == .littleEndian)
        // snippet
        let registry = ClassRegistry.standard.allowingUnknownClasses()
        let nib = try TypedStreamUnarchiver.unarchiveObject(with: nibBytes, registry: registry) as? ArchivedObject
        let chain = nib?.classChain   // ["NSIBObjectData", "NSObject"]
        // end snippet
        #expect(chain == ["NSIBObjectData", "NSObject"])
    }

    @Test func convertsIt() throws {
        // snippet
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes)
        let again = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: keyed)
        let stream = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        // end snippet
        #expect(again?.runs.map(\.range) == [0..<5, 5..<8, 8..<9])
        #expect(try (TypedStreamUnarchiver.unarchiveObject(with: stream) as? ArchivedAttributedString)?.string == "Test Dad ")
    }
}
