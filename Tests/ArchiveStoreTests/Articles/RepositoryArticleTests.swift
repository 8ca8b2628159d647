// Mirrors Sources/ArchiveStore/ArchiveStore.docc/RepositoryForAnyRecordType.md (see ArticleCode in TestSupport)
import ArchiveStore
import Foundation
import KeyedArchive
import Testing
import TestSupport

// The article's record types are declared at file scope, as its constrained extension names one of them.

// snippet
struct TodoItem: ArchiveRecord, Codable {
    let id: String
    var title: String
    var done = false
}

final class Contact: ArchiveRecord {
    let id: UUID
    var name: String
    var email: String?

    init(id: UUID = UUID(), name: String, email: String? = nil) {
        (self.id, self.name, self.email) = (id, name, email)
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(UUID.self, forKey: "id")
        name = try coder.decode(String.self, forKey: "name")
        email = try coder.decodeIfPresent(String.self, forKey: "email")
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(email, forKey: "email")
    }
}
// end snippet

@Suite("Article: A repository for any record type")
struct RepositoryArticleTests {
    @Test func aRepositoryOfOneRecordType() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.path
        // snippet
        let todos = ArchiveRepository<TodoItem>(path: directory + "/todos.archive")
        var milk = TodoItem(id: "milk", title: "Buy milk")
        try todos.add(milk)
        try todos.add(TodoItem(id: "call", title: "Call Ada"))
        milk.done = true
        try todos.update(milk)
        let pending = try todos.records(matching: RecordQuery().where { !$0.done }).map(\.title)
        // end snippet
        #expect(pending == ["Call Ada"])
        #expect(try todos.get("milk")?.done == true)
        #expect(try todos.count() == 2)
        #expect(try todos.completed().map(\.id) == ["milk"])
        #expect(try RecordList(repository: todos).load().map(\.id) == ["call", "milk"])
        #expect(try ArchiveRepository<TodoItem>(path: directory + "/todos.archive").records().map(\.id) == ["call", "milk"])
        let duplicate = #expect(throws: StoreError.self) { try todos.add(TodoItem(id: "milk", title: "again")) }
        #expect(duplicate?.code == .duplicateID)
        let missing = #expect(throws: StoreError.self) { try todos.update(TodoItem(id: "eggs", title: "Eggs")) }
        #expect(missing?.code == .notFound)
    }
}

extension RepositoryArticleTests {
    @Test func changesTogetherAndAnImport() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let todos = ArchiveRepository<TodoItem>(path: temporary.file("todos.archive"))
        try todos.add(TodoItem(id: "milk", title: "Buy milk"))
        try todos.add(TodoItem(id: "call", title: "Call Ada"))
        let commits = todos.statistics.commits
        // snippet
        try todos.write { transaction in
            try transaction.add(TodoItem(id: "eggs", title: "Buy eggs"))
            try transaction.remove("call")
            if var milk = try transaction.get("milk") {
                milk.title = "Buy oat milk"
                try transaction.update(milk)
            }
        }
        // end snippet
        #expect(todos.statistics.commits == commits + 1)
        #expect(try todos.records().map(\.title) == ["Buy eggs", "Buy oat milk"])
        // snippet
        let added = try todos.add(contentsOf: (1...1_000).lazy.map { TodoItem(id: "task-\($0)", title: "Task \($0)") })
        // end snippet
        #expect(added == 1_000)
        #expect(try todos.count() == 1_002)
        #expect(try todos.get("task-500")?.title == "Task 500")
    }
}

// snippet
extension ArchiveRepository where Record == TodoItem {
    func completed() throws(StoreError) -> [TodoItem] { try records(matching: RecordQuery().where(\.done)) }
}

struct RecordList<Record: ArchiveRecord> {
    let repository: ArchiveRepository<Record>

    func save(_ record: Record) throws(StoreError) { try repository.upsert(record) }
    func load() throws(StoreError) -> [Record] { try repository.records() }
    func delete(_ id: Record.ID) throws(StoreError) { try repository.remove(id) }
}
// end snippet

extension RepositoryArticleTests {
    @Test func oneGenericLayerServesEveryRecordType() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.path
        // snippet
        let contacts = RecordList(repository: ArchiveRepository<Contact>(path: directory + "/contacts.archive"))
        let ada = Contact(name: "Ada", email: "ada@example.com")
        try contacts.save(ada)
        try contacts.save(Contact(name: "Charles"))
        // end snippet
        #expect(try contacts.load().map(\.name) == ["Ada", "Charles"])
        #expect(try contacts.repository.get(ada.id)?.email == "ada@example.com")
        ada.email = "ada@example.org"
        try contacts.save(ada)
        #expect(try contacts.repository.get(ada.id)?.email == "ada@example.org")
        try contacts.delete(ada.id)
        #expect(try contacts.load().map(\.name) == ["Charles"])
    }
}

