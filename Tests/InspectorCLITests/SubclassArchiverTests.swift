import CommandLineSupport
import Testing
import TestSupport

/// Every verb reads an archive of an `NSKeyedArchiver` subclass (`Fixtures/inspector/scn-archiver.plist`:
/// the kiler129 `reference.bin.plist` with `$archiver` "SCNKeyedArchiver") as it reads the original, with one
/// note on stderr; verbs of several files name the file in it.
@Suite struct SubclassArchiverTests {
    static let scn = fixture("inspector/scn-archiver.plist")
    static let original = fixture("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist")
    static let note = "note: written by archiver \"SCNKeyedArchiver\", not NSKeyedArchiver\n"
    static let fileNote = "note: \(scn): written by archiver \"SCNKeyedArchiver\", not NSKeyedArchiver\n"

    @Test(arguments: [["decode"], ["decode", "--graph"], ["dump"], ["graph", "--format", "dot"],
                      ["convert", "--to", "typedstream"]])
    func aSingleFileVerbPrintsWhatItPrintsForTheOriginalWithANote(verb: [String]) {
        let result = inspect(verb + [Self.scn])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == Self.note)
        let original = inspect(verb + [Self.original])
        #expect(original.stderr == "")
        #expect(!result.stdout.isEmpty)
        #expect(result.stdout == original.stdout)
    }

    @Test func lintChecksItWithANoteNamingTheFile() {
        let result = inspect(["lint", "--verbose", Self.scn, Self.original])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == Self.fileNote)
        #expect(result.text == "\(Self.scn): OK\n\(Self.original): OK\n")
    }

    @Test(arguments: [["--archiver", "SCNKeyedArchiver"], ["--any-archiver"]])
    func lintSaysNothingOfAnArchiverItWasToldToExpect(options: [String]) {
        let result = inspect(["lint"] + options + [Self.scn])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == "")
        #expect(result.text == "")
    }

    @Test func auditReportsItWithANoteNamingTheFile() {
        let result = inspect(["audit", Self.scn])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == Self.fileNote)
        #expect(result.text.hasPrefix("file: \(Self.scn)\narchiver: SCNKeyedArchiver\nversion: 100000\n"))
        #expect(result.text.contains(
            "\nnotes: 2\n  archiver: written by archiver \"SCNKeyedArchiver\", not NSKeyedArchiver\n  url: "))
    }

    @Test func diffComparesItWithANoteNamingTheFile() {
        let against = inspect(["diff", Self.original, Self.scn])
        #expect(against.status == ExitStatus.failure)
        #expect(against.stderr == Self.fileNote)
        #expect(against.text == "$archiver: changed: \"NSKeyedArchiver\" -> \"SCNKeyedArchiver\"\n")
        let same = inspect(["diff", Self.scn, Self.scn])
        #expect(same.status == ExitStatus.success)
        #expect(same.stderr == Self.fileNote + Self.fileNote)
        #expect(same.text == "")
    }
}
