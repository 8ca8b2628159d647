// Mirrors Sources/ArchiveInspection/ArchiveInspection.docc/ArchiveInspection.md (see ArticleCode in TestSupport)
import ArchiveInspection
import KeyedArchive
import Testing

@Suite("Article: ArchiveInspection's landing page")
struct ArchiveInspectionLandingPageTests {
    @Test func rendersAnArchiveAsJSON() throws {
        // snippet
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charles"])
        print(try ArchiveJSON.render(ArchiveGraph(bytes: bytes)))
        // end snippet
        #expect(try ArchiveJSON.render(ArchiveGraph(bytes: bytes)) == #"["Ada", "Charles"]"#)
    }

    @Test func auditsComparesAndMapsAnArchive() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charles"])
        let edited: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charlotte"])
        // snippet
        let audit = try ArchiveAudit.audit(bytes)
        print(audit.classes.map(\.name), audit.sharedObjects, audit.disallowed(by: ["NSArray", "NSString"]))
        try ArchiveDiff.differences(between: bytes, and: edited) { print($0) }
        let model = try ObjectGraphModel(archive: bytes)
        print(model.nodes.count, model.nodes.filter(\.shared).count)
        // end snippet
        #expect(audit.classes.map(\.name) == ["NSArray"])
        #expect(audit.disallowed(by: ["NSArray", "NSString"]) == [])
        var found: [String] = []
        try ArchiveDiff.differences(between: bytes, and: edited) { found.append($0.description) }
        #expect(found == [#"root[1]: changed: "Charles" -> "Charlotte""#])
        #expect(model.nodes.count == 1)
    }
}
