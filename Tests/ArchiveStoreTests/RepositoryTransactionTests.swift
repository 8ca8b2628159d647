import Foundation
import Testing
import TestSupport
@testable import ArchiveStore
import ArchivePlatform

/// `write { transaction in }`: many changes of any records in one commit, all or nothing, reads inside seeing
/// the transaction's own changes; and the single-record calls as one-change transactions.
@Suite("Repository: transactions")
struct RepositoryTransactionTests {
    struct Refused: Error, Equatable {}

    func store(_ directory: TemporaryDirectory, tuning: StoreTuning = StoreTuning()) -> ArchiveRepository<SampleRecord> {
        var options = RepositoryOptions()
        options.tuning = tuning
        return ArchiveRepository<SampleRecord>(path: directory.file("data/Forms.archive"), options: options)
    }

    func renamed(_ record: SampleRecord, _ name: String) -> SampleRecord {
        var copy = record
        copy.name = name
        return copy
    }

    @Test func changesOfManyRecordsAreOneCommitWithOneSync() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory)
        try repository.add(contentsOf: sampleRecords(0..<4))
        let before = repository.statistics
        let result = try repository.write { transaction -> Int in
            try transaction.add(sampleRecords(4..<5)[0])
            try transaction.update(renamed(sampleRecords(1..<2)[0], "one"))
            try transaction.upsert(renamed(sampleRecords(2..<3)[0], "two"))
            try transaction.upsert(sampleRecords(5..<6)[0])
            #expect(try transaction.remove("id0") == sampleRecords(0..<1)[0])
            return try transaction.count()
        }
        #expect(result == 5)
        let after = repository.statistics
        #expect(after.commits - before.commits == 1)
        #expect(after.syncs - before.syncs == 1)
        let expected = [sampleRecords(3..<4)[0], sampleRecords(4..<5)[0], renamed(sampleRecords(1..<2)[0], "one"),
                        renamed(sampleRecords(2..<3)[0], "two"), sampleRecords(5..<6)[0]]
        #expect(try repository.records() == expected)
        #expect(try store(directory).records() == expected)   // another handle, from the file
    }

    @Test func readsInsideSeeTheTransactionsOwnChanges() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory)
        try repository.add(contentsOf: sampleRecords(0..<3))
        try repository.write { transaction in
            #expect(try transaction.count() == 3)
            try transaction.add(sampleRecords(7..<8)[0])
            #expect(try transaction.get("id7") == sampleRecords(7..<8)[0])
            #expect(try transaction.contains("id7"))
            try transaction.update(renamed(sampleRecords(7..<8)[0], "seven"))
            #expect(try transaction.get("id7")?.name == "seven")
            #expect(try transaction.remove("id1") == sampleRecords(1..<2)[0])
            #expect(try transaction.get("id1") == nil)
            #expect(try !transaction.contains("id1"))
            #expect(try transaction.remove("id1") == nil)
            try transaction.add(renamed(sampleRecords(1..<2)[0], "again"))   // removed, so free again
            #expect(try transaction.get("id1")?.name == "again")
            #expect(try transaction.count() == 4)
            // Other readers still see the store as it was.
            #expect(try store(directory).count() == 3)
            #expect(try repository.get("id7") == nil)
        }
        #expect(try repository.records().map(\.id) == ["id0", "id2", "id7", "id1"])
        #expect(try repository.get("id1")?.name == "again")
    }

    @Test func aThrowingClosureWritesNothingAndItsErrorComesOutAsItIs() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory)
        try repository.add(contentsOf: sampleRecords(0..<3))
        let bytes = try directory.read("data/Forms.archive")
        #expect(throws: Refused()) {
            try repository.write { transaction in
                try transaction.add(sampleRecords(3..<4)[0])
                _ = try transaction.remove("id0")
                throw Refused()
            }
        }
        let duplicate = #expect(throws: StoreError.self) {
            try repository.write { transaction in
                try transaction.add(sampleRecords(4..<5)[0])
                try transaction.add(sampleRecords(1..<2)[0])   // taken
            }
        }
        #expect(duplicate?.code == .duplicateID)
        #expect(duplicate?.recordID == "id1")
        #expect(try directory.read("data/Forms.archive") == bytes)
        #expect(try repository.records() == sampleRecords(0..<3))
    }

    @Test func aCaughtErrorInsideLeavesTheOtherChangesToCommit() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory)
        try repository.add(contentsOf: sampleRecords(0..<2))
        try repository.write { transaction in
            let missing = #expect(throws: StoreError.self) { try transaction.update(sampleRecords(9..<10)[0]) }
            #expect(missing?.code == .notFound)
            try transaction.add(sampleRecords(2..<3)[0])
        }
        #expect(try repository.records() == sampleRecords(0..<3))
    }

    /// A transaction that changes nothing writes no store file (the directory and the lock file it took may be
    /// made; the single-record changes that need a store, `update` and `remove`, make nothing).
    @Test func aTransactionThatChangesNothingWritesNoStore() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory)
        let storePath = directory.file("data/Forms.archive")
        let count = try repository.write { transaction in try transaction.count() }
        #expect(count == 0)
        #expect(!FileManager.default.fileExists(atPath: storePath))
        try repository.write { transaction in
            try transaction.add(sampleRecords(0..<1)[0])
            _ = try transaction.remove("id0")
        }
        #expect(!FileManager.default.fileExists(atPath: storePath))
        try repository.write { transaction in try transaction.add(sampleRecords(0..<1)[0]) }
        #expect(try store(directory).records() == sampleRecords(0..<1))
    }

    @Test func aTransactionUsedAfterItsClosureRefusesEveryCall() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory)
        let escaped = try repository.write { transaction in transaction }
        let errors: [StoreError?] = [
            #expect(throws: StoreError.self) { try escaped.add(sampleRecords(0..<1)[0]) },
            #expect(throws: StoreError.self) { try escaped.get("id0") },
            #expect(throws: StoreError.self) { try escaped.count() },
        ]
        #expect(errors.map { $0?.code } == [.invalidArgument, .invalidArgument, .invalidArgument])
        #expect(try repository.count() == 0)
    }

    /// Random transactions of random changes against a model, through index writes and compactions, each
    /// checked from the repository that made it and from one that opens the file.
    @Test(arguments: [1, 2, 3])
    func randomTransactionsMatchAModel(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        var tuning = StoreTuning()
        tuning.mergeFrames = 8
        tuning.compactionFloor = 0
        tuning.maintainsInBackground = false
        let repository = store(directory, tuning: tuning)
        var model: [(id: String, record: SampleRecord)] = []
        var rng = SeededGenerator(seed: seed)
        for step in 0..<120 {
            var next = model
            let aborts = Int.random(in: 0..<6, using: &rng) == 0
            do {
                try repository.write { transaction in
                    for change in 0..<Int.random(in: 1...6, using: &rng) {
                        let id = "id\(Int.random(in: 0..<25, using: &rng))"
                        let record = SampleRecord(id: id, name: "s\(step)c\(change)", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                                                  expiresAt: Date(timeIntervalSince1970: 2))
                        let present = next.contains { $0.id == id }
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0 where !present:
                            try transaction.add(record)
                            next.append((id, record))
                        case 1 where present:
                            try transaction.update(record)
                            next.removeAll { $0.id == id }
                            next.append((id, record))
                        case 2:
                            try transaction.upsert(record)
                            next.removeAll { $0.id == id }
                            next.append((id, record))
                        default:
                            let removed = try transaction.remove(id)
                            #expect(removed == next.first { $0.id == id }?.record, "step \(step)")
                            next.removeAll { $0.id == id }
                        }
                        #expect(try transaction.count() == next.count, "step \(step)")
                    }
                    if aborts { throw Refused() }
                }
                model = next
            } catch is Refused {
                #expect(aborts)
            }
            let expected = model.map(\.record)
            #expect(try repository.records() == expected, "step \(step)")
            #expect(try store(directory, tuning: tuning).records() == expected, "step \(step)")
            #expect(try repository.count() == expected.count)
        }
    }

    /// A reader in another repository never sees a commit before its sync: the writer's sync is where the
    /// reader looks, and the new record is not there yet; after the commit it is.
    @Test func aCommitIsSeenByOtherReadersOnlyOnceItIsSynced() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/Forms.archive")
        try store(directory).add(contentsOf: sampleRecords(0..<2))
        let reader = store(directory)
        #expect(try reader.count() == 2)
        let seen = Locked<[Bool]>([])
        var options = RepositoryOptions()
        options.fileSystem = FileSystem { call, callPath in
            if call == .sync && callPath == path {
                seen.withLock { $0.append((try? reader.get("id5")) != nil) }
                seen.withLock { $0.append((try? ArchiveRepository<SampleRecord>(path: path).get("id5")) != nil) }
            }
            return nil
        }
        try ArchiveRepository<SampleRecord>(path: path, options: options).add(sampleRecords(5..<6)[0])
        #expect(seen.withLock { $0 } == [false, false])
        #expect(try reader.get("id5") == sampleRecords(5..<6)[0])
        #expect(try reader.count() == 3)
    }
}
