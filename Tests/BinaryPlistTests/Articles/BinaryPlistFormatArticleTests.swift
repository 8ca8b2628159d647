// Mirrors Sources/BinaryPlist/BinaryPlist.docc/BinaryPlistFormat.md (see ArticleCode in TestSupport)
import BinaryPlist
import Testing
import TestSupport

@Suite("Article: The binary property list format")
struct BinaryPlistFormatArticleTests {
    static let page = "Sources/BinaryPlist/BinaryPlist.docc/BinaryPlistFormat.md"

    /// 16 bytes a line: offset, then the bytes in hex.
    static func hexLines(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: bytes.count, by: 16).map { start in
            let line = bytes[start..<min(start + 16, bytes.count)]
            let offset = String(start, radix: 16)
            return String(repeating: "0", count: 4 - offset.count) + offset + "  "
                + line.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
        }.joined(separator: "\n")
    }

    @Test func aSmallDictionaryByteByByte() throws {
        // snippet
        let value: PlistValue = ["name": "Ada", "born": 1815]
        let bytes = try PropertyList.encode(value, format: .binary)
        print(bytes.count)
        // end snippet
        #expect(bytes.count == 67)
        let document = try BinaryPlistDocument(bytes)
        #expect(document.objectCount == 5 && document.topObject == 0 && document.trailer.offsetTableOffset == 30)
        let shown = ArticleCode.fencedBlocks(inMarkdown: try ArticleCode.text(Self.page)).filter { $0.language == "text" }
        #expect(shown.first?.block.text == Self.hexLines(bytes))
        #expect(try PropertyList.decode(bytes) == value)
        // The same value always gives the same bytes.
        #expect(try PropertyList.encode(["name": "Ada", "born": 1815], format: .binary) == bytes)
    }

    @Test func theEventsOfADocumentArePulledOneAtATime() throws {
        let bytes = try PropertyList.encode(["name": "Ada", "born": 1815], format: .binary)
        // snippet
        let document = try BinaryPlistDocument(bytes)
        var strings = 0
        try document.withEvents { reader in
            while let event = try reader.next() {
                if case .string = event { strings += 1 }
            }
        }
        // end snippet
        #expect(strings == 3)   // "name", "Ada", "born"
    }

    @Test func aDamagedFileIsAnErrorThatSaysWhere() throws {
        let bytes = try PropertyList.encode(["name": "Ada", "born": 1815], format: .binary)
        var damaged = bytes
        damaged[8] = 0xD9   // the dictionary claims 9 entries
        var message = ""
        // snippet
        var limits = PlistLimits.default
        limits.maxDepth = 16
        limits.stringPolicy = .strict
        do {
            _ = try PropertyList.decode(damaged, limits: limits)
        } catch let error as PlistError {
            message = error.description
        }
        // end snippet
        #expect(message == "bplist: object 0 at byte 13: reference 84 is not below the object count 5")
    }
}
