// Mirrors Sources/TypedStream/TypedStream.docc/TypedStream.md (see ArticleCode in TestSupport)
import Foundation
import KeyedArchive
import Testing
import TypedStream

@Suite("Article: TypedStream")
struct TypedStreamLandingPageTests {
    @Test func readsAMessageBodyAndConvertsADocument() throws {
        let attributedBody = try typedStreamFixture("crabstep/messages/Mention")
        // snippet
        let body = try TypedStreamUnarchiver.unarchiveObject(with: attributedBody) as? ArchivedAttributedString
        let text = body?.string
        // end snippet
        #expect(text == "Test Dad ")
        let oldDocument = try typedStreamFixture("crabstep/foundation/NSDictionaryNested")
        // snippet
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: oldDocument)
        // end snippet
        #expect(keyed.starts(with: Array("bplist00".utf8)))
    }
}
