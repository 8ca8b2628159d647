import TestSupport
import BinaryPlist
import CommandLineSupport
import Foundation
import InspectorCLI
import KeyedArchive
import Testing

/// `keyedarchive decode --graph` and `encode` of the graph form, and the tree form's budget in
/// memory.
@Suite struct DecodeGraphCommandTests {
    @Test func sharedObjectsAndCyclesPrintOnceWithTheirIndex() {
        let result = inspect(["decode", "--graph", fixture("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist")])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.text == """
            {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": {"$ref": 1}}, "$objects": [
            {"$id": 0, "value": "$null"},
            {"$id": 1, "class": "NSDictionary", "fields": {"NS.keys": [{"$ref": 2}, {"$ref": 3}], "NS.objects": [{"$ref": 4}, {"$ref": 4}], "$class": {"$ref": 7}}},
            {"$id": 2, "value": "copyOne"},
            {"$id": 3, "value": "copyTwo"},
            {"$id": 4, "class": "NSURL", "fields": {"NS.base": {"$ref": 0}, "$class": {"$ref": 6}, "NS.relative": {"$ref": 5}}},
            {"$id": 5, "value": "https://example.com/foo/bar?a=b#hash"},
            {"$id": 6, "fields": {"$classname": "NSURL", "$classes": ["NSURL", "NSObject"]}},
            {"$id": 7, "fields": {"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]}}
            ]}

            """)
        let cycle = inspect(["decode", "--graph", fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(cycle.status == 0)
        #expect(cycle.text.contains(#"{"$id": 1, "class": "crap.Foo", "fields": {"$class": {"$ref": 5}, "recursive": {"$ref": 1}, "title": {"$ref": 2}}},"#))
    }

    @Test func prettyIndentsTheGraphFormOneSpacePerLevel() {
        let result = inspect(["decode", "--graph", "--pretty", fixture("keyed/michaelwright235-nskeyedunarchiver/circularReference.plist")])
        #expect(result.status == 0)
        #expect(result.text.hasPrefix("{\n \"$archiver\": \"NSKeyedArchiver\",\n \"$version\": 100000,\n \"$top\": {\n  \"root\": {\n   \"$ref\": 1\n  }\n },\n \"$objects\": [\n  {\n   \"$id\": 0,\n   \"value\": \"$null\"\n  },\n"))
        #expect(result.text.hasSuffix("\n ]\n}\n"))
    }

    /// Every nib prints with the tree form's default budget or with `--graph` without flags; `--graph`
    /// always prints it.
    @Test(arguments: appleArchives.filter { $0.hasSuffix(".nib") })
    func everyNibDecodesWithTheDefaultBudgetOrWithGraph(file: String) throws {
        let tree = inspect(["decode", fixture(file)])
        #expect(tree.status == (file == explodingNib ? ExitStatus.dataError : 0))
        let graph = inspect(["decode", "--graph", fixture(file)])
        #expect(graph.status == 0)
        #expect(graph.stderr == "")
        let objects = try ArchiveGraph(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture(file))))).objects
        #expect(graph.text.split(separator: "\n").count == objects.count + 2)
    }

    @Test(arguments: ["keyed/Flycut-nib/MainMenu.keyedobjects.nib", "keyed/kiler129-NSKeyedUnarchiver/xml/miscTypes.xml.plist",
                      "keyed/go-ios/XCTCapabilities.bin", "keyed/danielpaulus-nskeyedarchiver/arrays.bin"])
    func decodeGraphThenEncodeKeepsTheGraph(file: String) throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let json = dir.appendingPathComponent("graph.json")
        let decoded = inspect(["decode", "--graph", fixture(file)])
        #expect(decoded.status == 0)
        try Data(decoded.stdout).write(to: json)
        let output = dir.appendingPathComponent("again.archive")
        let encoded = inspect(["encode", json.path, "-o", output.path])
        #expect(encoded.status == 0)
        #expect(encoded.stderr == "")
        let original = try ArchiveGraph(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture(file)))))
        let again = try ArchiveGraph(bytes: [UInt8](Data(contentsOf: output)))
        #expect(again == original)
        // What encode wrote is ours: decode --graph then encode gives it back byte for byte.
        let second = inspect(["decode", "--graph", output.path])
        try Data(second.stdout).write(to: json)
        #expect(inspect(["encode", json.path, "-o", "-"]).stdout == [UInt8](try Data(contentsOf: output)))
    }

    @Test func maxObjectsIsOnlyForTheTreeForm() {
        expectUsageError(["decode", "--graph", "--max-objects", "5", fixture("keyed/bpylist2/circular_archive.plist")])
        let result = inspect(["decode", "--graph", "--max-objects", "5", fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(result.stderr.hasPrefix("Error: --max-objects is for the tree form; the graph form prints each object once.\n"))
    }

    @Test func malformedGraphFormExits65WithOneLineAndWritesNothing() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("bad.json")
        try #"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": {"$ref": 9}}, "$objects": [{"$id": 0, "value": "$null"}]}"#
            .write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.archive")
        let result = inspect(["encode", input.path, "-o", output.path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stderr == "Error: \(input.path): archive-json: graph form: $top.root: {\"$ref\": 9} is not an index below the 1 objects\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func aFailedWriteToStdoutStopsTheOutputWith74() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let path = dir.appendingPathComponent("diamonds.plist").path
        try Data(DiamondChain.bytes(length: 16)).write(to: URL(fileURLWithPath: path))
        let err = OutputCapture()
        for arguments in [["decode", "--max-objects", "70000", path], ["decode", "--graph", path]] {
            var writes = 0
            let stdout = OutputSink(reportingFailures: { _ in
                writes += 1
                return EPIPE
            })
            let status = Inspector.run(arguments: arguments, environment: [:], io: CommandIO(stdout: stdout, stderr: err.sink))
            #expect(status == ExitStatus.ioError)
            #expect(writes == 1)
        }
        #expect(err.text.contains("cannot write to standard output: "))
    }

    @Test func helpDescribesTheGraphForm() {
        let decode = inspect(["decode", "--help"])
        #expect(decode.status == 0)
        #expect(decode.text.contains("\nUSAGE: keyedarchive decode [--graph] [--pretty] [--max-objects <n>] <file>\n"))
        #expect(decode.text.contains("\n  --graph                 Print the graph form: every object once, with its\n"))
        #expect(decode.text.contains("\nThe graph form (--graph) prints every object once, in index order, one per line:\n"))
        #expect(decode.text.contains("graph (a compiled nib) can be exponentially larger than its archive: print those\nwith --graph."))
        let encode = inspect(["encode", "--help"])
        #expect(encode.status == 0)
        #expect(encode.text.contains("\nThe graph form ('decode --graph', an object with $objects): every object is\n"))
        #expect(encode.text.contains("this package wrote comes back byte for byte, but for some conditional references\nand Codable nested containers, which keep their graph.\n"))
    }

    /// Runs the built `keyedarchive` with `arguments` in a shell that first limits the process's data (its heap
    /// and anonymous mappings, `ulimit -d`) to `dataKiB`: an allocation past it aborts the process.
    private func runLimited(_ arguments: [String], dataKiB: Int) throws -> (status: Int32, stdout: String, seconds: Double) {
        let executable = try Spawn.keyedarchive
        let (child, seconds) = try Stopwatch.measure {
            try Spawn.start("/bin/sh", ["-c", "ulimit -d \(dataKiB) && exec \"$0\" \"$@\"", executable] + arguments,
                            environment: [:]).finish()
        }
        return (child.status, child.stdout, seconds)
    }

    /// The real binary on the most shared nib, its data limited to 16 MiB: the graph form prints it; the tree
    /// form with a budget raised to 10 million objects refuses it at once (before this issue it built the
    /// whole tree, and a raised budget grew to 23 GB).
    @Test(.disabled(if: Sanitizers.thread, "ulimit -d leaves no room for the thread sanitizer's runtime"))
    func theSharedNibStaysWithinMemoryAndTimeInARealProcess() throws {
        #expect(try runLimited(["--version"], dataKiB: 16 << 10).status == 0)
        let graph = try runLimited(["decode", "--graph", fixture(explodingNib)], dataKiB: 16 << 10)
        #expect(graph.status == 0)
        #expect(graph.stdout.utf8.count == 189_633)
        #expect(graph.seconds < 10)
        let tree = try runLimited(["decode", "--max-objects", "10000000", fixture(explodingNib)], dataKiB: 16 << 10)
        #expect(tree.status == ExitStatus.dataError)
        #expect(tree.stdout.isEmpty)
        #expect(tree.seconds < 10)
    }

    /// A generated archive of 100,000 objects, each shared twice (the tree form would print about 1.6^100000
    /// objects): the graph form prints it with its data limited to 4 MiB for the process and 3 times the
    /// archive.
    @Test(.disabled(if: Sanitizers.thread, "ulimit -d leaves no room for the thread sanitizer's runtime"))
    func aLargeHeavilySharedArchivePrintsInMemoryLinearInItsSize() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let path = dir.appendingPathComponent("ladder.archive").path
        let bytes = try ladder(length: 100_000)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let limit = (4 << 10) + 3 * bytes.count / 1024
        let graph = try runLimited(["decode", "--graph", path], dataKiB: limit)
        #expect(graph.status == 0)
        #expect(graph.stdout.split(separator: "\n").count == 100_000 + 4)
        #expect(graph.stdout.utf8.count < 16 * bytes.count)
        let tree = try runLimited(["decode", path], dataKiB: 64 << 10)
        #expect(tree.status == ExitStatus.dataError)
        #expect(tree.stdout.isEmpty)
    }

    /// `$objects` = $null, Node 1 ... Node `length`, the class; node i refers to i+1 and i+2.
    private func ladder(length: Int) throws -> [UInt8] {
        var objects: [PlistValue] = ["$null"]
        let classUID = PlistValue.uid(PlistUID(UInt64(length + 1)))
        for i in 1...length {
            var node: PlistDictionary = ["$class": classUID]
            if i + 1 <= length { node.append(key: "a", value: .uid(PlistUID(UInt64(i + 1)))) }
            if i + 2 <= length { node.append(key: "b", value: .uid(PlistUID(UInt64(i + 2)))) }
            objects.append(.dictionary(node))
        }
        objects.append(["$classname": "Node", "$classes": ["Node", "NSObject"]])
        return try ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: objects).encoded()
    }
}
