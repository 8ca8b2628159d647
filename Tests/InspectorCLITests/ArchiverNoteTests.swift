import BinaryPlist
import CommandLineSupport
import Foundation
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// A keyed archive written by `KeyedArchiver` whose `$archiver` string was rewritten through BinaryPlist.
func renamedArchive(_ name: String, format: PlistFormat = .binary) throws -> [UInt8] {
    let archive = try KeyedArchiver.archivedData(withRootObject: ["name": "Page 1", "layers": [1, 2, 3]] as [String: Any])
    var top = try #require(try PropertyList.decode(archive).dictionaryValue)
    top["$archiver"] = .string(name)
    return try PropertyList.encode(.dictionary(top), format: format)
}

/// Writes `bytes` to `name` in a fresh scratch directory and returns the directory and the file's path.
func scratchFile(_ name: String, _ bytes: [UInt8]) throws -> (directory: TemporaryDirectory, path: String) {
    let directory = try TemporaryDirectory(prefix: "inspector")
    try directory.write(bytes, to: name)
    return (directory, directory.file(name))
}

/// dump, decode and plist read archives of other archivers and say so in one line on stderr.
@Suite struct ArchiverNoteTests {
    static let msNote = "note: written by archiver \"MSArchiver\", not NSKeyedArchiver\n"

    @Test(arguments: PlistFormat.allCases)
    func dumpDecodeAndPlistReadAnMSArchiverArchiveWithANote(format: PlistFormat) throws {
        let bytes = try renamedArchive("MSArchiver", format: format)
        let (directory, path) = try scratchFile("sketch.archive", bytes)
        defer { directory.remove() }
        let graph = try ArchiveGraph(bytes: bytes, acceptedArchivers: .any)

        let dump = inspect(["dump", path])
        #expect(dump.status == ExitStatus.success)
        #expect(dump.stderr == Self.msNote)
        #expect(dump.text == ArchiveDump.render(graph))

        let decode = inspect(["decode", path])
        #expect(decode.status == ExitStatus.success)
        #expect(decode.stderr == Self.msNote)
        #expect(decode.text == (try ArchiveJSON.render(graph)) + "\n")
        #expect(decode.text.contains(#""Page 1""#))

        let plist = inspect(["plist", path])
        #expect(plist.status == ExitStatus.success)
        #expect(plist.stderr == Self.msNote)
        #expect(plist.text == PlistJSON.render(try PropertyList.decode(bytes)) + "\n")
    }

    @Test func wrongArchiverFixtureNamesDummyArchiver() {
        let path = fixture("keyed/danielpaulus-nskeyedarchiver/broken/xml/wrong_archiver.xml")
        for verb in ["dump", "decode", "plist"] {
            let result = inspect([verb, path])
            #expect(result.status == ExitStatus.success, "\(verb)")
            #expect(result.stderr == "note: written by archiver \"DummyArchiver\", not NSKeyedArchiver\n", "\(verb)")
        }
        #expect(inspect(["decode", path]).text == #"{"$top": {"$0": true}}"# + "\n")
    }

    @Test(arguments: ["dump", "decode", "plist"])
    func applesArchivesGetNoNote(verb: String) {
        let result = inspect([verb, fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == "")
    }

    @Test func aNameWithALineBreakStaysOnOneLine() throws {
        let (directory, path) = try scratchFile("odd.archive", try renamedArchive("MS\nArchiver"))
        defer { directory.remove() }
        let result = inspect(["dump", path])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == "note: written by archiver \"MS\\nArchiver\", not NSKeyedArchiver\n")
    }

    @Test func aMissingArchiverIsStillMalformed() {
        let path = fixture("keyed/danielpaulus-nskeyedarchiver/broken/xml/missing_archiver.xml")
        let result = inspect(["dump", path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stderr == "Error: \(path): keyed archive: $archiver is missing\n")
        #expect(inspect(["plist", path]).stderr == "")
    }

    @Test(arguments: ["dump", "decode", "plist"])
    func helpMentionsOtherArchivers(verb: String) {
        let help = inspect([verb, "--help"]).text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("MSArchiver"))
        #expect(help.contains("note on stderr"))
    }
}
