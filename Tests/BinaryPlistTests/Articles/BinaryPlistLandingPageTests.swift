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
        let decoded = try PropertyList.decode(xml)
        let format = PropertyList.detectFormat(xml)   // .xml
        // end snippet
        #expect(decoded == value && format == .xml)
        #expect(try PropertyList.decode(binary) == value && PropertyList.detectFormat(binary) == .binary)
        #expect(binary.starts(with: Array("bplist00".utf8)))
        #expect(value != ["title": "Notes", "count": true, "tags": ["a", "b"]])
    }
}
