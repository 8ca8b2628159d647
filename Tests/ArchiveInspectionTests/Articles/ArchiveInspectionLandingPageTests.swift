// Mirrors Sources/ArchiveInspection/ArchiveInspection.docc/ArchiveInspection.md (see ArticleCode in TestSupport)
import ArchiveInspection
import KeyedArchive
import Testing

@Suite("Article: ArchiveInspection's landing page")
struct ArchiveInspectionLandingPageTests {
    @Test func rendersAnArchiveAsJSON() throws {
        // snippet
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charles"])
        print(try ArchiveJSON.render(bytes))
        // end snippet
        #expect(try ArchiveJSON.render(bytes) == #"["Ada", "Charles"]"#)
    }
}
