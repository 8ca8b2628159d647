import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// `changes()` and `observe(_:)`: commits of this object at once, of another object (as of another process)
/// through the file watch; what changed listed by id, a reload when it cannot be.
@Suite("Repository: live changes")
struct RepositoryChangesTests {
    /// The next change, or `nil` after `seconds`.
    func next(_ iterator: inout AsyncStream<RepositoryChange>.Iterator, within seconds: Double = 5) async -> RepositoryChange? {
        let box = IteratorBox(iterator)
        let result = await withTaskGroup(of: RepositoryChange?.self) { group in
            group.addTask { await box.next() }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        iterator = box.iterator
        return result
    }

    final class IteratorBox: @unchecked Sendable { // Sendable: one task at a time uses it (the test awaits it).
        var iterator: AsyncStream<RepositoryChange>.Iterator
        init(_ iterator: AsyncStream<RepositoryChange>.Iterator) { self.iterator = iterator }
        func next() async -> RepositoryChange? { await iterator.next() }
    }

    @Test func commitsOfThisObjectArriveAtOnceWithTheirIds() async throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<IndexedExercise>(path: directory.file("Exercises.archive"))
        try repository.add(exercise(1))
        var changes = repository.changes().makeAsyncIterator()
        try repository.add(exercise(2))
        #expect(await next(&changes) == RepositoryChange(added: ["e2"]))
        try repository.write { transaction in
            try transaction.update(exercise(1, count: 7))
            try transaction.remove("e2")
            try transaction.add(exercise(3))
            try transaction.add(exercise(4))
            try transaction.remove("e4")
        }
        #expect(await next(&changes) == RepositoryChange(added: ["e3"], updated: ["e1"], removed: ["e2"]))
        try repository.add(contentsOf: (10..<1200).map { exercise($0) })
        #expect(await next(&changes) == RepositoryChange(isReload: true))
    }

    @Test func commitsOfAnotherObjectArriveThroughTheFileWatch() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Exercises.archive")
        let app = ArchiveRepository<IndexedExercise>(path: path)
        let widget = ArchiveRepository<IndexedExercise>(path: path)
        try app.add(exercise(1))
        var changes = app.changes().makeAsyncIterator()
        try widget.add(exercise(2))
        #expect(await next(&changes) == RepositoryChange(added: ["e2"]))
        try widget.remove("e1")
        #expect(await next(&changes) == RepositoryChange(removed: ["e1"]))
    }

    @Test func anObservedQueryYieldsOnlyWhenItsResultChanges() async throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<IndexedExercise>(path: directory.file("Exercises.archive"))
        try repository.add(contentsOf: [exercise(1, count: 5), exercise(2, count: 9)])
        let top = RecordQuery<IndexedExercise>().sorted(by: \.recordCount, ascending: false).limit(1)
        var results = repository.observe(top).makeAsyncIterator()
        #expect(try await results.next()?.map(\.id) == ["e2"])
        try repository.add(exercise(3, count: 1))        // the top is unchanged: nothing sent
        try repository.add(exercise(4, count: 50))
        #expect(try await results.next()?.map(\.id) == ["e4"])
    }

    @Test func aNetChangeListsARecordAddedAndRemovedNowhere() {
        let added = TableChange(key: Array("a".utf8), removed: nil, added: LiveEntry(hash: 0, offset: 64, length: 10, expiryBits: 0), values: nil)
        let removed = TableChange(key: Array("a".utf8), removed: 64, added: nil, values: nil)
        let again = TableChange(key: Array("b".utf8), removed: 80, added: LiveEntry(hash: 0, offset: 96, length: 10, expiryBits: 0), values: nil)
        #expect(RepositoryChange([added, removed, again]) == RepositoryChange(updated: ["b"]))
        #expect(RepositoryChange([removed, added]) == RepositoryChange(updated: ["a"]))
    }
}

extension RepositoryChangesTests {
    @Test func aStoreWhoseDirectoryDoesNotExistYetIsWatchedOnceItIsMade() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("later/Exercises.archive")
        let app = ArchiveRepository<IndexedExercise>(path: path)
        var changes = app.changes().makeAsyncIterator()
        let widget = ArchiveRepository<IndexedExercise>(path: path)
        try widget.add(exercise(1))   // makes the directory and the store
        #expect(await next(&changes) == RepositoryChange(isReload: true))   // the store appeared: read it
        try widget.add(exercise(2))
        #expect(await next(&changes) == RepositoryChange(added: ["e2"]))
    }
}

extension RepositoryChangesTests {
    @Test func theJournalStopsOnceTheLastObserverLeaves() async throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"))
        try repository.add(sampleRecords(0..<1)[0])
        var changes: AsyncStream<RepositoryChange>.Iterator? = repository.changes().makeAsyncIterator()
        try repository.add(sampleRecords(1..<2)[0])
        if var iterator = changes {
            #expect(await next(&iterator) == RepositoryChange(added: ["id1"]))
        }
        changes = nil   // the stream ends: its observer leaves
        for _ in 0..<50 where !repository.changeObservers.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(repository.changeObservers.withLock { $0.isEmpty })
        for record in sampleRecords(2..<6) { try repository.add(record) }
        let journal = repository.reader.withLock { $0.handle?.journal }
        #expect(journal == nil)
    }
}

extension RepositoryChangesTests {
    @Test func theStreamKeepsItsRepositoryAliveWhileItIsIterated() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Exercises.archive")
        try ArchiveRepository<IndexedExercise>(path: path).add(exercise(1))
        // Nothing else holds the repository the stream came from.
        var changes = ArchiveRepository<IndexedExercise>(path: path).changes().makeAsyncIterator()
        try ArchiveRepository<IndexedExercise>(path: path).add(exercise(2))
        #expect(await next(&changes) == RepositoryChange(added: ["e2"]))
    }
}
