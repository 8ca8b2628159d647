import Foundation
import KeyedArchive
import Testing
import TypedStream

/// Messages' `attributedBody` blobs (chat.db), from crabstep's test data: their text and attribute runs,
/// exactly, Messages' attributes as ordinary values.
@Suite("Messages bodies")
struct MessagesBodyTests {
    func body(_ name: String) throws -> ArchivedAttributedString {
        let bytes = try typedStreamFixture("crabstep/messages/" + name)
        return try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? ArchivedAttributedString)
    }

    func attributes(_ run: ArchivedAttributedString.Run) -> [String: String] {
        run.attributes.mapValues { "\(type(of: $0)):\($0)" }
    }

    @Test func mentionHasThreeRunsAndTheConfirmedMentionAsAString() throws {
        let b = try body("Mention")
        #expect(b.string == "Test Dad ")
        #expect(b.runs.map(\.range) == [0..<5, 5..<8, 8..<9])
        #expect(attributes(b.runs[0]) == ["__kIMMessagePartAttributeName": "Int:0"])
        #expect(attributes(b.runs[1]) == ["__kIMMessagePartAttributeName": "Int:0",
                                          "__kIMMentionConfirmedMention": "String:+15558675309"])
        #expect(attributes(b.runs[2]) == ["__kIMMessagePartAttributeName": "Int:0"])
        #expect(b.text(of: b.runs[1]) == "Dad")
    }

    @Test func attachmentNamesItsTransferAndInlineSize() throws {
        let b = try body("Attachment")
        #expect(b.string.utf16.count == 78)
        #expect(b.string.hasPrefix("\u{FFFC}This is how the notes look to me fyi"))
        #expect(b.runs.map(\.range) == [0..<1, 1..<78])
        #expect(attributes(b.runs[0]) == [
            "__kIMBaseWritingDirectionAttributeName": "Int:-1",
            "__kIMFileTransferGUIDAttributeName": "String:at_0_2E5F12C3-E649-48AA-954D-3EA67C016BCC",
            "__kIMFilenameAttributeName": "String:Messages Image(785748029).png",
            "__kIMInlineMediaHeightAttributeName": "Double:1139.0",
            "__kIMInlineMediaWidthAttributeName": "Double:952.0",
            "__kIMMessagePartAttributeName": "Int:0",
        ])
        #expect(attributes(b.runs[1]) == ["__kIMBaseWritingDirectionAttributeName": "Int:-1",
                                          "__kIMMessagePartAttributeName": "Int:1"])
    }

    @Test func attachmentWithInt16SizesReadsThemAsIntegers() throws {
        let b = try body("AttachmentI16")
        #expect(b.string == "\u{FFFC}")
        #expect(b.runs.count == 1)
        #expect(b.runs[0].attributes["__kIMInlineMediaHeightAttributeName"] as? Int == 600)
        #expect(b.runs[0].attributes["__kIMInlineMediaWidthAttributeName"] as? Int == 660)
        #expect(b.runs[0].attributes["__kIMFileTransferGUIDAttributeName"] as? String
                == "at_0_BE588799-C4BC-47DF-A56D-7EE90C74911D")
    }

    @Test func longMessageIsReadWhole() throws {
        // 2359 UTF-16 units: the string's length and the run's length take the 0x81 (16-bit) prefix.
        let b = try body("LongMessage")
        #expect(b.string.utf16.count == 2359)
        #expect(b.string.hasPrefix("Sed nibh velit, sodales et facilisis ut"))
        #expect(b.runs.map(\.range) == [0..<2359])
        #expect(b.runs[0].attributes["__kIMMessagePartAttributeName"] as? Int == 0)
    }

    @Test func multiPartNumbersEachPart() throws {
        let b = try body("MultiPart")
        #expect(b.string == "\u{FFFC}test 1\u{FFFC}test 2 \u{FFFC}test 3")
        #expect(b.runs.map(\.range) == [0..<1, 1..<7, 7..<8, 8..<15, 15..<16, 16..<22])
        #expect(b.runs.map { $0.attributes["__kIMMessagePartAttributeName"] as? Int } == [0, 1, 2, 3, 4, 5])
        #expect(b.runs.map { $0.attributes["__kIMFileTransferGUIDAttributeName"] as? String } == [
            "at_0_F0668F79-20C2-49C9-A87F-1B007ABB0CED", nil, "at_2_F0668F79-20C2-49C9-A87F-1B007ABB0CED", nil,
            "at_4_F0668F79-20C2-49C9-A87F-1B007ABB0CED", nil,
        ])
    }

    @Test func rangesCountUTF16UnitsOfEmojiAndArabic() throws {
        let emoji = try body("EmojiBoldUnderline")
        #expect(emoji.string == "🅱️Bold_Underline")
        #expect(emoji.runs.map(\.range) == [0..<3, 3..<7, 7..<8, 8..<17])
        #expect(emoji.text(of: emoji.runs[1]) == "Bold")
        #expect(emoji.runs[1].attributes["__kIMTextBoldAttributeName"] as? Int == 1)
        #expect(emoji.runs[3].attributes["__kIMTextUnderlineAttributeName"] as? Int == 1)
        let arabic = try body("Arabic")
        #expect(arabic.string == "أهلاً بالعالم")
        #expect(arabic.runs.map(\.range) == [0..<13])
    }

    @Test(arguments: ["Mention", "Attachment", "LongMessage", "MultiPart", "EmojiBoldUnderline"])
    func convertsToTheKeyedArchiveOfTheSameRuns(_ name: String) throws {
        let b = try body(name)
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: try typedStreamFixture("crabstep/messages/" + name))
        let k = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: keyed))
        #expect(k.string == b.string)
        #expect(k.runs.map(\.range) == b.runs.map(\.range))
        #expect(k.runs.map(attributes) == b.runs.map(attributes))
    }
}
