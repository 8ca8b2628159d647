import BinaryPlist
import Foundation
import KeyedArchive
import ArchiveInspection
import Testing

/// archive-JSON rendering and reading, and the dump tree, as the inspector's verbs use them.
@Suite("archive-JSON and dump")
struct ArchiveJSONTests {
    @Test func customObjectsPrintAsClassAndFieldsWithSharedReferencesInFull() throws {
        let style = Style(name: "S", strokeWidth: 1.5)
        let contents = Contents(shapes: [Circle(centerX: 1, centerY: 2, radius: 3, style: style),
                                         Rectangle(x: 0, y: 0, width: 2, height: 1, style: style)])
        let json = try ArchiveJSON.render(KeyedArchiver.archivedData(withRootObject: contents))
        let styleJSON = #"{"class": "Style", "fields": {"name": "S", "strokeWidth": {"real": 1.5}}}"#
        #expect(json == #"{"class": "Contents", "fields": {"shapes": ["#
            + #"{"class": "Circle", "fields": {"center.x": {"real": 1.0}, "center.y": {"real": 2.0}, "radius": {"real": 3.0}, "style": "#
            + styleJSON + "}}, "
            + #"{"class": "Rectangle", "fields": {"origin.x": {"real": 0.0}, "origin.y": {"real": 0.0}, "size.width": {"real": 2.0}, "size.height": {"real": 1.0}, "style": "#
            + styleJSON + "}}]}}")
    }

    @Test func standardClassesPrintAsTheIssueDefines() throws {
        let value: [String: Any] = [
            "n": 5, "r": 2.5, "b": true, "s": "x", "date": Date(timeIntervalSinceReferenceDate: 10),
            "data": Data([1, 2]), "uuid": UUID(uuidString: "54cd5574-e957-4499-8a09-dab688c0b586") ?? UUID(),
            "url": URL(string: "b", relativeTo: URL(string: "https://e.com/a/")) ?? URL(fileURLWithPath: "/"),
            "null": ArchivedNull(), "set": Set(["only"]), "ordered": ArchivedOrderedSet(["o"]), "list": [1, 2],
            "numbers": [1: "one"],
        ]
        let json = try ArchiveJSON.render(KeyedArchiver.archivedData(withRootObject: value))
        for fragment in [#""n": 5"#, #""r": {"real": 2.5}"#, #""b": true"#, #""s": "x""#, #""date": {"date": 10.0}"#,
                         #""data": {"data": "AQI="}"#, #""uuid": {"uuid": "54CD5574-E957-4499-8A09-DAB688C0B586"}"#,
                         #""url": {"url": "https://e.com/a/b"}"#, #""null": null"#, #""set": {"set": ["only"]}"#,
                         #""ordered": {"orderedset": ["o"]}"#, #""list": [1, 2]"#, #""numbers": {"dict": [[1, "one"]]}"#] {
            #expect(json.contains(fragment), "\(fragment)")
        }
        #expect(json.hasPrefix(#"{"dict": {"#))
    }

    @Test func mutableAndImmutableFormsPrintAlike() throws {
        let bytes = try HostileArchive.bytes(["$null",
                                              .dictionary(["$class": HostileArchive.uid(2), "NS.string": "text"]),
                                              HostileArchive.classEntry("NSMutableString", ["NSMutableString", "NSString", "NSObject"])])
        #expect(try ArchiveJSON.render(bytes) == #""text""#)
    }

    @Test func encodingArchiveJSONWritesGenericObjectsAndStandardClasses() throws {
        let json = #"{"class": "Note", "fields": {"title": "Hi", "count": 3, "ratio": {"real": 0.5}, "tags": ["a"], "at": {"date": 5.0}, "self": {"ref": "Note"}}}"#
        let bytes = try ArchiveJSON.encode(json)
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.classChain(of: 1) == ["Note", "NSObject"])
        #expect(graph.instance(1)?["count"] == 3)
        #expect(graph.instance(1)?["self"] == .uid(PlistUID(1)))
        #expect(try ArchiveJSON.render(bytes) == json)
        let xml = try ArchiveJSON.encode(json, format: .xml)
        #expect(PropertyList.detectFormat(xml) == .xml)
    }

    @Test func prettyOutputIndentsLikePython() throws {
        let json = try ArchiveJSON.render(KeyedArchiver.archivedData(withRootObject: ["a"]), pretty: true)
        #expect(json == "[\n \"a\"\n]")
    }

    @Test func dumpShowsClassesUIDsAndSharedReferencesOnce() throws {
        let style = Style(name: "S", strokeWidth: 1)
        let contents = Contents(shapes: [Circle(centerX: 0, centerY: 0, radius: 1, style: style),
                                         Circle(centerX: 0, centerY: 0, radius: 2, style: style)])
        let dump = try ArchiveDump.render(KeyedArchiver.archivedData(withRootObject: contents))
        #expect(dump.hasPrefix("$top {\n  root => [1] Contents {\n    shapes => [2] NSArray {\n      NS.objects => (\n        0 => [3] Circle {"))
        #expect(dump.contains("style => [4] Style {"))
        #expect(dump.contains("style => -> [4] Style"))
        #expect(dump.contains("name => [5] \"S\""))
    }
}

/// Found by the `archive-json` fuzz target: the tree form accepted a field named twice (and wrote an object
/// with the key twice, which its own graph form then refused). Keys are unique in every form now.
@Suite("archive-JSON: fuzz regressions")
struct ArchiveJSONFuzzRegressionTests {
    @Test(arguments: [
        #"{"class": "Drawing", "fields": {"created": {"date": 0.0}, "name": "x", "created": {"date": 1.0}}}"#,
        #"{"dict": {"k": 1, "k": 2}}"#,
        #"{"$top": {"root": 1, "root": 2}}"#,
    ])
    func aKeyNamedTwiceIsRefusedInTheTreeFormAsInTheGraphForm(json: String) {
        let error = expectArchiveJSONError { try ArchiveJSON.encode(json) }
        #expect(error.map { "\($0)".contains("duplicate key") } == true)
    }

    /// Found by the `archive-json` fuzz target (session 6, 1,371,197 executions): a tree-form field named
    /// `$class` was written beside the archiver's own `$class`, and the graph form of the result refused the
    /// key twice (`$objects[25]: duplicate field "$class"`). The tree form refuses such a field.
    @Test func aFieldNamedClassIsRefusedInTheTreeForm() {
        let json = #"{"class": "Drawing", "fields": {"name": "x", "$class": {"class": "Other", "fields": {}}}}"#
        let error = expectArchiveJSONError { try ArchiveJSON.encode(json) }
        #expect(error?.description == #"archive-json: fields of "Drawing": "$class" is not a field"#)
    }

    @Test func theSameObjectWithDistinctKeysRoundTripsThroughTheGraphForm() throws {
        let bytes = try ArchiveJSON.encode(#"{"class": "Drawing", "fields": {"created": {"date": 0.0}, "name": "x"}}"#)
        #expect(try ArchiveJSON.encode(try ArchiveJSON.renderGraph(bytes)) == bytes)
    }
}
