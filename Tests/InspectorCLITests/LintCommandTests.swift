import BinaryPlist
import CommandLineSupport
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// Every data file below `Fixtures/`, sorted (renderings, notes and licenses excluded).
let allDataFiles: [String] = RepositoryFixtures.dataFiles(under: "bplist") + RepositoryFixtures.dataFiles(under: "keyed")

/// Files outside `broken/` that our plist reader refuses (FixtureConformanceTests decides each one).
let refusedPlists: Set<String> = [
    "bplist/dd-plist/github-issue42.plist", "bplist/dd-plist/github-issue72.plist",
    "bplist/dd-plist/github-issue73-2.plist", "bplist/dd-plist/github-issue73-3.plist",
    "bplist/dd-plist/github-issue73-6.plist", "bplist/dd-plist/github-issue78.plist",
    "bplist/libplist-LGPL/malformed_dict.bplist", "bplist/libplist-LGPL/recursion.bplist",
    "bplist/rust-plist/binary_circular_array.plist", "bplist/rust-plist/binary_zero_offset_size.plist",
]

/// Broken archives whose only defect is a missing `root` key: sound structure, so valid unless --require-root.
let rootlessArchives: Set<String> = [
    "keyed/bpylist2/broken/no_root_archive.plist",
    "keyed/kiler129-NSKeyedUnarchiver/broken/missingRoot.bin.plist",
    "keyed/kiler129-NSKeyedUnarchiver/broken/xml/missingRoot.xml.plist",
]

/// Broken archives whose only defect is an `$archiver` other than NSKeyedArchiver: valid, with a note.
let otherArchiverArchives: Set<String> = [
    "keyed/bpylist2/broken/invalid_type_archive.plist",
    "keyed/danielpaulus-nskeyedarchiver/broken/xml/wrong_archiver.xml",
]

let brokenFiles = allDataFiles.filter {
    $0.contains("/broken/") && !rootlessArchives.contains($0) && !otherArchiverArchives.contains($0)
}
let goodFiles = allDataFiles.filter { !$0.contains("/broken/") && !refusedPlists.contains($0) }

/// The reason the library gives for a file: the plist reader's error, else the keyed-archive reader's or
/// `ArchiveGraph.validate()`'s (the same descriptions `plist` and `dump` print).
func libraryReason(_ file: String) throws -> String {
    let bytes = try RepositoryFixtures.bytes(file)
    do {
        _ = try PropertyList.decode(bytes)
    } catch let error as PlistError {
        return error.description
    }
    do {
        try ArchiveGraph(bytes: bytes).validate()
    } catch let error as KeyedArchiveError {
        return error.description
    }
    Issue.record("\(file) is valid for the library")
    return ""
}

/// `keyedarchive lint FILE...`: one line per failing file, exit 0 / 65 / 66 / 64.
@Suite struct LintCommandTests {
    @Test func theFixtureSetsAreWhatTheTestsAssume() {
        #expect(allDataFiles.count == 241)
        #expect(goodFiles.count == 241 - 10 - 30)
        #expect(brokenFiles.count == 25)
        #expect(refusedPlists.isSubset(of: Set(allDataFiles)))
        #expect(rootlessArchives.isSubset(of: Set(allDataFiles)))
        #expect(otherArchiverArchives.isSubset(of: Set(allDataFiles)))
    }

    @Test(arguments: goodFiles)
    func everyGoodFixturePassesSilently(file: String) {
        let path = fixture(file)
        let result = inspect(["lint", path])
        #expect(result.status == ExitStatus.success)
        #expect(result.text == "")
        #expect(result.stderr == "")
        #expect(inspect(["lint", "--verbose", path]).text == "\(path): OK\n")
    }

