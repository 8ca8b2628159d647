import BinaryPlist
import ArchiveInspection
import Foundation
import Testing

/// What our reader does with a file that plistlib refuses or that references itself (no `.plist.json`).
enum ExpectedOutcome: Sendable, CustomStringConvertible {
    /// Decodes (the value is then checked to re-encode and decode back equal).
    case decodes
    /// Throws a ``PlistError`` with this code.
    case fails(PlistError.Code)

    var description: String {
        switch self {
        case .decodes: "decodes"
        case .fails(let code): "fails with .\(code)"
        }
    }
}

/// The real-world files under `Fixtures/bplist` and `Fixtures/keyed`, checked against CPython plistlib's
/// reading of them (their `.plist.json` siblings).
@Suite struct FixtureConformanceTests {
    /// Files without a `.plist.json`, each with the outcome we decided on.
    static let expectations: [String: ExpectedOutcome] = [
        // Self-referencing collections that plistlib builds into recursive objects. Both files also have an offset
        // table that overlaps the trailer, which CoreFoundation refuses (it requires header + objects + offset
        // table + trailer to add up to the file length) and so do we, before any object is read. The cycle
        // itself is checked by `recursionFixtureWithRepairedTrailerIsACycle`.
        "bplist/libplist-LGPL/recursion.bplist": .fails(.invalidTrailer),
        "bplist/rust-plist/binary_circular_array.plist": .fails(.invalidTrailer),
        // ASCII (0x5N) strings holding UTF-8 bytes: plistlib refuses them; CoreFoundation reads them, and so do we
        // under the default lenient string policy (UTF-8 when valid, else Latin-1); strict policy: see below.
        "bplist/node-bplist-parser/iTunes-small.bplist": .decodes,
        "bplist/node-bplist-parser/sample1.bplist": .decodes,
        // A dictionary whose key is an array.
        "bplist/libplist-LGPL/malformed_dict.bplist": .fails(.invalidKey),
        // Offset width 0 / 118, top object past the object count.
        "bplist/rust-plist/binary_zero_offset_size.plist": .fails(.invalidTrailer),
        "bplist/dd-plist/github-issue42.plist": .fails(.invalidTrailer),
        "bplist/dd-plist/github-issue72.plist": .fails(.invalidTrailer),
        "bplist/dd-plist/github-issue78.plist": .fails(.invalidTrailer),
        // Headers cut short ("bplist\xc3\x9a", "bplistl") or junk before the magic: not a plist at all.
        "bplist/dd-plist/github-issue73-2.plist": .fails(.unknownFormat),
        "bplist/dd-plist/github-issue73-3.plist": .fails(.unknownFormat),
        "bplist/dd-plist/github-issue73-6.plist": .fails(.unknownFormat),
        // Starts with `="1.0" encoding=...`: the `<?xml version` is cut off, so it is neither XML nor binary.
        "keyed/danielpaulus-nskeyedarchiver/broken/xml/broken_plist.xml": .fails(.unknownFormat),
    ]

    @Test func fixturesAreFound() {
        #expect(FixtureFiles.dataFiles.count == 241)
        #expect(FixtureFiles.filesWithJSON.count == 228)
    }

    @Test(arguments: FixtureFiles.filesWithJSON)
    func decodesToWhatPlistlibReads(file: String) throws {
        let reference = try #require(try PlistlibReference.value(of: file))
        let (value, format) = try PropertyList.decodeWithFormat(try FixtureFiles.bytes(file))
        #expect(PlistlibReference.matches(value, reference, format: format), "\(file)")
    }

    @Test(arguments: FixtureFiles.filesWithJSON)
    func rendersEachReferenceJSONByteForByte(file: String) throws {
        let text = try #require(try FixtureFiles.plistJSON(of: file))
        #expect(PlistJSON.render(try PlistJSON.parse(text), pretty: true) == text)
    }

    @Test(arguments: FixtureFiles.dataFiles)
    func everyDecodedValueReencodesToBinaryAndDecodesBackEqual(file: String) throws {
        guard let value = try? PropertyList.decode(try FixtureFiles.bytes(file)) else {
            #expect(Self.expectations[file] != nil, "\(file) does not decode and has no expectation")
            return
        }
        let binary = try PropertyList.encode(value, format: .binary)
        #expect(try PropertyList.decode(binary) == value, "\(file)")
        #expect(try PropertyList.encode(value, format: .binary) == binary, "\(file): writer is not deterministic")
    }

    @Test(arguments: FixtureFiles.dataFiles.filter { (try? FixtureFiles.plistJSON(of: $0)) == nil })
    func filesPlistlibRefusesHaveADecidedOutcome(file: String) throws {
        let expected = try #require(Self.expectations[file], "\(file) has no decided outcome")
        let bytes = try FixtureFiles.bytes(file)
        switch expected {
        case .decodes:
            #expect(throws: Never.self) { try PropertyList.decode(bytes) }
        case .fails(let code):
            let error = #expect(throws: PlistError.self, "\(file)") { try PropertyList.decode(bytes) }
            #expect(error?.code == code, "\(file): \(error.map(String.init(describing:)) ?? "no error")")
        }
    }

    @Test func expectationTableNamesOnlyFilesWithoutJSON() {
        for file in Self.expectations.keys {
            #expect(FixtureFiles.dataFiles.contains(file), "\(file) is not a fixture")
            #expect((try? FixtureFiles.plistJSON(of: file)) == nil, "\(file) has a .plist.json: check it there")
        }
    }

    @Test func recursionFixtureWithRepairedTrailerIsACycle() throws {
        let original = try FixtureFiles.bytes("bplist/libplist-LGPL/recursion.bplist")
        // Objects 8..<24 and the five 2-byte offsets at 24 unchanged; a trailer that no longer overlaps them.
        var repaired = Array(original[0..<34])
        repaired += [0, 0, 0, 0, 0, 0, 2, 1]  // unused, sort version, offset width 2, reference width 1
        repaired += [0, 0, 0, 0, 0, 0, 0, 5]  // 5 objects
        repaired += [0, 0, 0, 0, 0, 0, 0, 1]  // top object 1
        repaired += [0, 0, 0, 0, 0, 0, 0, 24]  // offset table at byte 24
        let error = #expect(throws: PlistError.self) { try PropertyList.decode(repaired) }
        #expect(error?.code == .cycle)
    }

    @Test(arguments: ["bplist/node-bplist-parser/iTunes-small.bplist", "bplist/node-bplist-parser/sample1.bplist"])
    func utf8InASCIIStringsIsAnErrorUnderStrictPolicy(file: String) throws {
        var strict = PlistLimits()
        strict.stringPolicy = .strict
        let error = #expect(throws: PlistError.self) { try PropertyList.decode(try FixtureFiles.bytes(file), limits: strict) }
        #expect(error?.code == .invalidString)
    }
}
