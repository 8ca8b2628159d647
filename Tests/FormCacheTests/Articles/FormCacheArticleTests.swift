// Mirrors Sources/FormCache/FormCache.docc/FormCacheWithExpiry.md (see ArticleCode in TestSupport)
import ArchiveStore
import FormCache
import Foundation
import KeyedArchive
import Testing
import TestSupport

@Suite("Article: A form cache with expiry")
struct FormCacheArticleTests {
    // snippet
    struct FixedClock: StoreClock {
        var date: Date
        func now() -> Date { date }
    }
    // end snippet

    /// The iOS app's model, as its cache manager archived it with `NSKeyedArchiver`.
    struct FormModel: KeyedArchivable {
        var id: String
        var registerDatetime: Date
        var name: String
        init(id: String, registerDatetime: Date, name: String) {
            (self.id, self.registerDatetime, self.name) = (id, registerDatetime, name)
        }
        init(coder: KeyedUnarchiver) throws { fatalError("only written here") }
        func encode(with coder: KeyedArchiver) {
            coder.encode(id, forKey: "id")
            coder.encode(registerDatetime, forKey: "registerDatetime")
            coder.encode(name, forKey: "name")
        }
    }

    @Test func recordsLiveUntilTheyExpire() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.file("formcache")
        // snippet
        let monday = FixedClock(date: Date(timeIntervalSince1970: 1_700_000_000))
        let cache = FormCache(directory: directory, clock: monday)
        let signup = try cache.add(name: "signup", fields: ["email": "ada@example.com"], timeToLive: .days(7))
        try cache.update(signup.id, fields: ["plan": "pro"])
        let fields = try cache.get(signup.id).fields
        // end snippet
        #expect(fields == ["email": "ada@example.com", "plan": "pro"])
        #expect(signup.expiresAt == monday.date.addingTimeInterval(7 * 86_400))
        #expect(signup.registeredAt == monday.date)
        #expect(UUID(uuidString: signup.id) != nil)

        // snippet
        let nextMonth = FixedClock(date: monday.date.addingTimeInterval(30 * 24 * 60 * 60))
        let later = FormCache(directory: directory, clock: nextMonth)
        let live = try later.list()
        let all = try later.list(includeExpired: true)
        let purged = try later.purge()
        // end snippet
        #expect(live.isEmpty)
        #expect(all.map(\.id) == [signup.id])
        #expect(purged.map(\.id) == [signup.id])
        #expect(try later.count() == 0)
        let expired = #expect(throws: StoreError.self) { try later.get(signup.id) }
        #expect(expired?.code == .notFound)
    }

    @Test func theOldAppsArchiveIsImportedOnce() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let registered = Date(timeIntervalSince1970: 1_700_000_000)
        let models = [FormModel(id: "A1", registerDatetime: registered, name: "signup"),
                      FormModel(id: "B2", registerDatetime: registered, name: "survey")]
        try temporary.write(try KeyedArchiver.archivedData(withRootObject: models), to: "FormCache.archive")
        let cache = FormCache(directory: temporary.file("formcache"), clock: FixedClock(date: registered))
        let path = temporary.file("FormCache.archive")
        let directory = temporary.path
        // snippet
        let result = try cache.importLegacy(file: path)
        print(result.imported.map(\.name), result.skippedIDs)
        // end snippet
        #expect(result.imported.map(\.name) == ["signup", "survey"] && result.skippedIDs == [])
        #expect(result.imported[0].expiresAt == registered.addingTimeInterval(30 * 86_400))
        let again = try cache.importLegacy(file: path)
        #expect(again.imported.isEmpty && again.skippedIDs == ["A1", "B2"])

        // snippet
        try cache.export(to: directory + "/forms.archive")
        // end snippet
        let exported = try temporary.read("forms.archive")
        let graph = try ArchiveGraph(bytes: exported)
        #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }.contains(["FormRecord", "NSObject"]))
        let other = FormCache(directory: temporary.file("other"), clock: FixedClock(date: registered))
        #expect(try other.importArchive(file: temporary.file("forms.archive")).imported.map(\.id) == ["A1", "B2"])
    }

    @Test func theDataDirectory() throws {
        let environment = ["HOME": "/home/ada"]
        // snippet
        let home = try FormCache(environment: environment).directory
        // end snippet
        #if canImport(Darwin)
        #expect(home == "/home/ada/Library/Application Support/formcache")
        #else
        #expect(home == "/home/ada/.local/share/formcache")
        #endif
        #expect(try FormCache(environment: ["FORMCACHE_HOME": "/data/forms"]).directory == "/data/forms")
    }
}
