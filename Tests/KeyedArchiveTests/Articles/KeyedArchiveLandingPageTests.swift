// Mirrors Sources/KeyedArchive/KeyedArchive.docc/KeyedArchive.md (see ArticleCode in TestSupport)
import KeyedArchive
import Testing

@Suite("Article: KeyedArchive's landing page")
struct KeyedArchiveLandingPageTests {
    @Test func archivesStrings() throws {
        // snippet
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charles"])
        let names = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: bytes)
        // end snippet
        #expect(names == ["Ada", "Charles"])
        #expect(try ArchiveGraph(bytes: bytes).classChain(of: 1) == ["NSArray", "NSObject"])
    }

    // snippet
    struct Reading: Codable {
        var room: String
        var celsius: Double
    }
    // end snippet

    @Test func archivesCodableValues() throws {
        // snippet
        let archive = try ArchiveEncoder().encode([Reading(room: "kitchen", celsius: 21.5)])
        let readings = try ArchiveDecoder().decode([Reading].self, from: archive)
        // end snippet
        #expect(readings.map(\.room) == ["kitchen"] && readings.map(\.celsius) == [21.5])
        #expect(try ArchiveGraph(bytes: archive).objects.contains(.string("kitchen")))
    }
}