    @Test(arguments: brokenFiles + refusedPlists.sorted())
    func everyBrokenFixtureFailsWithTheLibrarysReason(file: String) throws {
        let path = fixture(file)
        let result = inspect(["lint", "-v", path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.text == "\(path): \(try libraryReason(file))\n")
        #expect(result.stderr == "")
    }

    @Test func reasonsNameTheDefect() {
        let cases = [
            ("keyed/bpylist2/broken/invalid_uid_archive.plist", "keyed archive: at root: UID 10 is not below the 3 objects"),
            ("keyed/kiler129-NSKeyedUnarchiver/broken/xml/objectWithNonArrayClassChain.xml.plist",
             "keyed archive: object 1: $class refers to object 2, whose $classes is a string, not an array"),
            ("keyed/danielpaulus-nskeyedarchiver/broken/xml/missing_version.xml", "keyed archive: $version is missing"),
            ("keyed/danielpaulus-nskeyedarchiver/broken/xml/broken_plist.xml",
             "plist: at byte 0: neither a binary plist ('bplist0') nor an XML plist"),
            ("bplist/libplist-LGPL/malformed_dict.bplist", "bplist: object 0 at byte 8: dictionary key is a collection"),
        ]
        for (file, reason) in cases {
            #expect(inspect(["lint", fixture(file)]).text == "\(fixture(file)): \(reason)\n")
        }
    }

    @Test(arguments: rootlessArchives.sorted())
    func archivesWithoutRootPassUnlessRootIsRequired(file: String) {
        let path = fixture(file)
        #expect(inspect(["lint", path]).status == ExitStatus.success)
        let strict = inspect(["lint", "--require-root", path])
        #expect(strict.status == ExitStatus.dataError)
        #expect(strict.text == "\(path): keyed archive: $top has no \"root\" key\n")
    }

    @Test func requireRootAcceptsArchivesWithRoot() {
        let result = inspect(["lint", "--require-root", fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(result.status == ExitStatus.success)
        #expect(result.text == "")
    }

    @Test func allFixturesInOneRunPrintExactlyTheFailingFilesInArgumentOrder() throws {
        let paths = Array(allDataFiles.map(fixture).reversed())
        let failing = Set((brokenFiles + refusedPlists).map(fixture))
        let result = inspect(["lint"] + paths)
        #expect(result.status == ExitStatus.dataError)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let named = lines.compactMap { line in paths.first { line.hasPrefix($0 + ": ") } }
        #expect(named.count == lines.count)
        #expect(named == paths.filter(failing.contains))
        #expect(named.count == 35)
        // In argument order (reversed): the danielpaulus file, then the bpylist2 one.
        #expect(result.stderr == "note: \(fixture("keyed/danielpaulus-nskeyedarchiver/broken/xml/wrong_archiver.xml")): "
            + "written by archiver \"DummyArchiver\", not NSKeyedArchiver\n"
            + "note: \(fixture("keyed/bpylist2/broken/invalid_type_archive.plist")): "
            + "written by archiver \"NSArchiver\", not NSKeyedArchiver\n")

        let verbose = inspect(["lint", "--verbose"] + paths)
        #expect(verbose.status == ExitStatus.dataError)
        let okLines = verbose.text.split(separator: "\n").filter { $0.hasSuffix(": OK") }
        #expect(okLines.count == allDataFiles.count - 35)
        #expect(verbose.text.split(separator: "\n").count == allDataFiles.count)
    }

    @Test func aFileThatCannotBeOpenedIs66AndTheOthersAreStillChecked() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let directory = scratch.url
        let good = fixture("keyed/bpylist2/circular_archive.plist")
        let bad = fixture("keyed/bpylist2/broken/no_top_archive.plist")
        let missing = directory.appendingPathComponent("missing.plist").path

        let both = inspect(["lint", missing, good, bad])
        #expect(both.status == ExitStatus.noInput)
        #expect(both.text == """
            \(missing): cannot open: No such file or directory
            \(bad): keyed archive: $top is missing

            """)
        #expect(both.stderr == "")

        let onlyMissing = inspect(["lint", good, missing])
        #expect(onlyMissing.status == ExitStatus.noInput)
        #expect(onlyMissing.text == "\(missing): cannot open: No such file or directory\n")

        let folder = inspect(["lint", directory.path])
        #expect(folder.status == ExitStatus.noInput)
        #expect(folder.text == "\(directory.path): cannot read: Is a directory\n")

        #expect(inspect(["lint", good, bad]).status == ExitStatus.dataError)
        #expect(inspect(["lint", good, good]).status == ExitStatus.success)
    }

    @Test func emptyAndTextFilesAreNotPlists() throws {
        let (directory, empty) = try scratchFile("empty", [])
        defer { directory.remove() }
        let text = fixture("README.md")
        let result = inspect(["lint", empty, text])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.text == """
            \(empty): bplist: at byte 0: 0 bytes is shorter than the 8-byte header
            \(text): plist: at byte 0: neither a binary plist ('bplist0') nor an XML plist

            """)
    }

    @Test(arguments: PlistFormat.allCases)
    func aForeignArchiverIsCheckedWithANoteUnlessExpected(format: PlistFormat) throws {
        let (directory, path) = try scratchFile("sketch.archive", try renamedArchive("MSArchiver", format: format))
        defer { directory.remove() }
        let noted = inspect(["lint", "--verbose", path])
        #expect(noted.status == ExitStatus.success)
        #expect(noted.text == "\(path): OK\n")
        #expect(noted.stderr == "note: \(path): written by archiver \"MSArchiver\", not NSKeyedArchiver\n")
        for options in [["--archiver", "MSArchiver"], ["--archiver=Other", "--archiver", "MSArchiver"], ["--any-archiver"]] {
            let result = inspect(["lint", "--verbose"] + options + [path, fixture("keyed/bpylist2/circular_archive.plist")])
            #expect(result.status == ExitStatus.success, "\(options)")
            #expect(result.text.hasPrefix("\(path): OK\n"), "\(options)")
            #expect(result.stderr == "", "\(options)")
        }
        let other = inspect(["lint", "--archiver", "Other", path])
        #expect(other.status == ExitStatus.success)
        #expect(other.stderr == "note: \(path): written by archiver \"MSArchiver\", not NSKeyedArchiver\n")
    }

    @Test func wrongArchiverFixtureIsCheckedWithANote() {
        let path = fixture("keyed/danielpaulus-nskeyedarchiver/broken/xml/wrong_archiver.xml")
        let noted = inspect(["lint", path])
        #expect(noted.status == ExitStatus.success)
        #expect(noted.stderr == "note: \(path): written by archiver \"DummyArchiver\", not NSKeyedArchiver\n")
        #expect(inspect(["lint", "--archiver", "DummyArchiver", path]).stderr == "")
        #expect(inspect(["lint", "--any-archiver", path]).status == ExitStatus.success)
        // The structure is still checked for any archiver.
        let missing = fixture("keyed/danielpaulus-nskeyedarchiver/broken/xml/missing_top.xml")
        #expect(inspect(["lint", missing]).text == "\(missing): keyed archive: $top is missing\n")
    }

    @Test func aPlainPlistWithoutArchiveKeysIsOnlyAPlist() {
        let result = inspect(["lint", fixture("keyed/dracula-terminal-app/embedded/Dracula.terminal")])
        #expect(result.status == ExitStatus.success)
        #expect(result.text == "")
    }

    @Test(arguments: [["lint"], ["lint", "--verbose"], ["lint", "--bogus", "a"], ["lint", "--archiver"],
                      ["lint", "--verbose=yes", "a"]])
    func usageErrorsExit64(arguments: [String]) {
        expectUsageError(arguments)
        #expect(inspect(arguments).stderr.contains("\nUsage: keyedarchive lint [--verbose] "))
    }

    @Test func helpDescribesOutputAndExitStatuses() {
        let help = inspect(["lint", "--help"])
        #expect(help.status == ExitStatus.success)
        #expect(help.text.hasPrefix("OVERVIEW: Check that files are valid property lists or keyed archives.\n"))
        #expect(help.text.contains(
            "USAGE: keyedarchive lint [--verbose] [--quiet] [--archiver <name> ...] [--any-archiver] [--require-root] <file> ..."))
        let flat = help.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["'<file>: <reason>'", "'<file>: OK'", "0 when every file is valid", "66 when a file cannot be opened",
                       "otherwise 65 when a file is invalid", "64 usage error", "-v, --verbose", "--archiver <name>",
                       "--any-archiver", "--require-root", "-q, --quiet", "progress line"] {
            #expect(flat.contains(phrase), "\(phrase)")
        }
        #expect(inspect(["help", "lint"]).text == help.text)
        #expect(inspect(["--help"]).text.contains("\n  lint "))
    }

    /// The real executable: statuses and output as a shell sees them.
    @Test func theBuiltExecutableLintsManyFilesInOneProcess() throws {
        let executable = try Spawn.keyedarchive
        let good = fixture("keyed/bpylist2/circular_archive.plist")
        let bad = fixture("keyed/bpylist2/broken/no_top_archive.plist")
        let ok = try Spawn.start(executable, ["lint", good, good], environment: [:]).finish()
        #expect(ok.status == 0)
        #expect(ok.stdout == "")
        let failed = try Spawn.start(executable, ["lint", good, bad], environment: [:]).finish()
        #expect(failed.status == 65)
        #expect(failed.stdout == "\(bad): keyed archive: $top is missing\n")
        #expect(failed.stderr == "")
        let missing = try Spawn.start(executable, ["lint", bad, "/nonexistent/x.plist"], environment: [:]).finish()
        #expect(missing.status == 66)
        #expect(missing.stdout.hasSuffix("/nonexistent/x.plist: cannot open: No such file or directory\n"))
    }
}
