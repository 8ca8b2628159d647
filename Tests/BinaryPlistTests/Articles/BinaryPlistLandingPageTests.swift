// Mirrors Sources/BinaryPlist/BinaryPlist.docc/BinaryPlist.md (see ArticleCode in TestSupport)
import BinaryPlist
import Testing

@Suite("Article: BinaryPlist's landing page")
struct BinaryPlistLandingPageTests {
    @Test func encodesAndDecodesBothFormats() throws {
        // snippet
        let value: PlistValue = ["title": "Notes", "count": 3, "tags": ["a", "b"]]
        let binary = try PropertyList.encode(value, format: .binary)
        let xml = try PropertyList.encode(value, format: .xml)
        let (decoded, format) = try PropertyList.decodeWithFormat(xml)
        // end snippet
        #expect(decoded == value && format == .xml)
        let fromBinary = try PropertyList.decodeWithFormat(binary)
        #expect(fromBinary.value == value && fromBinary.format == .binary)
        #expect(binary.starts(with: Array("bplist00".utf8)))
        #expect(value != ["title": "Notes", "count": true, "tags": ["a", "b"]])
    }
}
