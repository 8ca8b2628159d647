// Mirrors Sources/FormCache/FormCache.docc/FormCache.md (see ArticleCode in TestSupport)
import FormCache
import Testing
import TestSupport

@Suite("Article: FormCache's landing page")
struct FormCacheLandingPageTests {
    @Test func addsAndGetsARecord() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.path
        // snippet
        let cache = try FormCache(environment: ["FORMCACHE_HOME": directory])
        let record = try cache.add(name: "signup", fields: ["email": "ada@example.com"])
        let again = try cache.get(record.id)
        // end snippet
        #expect(again == record)
        #expect(cache.path == directory + "/FormCache.cache")
        #expect(record.expiresAt == record.registeredAt.addingTimeInterval(30 * 86_400))
    }
}