/// Set once, read from any thread.
final class Flag: @unchecked Sendable { // Sendable: the value is behind `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

// snippet
struct ExerciseData: ArchiveRecord, Codable {
    let id: String
    var recordDate: Date
    var recordCount: Int
    static let indexes: [RecordIndex<ExerciseData>] = [
        RecordIndex("recordDate", \.recordDate),
        RecordIndex("recordCount", \.recordCount),
    ]
}
// end snippet

extension RepositoryArticleTests {
    @Test func theLargestCountAndTheLatestRecordsFromIndexes() async throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let exercises = ArchiveRepository<ExerciseData>(path: temporary.file("exercises.archive"))
        try exercises.add(contentsOf: (0..<50).map {
            ExerciseData(id: "x\($0)", recordDate: Date(timeIntervalSinceReferenceDate: Double($0) * 86_400), recordCount: ($0 * 7) % 130)
        })
        let decoded = exercises.statistics.recordsDecoded
        // snippet
        let largest = try exercises.max(of: \.recordCount)
        let total = try exercises.sum(of: \.recordCount)
        let latest = try exercises.records(matching: RecordQuery().sorted(by: \.recordDate, ascending: false).limit(20))
        let busyDays = try exercises.count(matching: RecordQuery().where(\.recordCount, in: 100...))
        // end snippet
        #expect(largest == (0..<50).map { ($0 * 7) % 130 }.max())
        #expect(total == (0..<50).map { ($0 * 7) % 130 }.reduce(0, +))
        #expect(latest.map(\.id) == (30..<50).reversed().map { "x\($0)" })
        #expect(busyDays == (0..<50).filter { ($0 * 7) % 130 >= 100 }.count)
        #expect(exercises.statistics.recordsDecoded - decoded == 20)
        let done = Flag()
        let follower = Task {
            // snippet
            for await change in exercises.changes() {
                if change.isReload || !change.added.isEmpty { break }
            }
            // end snippet
            done.set()
        }
        // Records added until the follower, subscribed at some point meanwhile, has seen one.
        var added = 0
        while !done.isSet && added < 500 {
            try exercises.add(ExerciseData(id: "new\(added)", recordDate: Date(), recordCount: 1))
            added += 1
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        await follower.value
        #expect(done.isSet)
        let changes = exercises.changes()
        try exercises.add(ExerciseData(id: "new", recordDate: Date(), recordCount: 1))
        var seen: RepositoryChange?
        for await change in changes {
            seen = change
            break
        }
        #expect(seen == RepositoryChange(added: ["new"]))
    }
}

extension RepositoryArticleTests {
    // snippet
    struct Session: ExpiringRecord, Codable {
        let id: String
        var expiresAt: Date
        var expiryDate: Date? { expiresAt }
    }
    // end snippet

    @Test func expiredRecordsAreFoundFromTheIndex() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let sessions = ArchiveRepository<Session>(path: temporary.file("sessions.archive"))
        try sessions.add(Session(id: "s1", expiresAt: start.addingTimeInterval(60)))
        try sessions.add(Session(id: "s2", expiresAt: start.addingTimeInterval(3600)))
        let now = start.addingTimeInterval(120)
        #expect(try sessions.expired(at: now).map(\.id) == ["s1"])
        // snippet
        let removed = try sessions.removeExpired(at: now)
        // end snippet
        #expect(removed.map(\.id) == ["s1"])
        #expect(try sessions.records().map(\.id) == ["s2"])
    }

    @Test func anExportIsOneOrdinaryKeyedArchive() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.path
        let todos = ArchiveRepository<TodoItem>(path: temporary.file("todos.archive"))
        try todos.add(contentsOf: [TodoItem(id: "call", title: "Call Ada")], skippingExisting: false)
        // snippet
        try todos.exportArchive(to: directory + "/todos-export.archive")
        // end snippet
        let exported = try temporary.read("todos-export.archive")
        #expect(try ArchiveRepository<TodoItem>.records(inArchive: exported, source: "export").map(\.id) == ["call"])
        let graph = try ArchiveGraph(bytes: exported)
        #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }.contains(["ArchiveRepositoryFile", "NSObject"]))
        #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }.contains(["TodoItem", "NSObject"]))
    }
}
