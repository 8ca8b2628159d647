import CommandLineSupport
import Foundation
import KeyedArchive
import Testing
import TestSupport
import TypedStream

/// The inspector on typedstreams: known by their header, with no flag; and `convert`.
@Suite struct TypedStreamCommandTests {
    static let mention = fixture("typedstream/crabstep/messages/Mention")

    @Test func decodePrintsAMessageBodyAsTheKeyedArchiveItConvertsTo() {
        let result = inspect(["decode", Self.mention])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == "")
        #expect(result.text == """
            {"class": "NSMutableAttributedString", "fields": {"NSString": "Test Dad ", "NSAttributes": [{"dict": \
            {"__kIMMessagePartAttributeName": 0}}, {"dict": {"__kIMMentionConfirmedMention": "+15558675309", \
            "__kIMMessagePartAttributeName": 0}}, {"dict": {"__kIMMessagePartAttributeName": 0}}], \
            "NSAttributeInfo": {"data": "BQADAQEC"}}}

            """)
    }

    @Test func auditNamesTheClassesTheStreamWouldInstantiate() {
        let result = inspect(["audit", Self.mention])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.hasPrefix("""
            file: \(Self.mention)
            format: typedstream, audited as the keyed archive it converts to
            typedstream classes: 5
              NSMutableAttributedString
              NSMutableString
              NSDictionary
              NSString
              NSNumber
            archiver: NSKeyedArchiver

            """))
        let json = inspect(["audit", "--json", Self.mention])
        #expect(json.text.contains(#""typedStreamClasses": ["NSMutableAttributedString", "NSMutableString", "NSDictionary", "NSString", "NSNumber"]"#)
                || json.text.contains(#""typedStreamClasses":["NSMutableAttributedString","NSMutableString","NSDictionary","NSString","NSNumber"]"#))
        let refused = inspect(["audit", "--allow", "NSAttributedString,NSString,NSDictionary,NSNumber", Self.mention])
        #expect(refused.status == ExitStatus.failure)
        #expect(refused.text.contains("not allowed: NSArray, NSMutableAttributedString, NSMutableString"))
    }

    @Test func lintDumpAndGraphTakeTypedstreams() {
        let broken = fixture("typedstream/crabstep/broken/ExtraData")
        let lint = inspect(["lint", "--verbose", Self.mention, broken])
        #expect(lint.status == ExitStatus.dataError)
        #expect(lint.text == """
            \(Self.mention): OK (typedstream)
            \(broken): typedstream: byte 121 in object 4 (NSMutableString): a 157-byte string runs past the 120 bytes left

            """)
        let dump = inspect(["dump", Self.mention])
        #expect(dump.status == ExitStatus.success)
        #expect(dump.text.contains("__kIMMentionConfirmedMention"))
        let graph = inspect(["graph", Self.mention, "--format", "dot"])
        #expect(graph.status == ExitStatus.success)
        #expect(graph.text.contains("NSMutableAttributedString"))
        let decode = inspect(["decode", broken])
        #expect(decode.status == ExitStatus.dataError)
        #expect(decode.stderr.contains("typedstream: byte 121 in object 4 (NSMutableString)"))
    }

    @Test func convertWritesEachFormatFromTheOther() throws {
        let directory = try TemporaryDirectory()
        let keyed = directory.file("mention.plist")
        let toKeyed = inspect(["convert", Self.mention, "--to", "keyed", "-o", keyed])
        #expect(toKeyed.status == ExitStatus.success)
        #expect(toKeyed.stdout.isEmpty)
        let keyedBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: keyed)))
        #expect(keyedBytes == (try TypedStreamConversion.keyedArchive(fromTypedStream: try RepositoryFixtures.bytes("typedstream/crabstep/messages/Mention"))))
        let body = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: keyedBytes))
        #expect(body.runs.map(\.range) == [0..<5, 5..<8, 8..<9])
        let back = inspect(["convert", keyed, "--to", "typedstream"])
        #expect(back.status == ExitStatus.success)
        #expect(TypedStreamHeader.isTypedStream(back.stdout))
        let again = try #require(try TypedStreamUnarchiver.unarchiveObject(with: back.stdout) as? ArchivedAttributedString)
        #expect(again.string == "Test Dad ")
        #expect(again.runs.map(\.range) == body.runs.map(\.range))
        let xml = inspect(["convert", Self.mention, "--to", "keyed", "--format", "xml"])
        #expect(xml.text.hasPrefix("<?xml"))
    }

    @Test func convertRefusesWhatItCannotWrite() throws {
        let same = inspect(["convert", Self.mention, "--to", "typedstream"])
        #expect(same.status == ExitStatus.dataError)
        #expect(same.stderr == "Error: \(Self.mention): already a typedstream\n")
        let directory = try TemporaryDirectory()
        let uuid = directory.file("uuid.plist")
        try Data(try KeyedArchiver.archivedData(withRootObject: UUID()) as [UInt8]).write(to: URL(fileURLWithPath: uuid))
        let refused = inspect(["convert", uuid, "--to", "typedstream"])
        #expect(refused.status == ExitStatus.dataError)
        #expect(refused.stderr.contains("typedstream: a value of type UUID"))
        let notStream = inspect(["convert", uuid, "--to", "keyed"])
        #expect(notStream.status == ExitStatus.dataError)
        expectUsageError(["convert", Self.mention, "--to", "json"])
        expectUsageError(["convert", Self.mention])
    }
}
