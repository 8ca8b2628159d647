import BinaryPlist
import ArchiveInspection
import CommandLineSupport
import Foundation
import InspectorCLI
import Testing
import TestSupport

@Suite struct PlistCommandTests {
    @Test(arguments: ["bplist/dd-plist/test1-binary.plist", "bplist/libplist-LGPL/uid.bplist",
                      "keyed/kiler129-NSKeyedUnarchiver/xml/scalarTypes.xml.plist"])
    func printsBinaryAndXMLAsPlistJSON(file: String) throws {
        let path = fixture(file)
        let result = inspect(["plist", path])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.text.hasSuffix("\n"))
        let expected = try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(try PlistJSON.parse(result.text) == expected)
        #expect(result.text == PlistJSON.render(expected) + "\n")
    }

    @Test func printsExactlyWhatThePythonToolPrintsForAFixture() throws {
        // The reference was written by plist-json.py with indent=1; its compact form is what the tool prints.
        let path = fixture("bplist/bpylist2/dict_nested.plist")
        let reference = try String(contentsOfFile: path + ".plist.json", encoding: .utf8)
        let result = inspect(["plist", path])
        #expect(result.status == 0)
        #expect(result.text == PlistJSON.render(try PlistJSON.parse(reference)) + "\n")
        #expect(result.text.contains(#"{"dict": {"#))
    }

    @Test(arguments: ["binary", "xml"])
    func writesThePlistThatJSONDescribes(format: String) throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let value: PlistValue = ["n": .integer(PlistInteger(UInt64.max)), "r": .real(0.5), "a": ["x", true],
                                 "d": .data([1, 2, 3]), "t": .date(PlistDate(secondsSinceReferenceDate: 3600))]
        let input = dir.appendingPathComponent("in.json")
        try PlistJSON.render(value).write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.plist")
        let result = inspect(["plist", "--from-json", input.path, "-o", output.path, "--format", format])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "")
        let written = [UInt8](try Data(contentsOf: output))
        let decoded = try PropertyList.decodeWithFormat(written)
        #expect(decoded.value == value)
        #expect(decoded.format.rawValue == format)
    }

    @Test func fromJSONDefaultsToBinaryAndDashWritesToStdout() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("in.json")
        try #"{"dict": {"k": {"uid": 3}}}"#.write(to: input, atomically: true, encoding: .utf8)
        let result = inspect(["plist", "--from-json=\(input.path)", "--output", "-"])
        #expect(result.status == 0)
        #expect(result.stdout.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyList.decode(result.stdout) == ["k": .uid(PlistUID(3))])
    }

    @Test(arguments: [
        ["plist"],
        ["plist", "a", "b"],
        ["plist", "a", "--format", "xml"],
        ["plist", "a", "-o", "out"],
        ["plist", "--from-json", "in.json"],
        ["plist", "--from-json", "in.json", "-o", "out", "extra"],
        ["plist", "--from-json", "in.json", "-o", "out", "--format", "json"],
        ["plist", "--bogus"],
        ["frobnicate"],
    ])
    func usageErrorsExit64WithUsageOnStderr(arguments: [String]) {
        expectUsageError(arguments)
    }

    @Test(arguments: [
        "bplist/dd-plist/github-issue42.plist", "bplist/rust-plist/binary_circular_array.plist",
        "keyed/danielpaulus-nskeyedarchiver/broken/xml/broken_plist.xml", "README.md",
    ])
    func malformedInputExits65WithOneLineNamingTheFile(file: String) throws {
        let path = fixture(file)
        let result = inspect(["plist", path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stdout.isEmpty)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let error = #expect(throws: PlistError.self) { try PropertyList.decode(bytes) }
        #expect(result.stderr == "Error: \(path): \(error.map(String.init(describing:)) ?? "?")\n")
        #expect(result.stderr.hasSuffix("\n"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func malformedJSONExits65WithTheJSONOffset() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("bad.json")
        try #"[1, 2.5]"#.write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.plist")
        let result = inspect(["plist", "--from-json", input.path, "-o", output.path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stderr == "Error: \(input.path): plist-json: at byte 4: a real must be written {\"real\": 2.5}\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func valueTheFormatCannotHoldExits65() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("null.json")
        try "[null]".write(to: input, atomically: true, encoding: .utf8)
        let result = inspect(["plist", "--from-json", input.path, "-o", dir.appendingPathComponent("o").path, "--format", "xml"])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stderr.hasPrefix("Error: \(input.path): "))
    }

    @Test func missingInputExits66() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let missing = dir.appendingPathComponent("missing.plist").path
        let result = inspect(["plist", missing])
        #expect(result.status == ExitStatus.noInput)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: \(missing): cannot open: No such file or directory\n")
        let fromJSON = inspect(["plist", "--from-json", missing, "-o", dir.appendingPathComponent("o").path])
        #expect(fromJSON.status == ExitStatus.noInput)
        #expect(inspect(["plist", dir.path]).status == ExitStatus.noInput)  // a directory cannot be read
    }

    @Test func uncreatableOutputExits73() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let input = dir.appendingPathComponent("in.json")
        try "1".write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("no/such/dir/out.plist").path
        let result = inspect(["plist", "--from-json", input.path, "-o", output])
        #expect(result.status == ExitStatus.cannotCreate)
        #expect(result.stderr.hasPrefix("Error: \(output): cannot create: "))
    }

    @Test func helpAndVersion() {
        let help = inspect(["--help"])
        #expect(help.status == 0)
        #expect(help.text.hasPrefix("OVERVIEW: Inspect property lists and keyed archives.\n"))
        #expect(help.text.contains("SUBCOMMANDS:\n  plist "))
        let verbHelp = inspect(["plist", "--help"])
        #expect(verbHelp.status == 0)
        #expect(verbHelp.text.contains("USAGE: keyedarchive plist <file>\n       keyedarchive plist --from-json <in.json>"))
        #expect(verbHelp.text.contains("ARGUMENTS:\n  <file> "))
        #expect(verbHelp.text.contains("  -o, --output <out> "))
        #expect(inspect(["help", "plist"]).text == verbHelp.text)
        let version = inspect(["--version"])
        #expect(version.status == 0)
        #expect(version.text == PackageVersion.current + "\n")
    }
}

@Suite struct KeyedArchiveExecutableTests {
    /// The built `keyedarchive`: next to the test bundle, or in the package's `.build/debug`.
    static func executable() -> URL? {
        let besideBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            besideBundle.appendingPathComponent("keyedarchive"),
            besideBundle.deletingLastPathComponent().appendingPathComponent("keyedarchive"),
            fixtures.deletingLastPathComponent().appendingPathComponent(".build/debug/keyedarchive"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test func launchedBinaryPrintsAFixtureAndExitsZero() throws {
        let binary = try #require(Self.executable(), "build the keyedarchive product first")
        let path = fixture("bplist/libplist-LGPL/uid.bplist")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["plist", path]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(errors.isEmpty)
        let expected = try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(String(decoding: data, as: UTF8.self) == PlistJSON.render(expected) + "\n")
    }

    @Test func launchedBinaryExits66ForAMissingFile() throws {
        let binary = try #require(Self.executable(), "build the keyedarchive product first")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["plist", "/nonexistent/file.plist"]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 66)
    }
}
