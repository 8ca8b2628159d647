import BinaryPlist
import CommandLineSupport
import Foundation
import InspectorCLI
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// `keyedarchive encode`: archive-JSON back to an archive, read by us and by Foundation.
@Suite struct EncodeCommandTests {
    static let document = #"{"class": "Note", "fields": {"title": "Hi", "count": 3, "ratio": {"real": 0.5}, "#
        + #""done": false, "blob": {"data": "AAEC"}, "tags": ["a", {"real": 2.5}, null], "#
        + #""meta": {"dict": {"at": {"date": 5.0}, "id": {"uuid": "54CD5574-E957-4499-8A09-DAB688C0B586"}}}, "#
        + #""links": {"set": [{"url": "https://e.com/x"}]}, "order": {"orderedset": [1, 2]}, "#
        + #""keys": {"dict": [[1, "one"]]}, "self": {"ref": "Note"}, "nothing": null}}"#

    @Test(arguments: ["binary", "xml"])
    func encodeThenDecodeGivesTheSameArchiveJSON(format: String) throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("in.json")
        try Self.document.write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.archive").path
        let encoded = inspect(["encode", input.path, "-o", output, "--format", format])
        #expect(encoded.status == 0)
        #expect(encoded.stdout.isEmpty)
        #expect(encoded.stderr == "")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(PropertyList.detectFormat(bytes)?.rawValue == format)
        let decoded = inspect(["decode", output])
        #expect(decoded.status == 0)
        if format == "binary" {
            #expect(decoded.text == Self.document + "\n")
        } else {
            // The XML writer sorts dictionary keys, as Apple's does: compare as JSON values.
            let ours = try JSONSerialization.jsonObject(with: Data(decoded.stdout)) as? NSDictionary
            let expected = try JSONSerialization.jsonObject(with: Data(Self.document.utf8)) as? NSDictionary
            #expect(ours != nil && ours == expected)
        }
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.classChain(of: 1) == ["Note", "NSObject"])
        #expect(graph.instance(1)?["self"] == .uid(PlistUID(1)))
    }

    @Test func standardClassesAreReadBackByFoundation() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("in.json")
        try (#"{"dict": {"name": "x", "n": 5, "r": {"real": 1.5}, "b": true, "list": [1, "two", null], "#
            + #""when": {"date": 10.0}, "bytes": {"data": "AQI="}, "#
            + #""id": {"uuid": "54CD5574-E957-4499-8A09-DAB688C0B586"}, "link": {"url": "https://e.com/a/b"}, "#
            + #""tags": {"set": ["t"]}}}"#).write(to: input, atomically: true, encoding: .utf8)
        for format in ["binary", "xml"] {
            let output = dir.appendingPathComponent("out.\(format)").path
            #expect(inspect(["encode", input.path, "-o", output, "--format", format]).status == 0)
            let theirs = try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
                            NSUUID.self, NSURL.self, NSNull.self, NSSet.self],
                from: Data(contentsOf: URL(fileURLWithPath: output)))
            let d = try #require(theirs as? NSDictionary, "\(format)")
            #expect(d["name"] as? String == "x")
            #expect((d["n"] as? NSNumber)?.intValue == 5)
            #expect((d["r"] as? NSNumber)?.doubleValue == 1.5)
            #expect((d["b"] as? NSNumber)?.boolValue == true)
            let list = try #require(d["list"] as? NSArray)
            #expect(list.count == 3 && (list[0] as? NSNumber)?.intValue == 1 && list[1] as? String == "two")
            #expect(list[2] is NSNull)
            #expect((d["when"] as? Date)?.timeIntervalSinceReferenceDate == 10)
            #expect(d["bytes"] as? Data == Data([1, 2]))
            #expect((d["id"] as? UUID)?.uuidString == "54CD5574-E957-4499-8A09-DAB688C0B586")
            #expect((d["link"] as? URL)?.absoluteString == "https://e.com/a/b")
            #expect((d["tags"] as? NSSet)?.allObjects as? [String] == ["t"])
        }
    }

    @Test func dashWritesTheArchiveToStdout() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("in.json")
        try #"["a", 1]"#.write(to: input, atomically: true, encoding: .utf8)
        let result = inspect(["encode", input.path, "-o", "-"])
        #expect(result.status == 0)
        #expect(result.stdout.starts(with: Array("bplist00".utf8)))
        #expect(try ArchiveJSON.render(result.stdout) == #"["a", 1]"#)
    }

    @Test(arguments: [
        (#"{"real": 1.5"#, "archive-json: at byte 12: unexpected end of input, expected ',' or '}'"),
        (#"[1, 2.5]"#, #"archive-json: 2.5 is not an integer (write reals as {"real": x})"#),
        (#"{"bogus": 1}"#, #"archive-json: unknown wrapper {"bogus": ...}"#),
        (#"{"ref": "Nowhere"}"#, #"archive-json: {"ref": "Nowhere"} has no enclosing object of that class"#),
    ])
    func malformedArchiveJSONExits65WithOneLineAndWritesNothing(json: String, message: String) throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("bad.json")
        try json.write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.archive")
        let result = inspect(["encode", input.path, "-o", output.path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: \(input.path): \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func invalidUTF8Exits65() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("bad.json")
        try Data([0x22, 0xFF, 0x22]).write(to: input)
        let result = inspect(["encode", input.path, "-o", dir.appendingPathComponent("o").path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stderr.contains("not valid UTF-8"))
    }

    @Test func uncreatableOutputExits73() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("in.json")
        try "1".write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("no/such/dir/out.archive").path
        let result = inspect(["encode", input.path, "-o", output])
        #expect(result.status == ExitStatus.cannotCreate)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: \(output): cannot create: "))
    }
}
