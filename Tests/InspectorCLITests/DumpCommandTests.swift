import BinaryPlist
import CommandLineSupport
import Foundation
import InspectorCLI
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// `keyedarchive dump`: the readable tree, for every Apple-made fixture including the nibs.
@Suite struct DumpCommandTests {
    @Test func treeShowsUIDsClassNamesAndBackReferences() {
        let result = inspect(["dump", fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.text == """
            $top {
              root => [1] crap.Foo {
                recursive => -> [1] crap.Foo
                title => [2] "hello"
              }
            }

            """)
    }

    @Test func nibTopLevelAndSharedObjectsPrintOnce() throws {
        let result = inspect(["dump", fixture(explodingNib)])
        #expect(result.status == 0)
        #expect(result.text.hasPrefix("$top {\n  IB.systemFontUpdateVersion => 1\n  IB.objectdata => [1] NSIBObjectData {\n"))
        #expect(result.text.contains("NSRoot => [2] NSCustomObject {"))
        #expect(result.text.contains("NSSource => -> [2] NSCustomObject"))
        // Each object is opened at most once: no UID has two "[uid] Class {" lines.
        let openings = result.text.split(separator: "\n").compactMap { line -> Substring? in
            guard line.hasSuffix(" {"), let arrow = line.range(of: "=> ["), !line.contains("-> [") else { return nil }
            return line[arrow.upperBound...].prefix { $0 != "]" }
        }
        #expect(openings.count > 100)
        #expect(Set(openings).count == openings.count)
    }

    @Test(arguments: appleArchives)
    func everyAppleFixtureDumps(file: String) throws {
        let result = inspect(["dump", fixture(file)])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(file))))
        #expect(result.text == (try ArchiveDump.render(bytes)))
        #expect(result.text.hasPrefix("$top {\n"))
    }
}

/// Exit statuses and help shared by decode, encode and dump.
@Suite struct ArchiveVerbErrorTests {
    @Test(arguments: [
        ["decode"], ["decode", "a", "b"], ["decode", "--max-objects", "0", "a"], ["decode", "--max-objects", "x", "a"],
        ["decode", "--bogus", "a"], ["encode", "in.json"], ["encode", "-o", "out"], ["encode", "in.json", "-o", "o", "x"],
        ["encode", "in.json", "-o", "o", "--format", "json"], ["dump"], ["dump", "a", "b"], ["dump", "--pretty", "a"],
    ])
    func usageErrorsExit64WithUsageOnStderr(arguments: [String]) {
        expectUsageError(arguments)
        #expect(inspect(arguments).stderr.contains("\nUsage: keyedarchive \(arguments[0]) "))
    }

    @Test(arguments: [
        "bplist/dd-plist/test1-binary.plist",  // a plist, not a keyed archive
        "keyed/danielpaulus-nskeyedarchiver/broken/xml/broken_plist.xml", "README.md",
    ] + brokenArchives)
    func malformedArchivesExit65WithOneLineNamingTheFile(file: String) throws {
        let path = fixture(file)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let error = #expect(throws: KeyedArchiveError.self) { try ArchiveGraph(bytes: bytes, acceptedArchivers: .any) }
        for verb in ["decode", "dump"] {
            let result = inspect([verb, path])
            #expect(result.status == ExitStatus.dataError, "\(verb)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "Error: \(path): \(error.map(String.init(describing:)) ?? "?")\n")
        }
    }

    @Test(arguments: ["decode", "dump", "encode"])
    func missingInputExits66(verb: String) throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        let missing = dir.appendingPathComponent("missing").path
        let extra = verb == "encode" ? ["-o", dir.appendingPathComponent("out").path] : []
        let result = inspect([verb, missing] + extra)
        #expect(result.status == ExitStatus.noInput)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: \(missing): cannot open: No such file or directory\n")
    }

    @Test func toolHelpListsTheVerbsAndEachHasItsOwn() {
        let help = inspect(["--help"])
        #expect(help.status == 0)
        for verb in ["plist", "decode", "encode", "dump"] {
            #expect(help.text.contains("\n  \(verb) "), "\(verb)")
            let verbHelp = inspect([verb, "--help"])
            #expect(verbHelp.status == 0)
            #expect(verbHelp.text.contains("USAGE: keyedarchive \(verb) "))
            #expect(inspect(["help", verb]).text == verbHelp.text)
        }
        let decode = inspect(["decode", "--help"]).text
        #expect(decode.contains("USAGE: keyedarchive decode [--graph] [--pretty] [--max-objects <n>] <file>"))
        #expect(decode.contains("print those\nwith --graph."))
        #expect(inspect(["encode", "-h"]).text.contains("USAGE: keyedarchive encode <in.json> --output <out> [--format <format>]"))
    }
}

/// The broken keyed archives below `Fixtures/keyed` that fail at the top level (header, `$objects`) whatever
/// their archiver name (decode and dump read any `$archiver`).
let brokenArchives: [String] = {
    let base = fixtures.appendingPathComponent("keyed")
    guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
    return walker.compactMap { item -> String? in
        guard let url = item as? URL, url.path.contains("/broken/"), !url.hasDirectoryPath,
              !url.lastPathComponent.hasSuffix(".txt"), !url.lastPathComponent.hasSuffix(".json"),
              let bytes = try? [UInt8](Data(contentsOf: url)), (try? ArchiveGraph(bytes: bytes, acceptedArchivers: .any)) == nil
        else { return nil }
        return String(url.path.dropFirst(fixtures.path.count + 1))
    }.sorted()
}()
