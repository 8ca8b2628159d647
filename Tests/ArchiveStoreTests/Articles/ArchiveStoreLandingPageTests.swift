// Mirrors Sources/ArchiveStore/ArchiveStore.docc/ArchiveStore.md (see ArticleCode in TestSupport)
import ArchiveStore
import Testing
import TestSupport

@Suite("Article: ArchiveStore's landing page")
struct ArchiveStoreLandingPageTests {
    // snippet
    struct Reading: ArchiveRecord, Codable {
        let id: String
        var celsius: Double
    }
    // end snippet

    @Test func aRepositoryAndACacheOfOneType() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.path
        // snippet
        let readings = ArchiveRepository<Reading>(path: directory + "/readings.archive")
        try readings.add(Reading(id: "kitchen", celsius: 21.5))

        let cache = try ArchiveCache<Reading>(directory: directory + "/cache")
        try cache.set(Reading(id: "hall", celsius: 19), forKey: "hall")
        // end snippet
        #expect(try ArchiveRepository<Reading>(path: directory + "/readings.archive").get("kitchen")?.celsius == 21.5)
        #expect(try ArchiveCache<Reading>(directory: directory + "/cache").value(forKey: "hall")?.celsius == 19)
    }
}
