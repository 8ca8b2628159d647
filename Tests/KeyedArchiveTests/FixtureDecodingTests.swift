import BinaryPlist
import Foundation
import KeyedArchive
import ArchiveInspection
import Testing

/// Every Apple-made keyed archive under Fixtures/keyed decodes, re-encodes and decodes back to the same graph.
@Suite("Apple keyed archive fixtures")
struct FixtureDecodingTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()
    /// Self-containing NSMutableArray: a cycle through a value type, which typed decoding refuses by design.
    static let valueCycle = "keyed/michaelwright235-nskeyedunarchiver/circularReference.plist"
    /// A nib whose views refer to each other so much that printing shared references in full explodes.
    static let explodingNib = "keyed/Flycut-nib/MainMenu.keyedobjects.nib"

    @Test func fixtureListIsComplete() {
        #expect(KeyedFixtures.appleArchives.count >= 120)
        #expect(KeyedFixtures.appleArchives.contains { $0.hasSuffix(".xml") || $0.contains("/xml/") })
    }

    @Test(arguments: KeyedFixtures.appleArchives)
    func graphReEncodesToTheSameGraph(_ path: String) throws {
        let graph = try ArchiveGraph(bytes: KeyedFixtures.bytes(path))
        #expect(graph.objects.first == .string("$null"))
        for format in PlistFormat.allCases {
            let again = try ArchiveGraph(bytes: graph.encoded(format: format))
            #expect(again == graph, "\(format)")
        }
    }

    @Test(arguments: KeyedFixtures.appleArchives)
    func archiveJSONRoundTripsThroughOurArchiver(_ path: String) throws {
        guard path != Self.explodingNib else {
            expectKeyedError(.elementLimitExceeded) { try ArchiveJSON.render(KeyedFixtures.bytes(path)) }
            return
        }
        let json = try ArchiveJSON.render(KeyedFixtures.bytes(path))
        guard path != Self.valueCycle else {
            // The cycle prints as a back-reference, and an array cannot be rebuilt around itself.
            #expect(json == #"[{"ref": "NSMutableArray"}]"#)
            let error = expectArchiveJSONError { try ArchiveJSON.encode(json) }
            #expect(error?.reason == #"{"ref": "NSMutableArray"} has no enclosing object of that class"#)
            return
        }
        let binary = try ArchiveJSON.encode(json, format: .binary)
        #expect(try ArchiveJSON.render(binary) == json)
        // XML dictionaries are written with sorted keys, as Apple's writer does: compare as JSON objects.
        let xml = try ArchiveJSON.encode(json, format: .xml)
        #expect(try sameJSON(ArchiveJSON.render(xml), json))
    }

    func sameJSON(_ a: String, _ b: String) throws -> Bool {
        let x = try JSONSerialization.jsonObject(with: Data(a.utf8), options: [.fragmentsAllowed]) as? NSObject
        let y = try JSONSerialization.jsonObject(with: Data(b.utf8), options: [.fragmentsAllowed]) as? NSObject
        return x == y
    }

    @Test(arguments: KeyedFixtures.appleArchives)
    func typedDecodingReadsEveryTopLevelValue(_ path: String) throws {
        let bytes = try KeyedFixtures.bytes(path)
        let decode = {
            try KeyedUnarchiver.withUnarchiver(for: bytes, registry: Self.generic) { u in
                try u.allKeys().compactMap { try u.decodeIfPresent(Any.self, forKey: $0) }.count
            }
        }
        if path == Self.valueCycle {
            #expect(throws: KeyedArchiveError.self) { try decode() }
        } else {
            let graph = try ArchiveGraph(bytes: bytes)
            let nonNull = graph.top.entries.filter { $0.value != .uid(PlistUID(0)) }.count
            #expect(try decode() <= nonNull)
        }
    }

    @Test func generatedArchivesOfEveryFixtureAreDeterministic() throws {
        for path in KeyedFixtures.appleArchives where path != Self.valueCycle && path != Self.explodingNib {
            let json = try ArchiveJSON.render(KeyedFixtures.bytes(path))
            #expect(try ArchiveJSON.encode(json) == ArchiveJSON.encode(json), "\(path)")
        }
    }
}
