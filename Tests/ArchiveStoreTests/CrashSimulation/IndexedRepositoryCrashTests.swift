import Foundation
import Testing
import TestSupport
@testable import ArchiveStore
import KeyedArchive

/// The records of the power-cut tests read with property indexes (the same archives: class `FormRecord`).
struct IndexedSample: ExpiringRecord, Hashable, Sendable {
    var record: SampleRecord
    var id: String { record.id }
    var name: String { record.name }
    var registeredAt: Date { record.registeredAt }
    var expiresAt: Date { record.expiresAt }
    var expiryDate: Date? { record.expiresAt }
    static var archivedClassName: String { "FormRecord" }
    static let indexes: [RecordIndex<IndexedSample>] = [
        RecordIndex("name", \.name), RecordIndex("registeredAt", \.registeredAt), RecordIndex("expiresAt", \.expiresAt),
    ]
    init(_ record: SampleRecord) { self.record = record }
    init(coder: KeyedUnarchiver) throws { record = try SampleRecord(coder: coder) }
    func encode(with coder: KeyedArchiver) { record.encode(with: coder) }
}

/// A power cut at any point of an operation on a store with property indexes, their files written by the
/// operation too (after a commit, or when the repository goes, with temporary files renamed into place and no
/// sync): every state opens, holds the store before or after, and every query answered from the indexes
/// returns exactly what a full scan returns, before and after the next write. A torn, stale, missing or
/// half-renamed index file is rebuilt or brought up to date, never trusted.
@Suite("Repository: power cuts with property indexes")
struct IndexedRepositoryCrashTests {
    static let operations: [RecordLogFaultTests.Operation] = [
        .addToAbsentStore, .add, .update, .remove, .transaction, .removeCompactingTheLog, .addMergingTheIndex, .importWritingAhead,
    ]

    static func repository(_ root: String, _ operation: RecordLogFaultTests.Operation, _ fileSystem: FileSystem = .kernel) -> ArchiveRepository<IndexedSample> {
        var options = RepositoryOptions()
        options.tuning = RecordLogFaultTests.tuning(operation)
        options.fileSystem = fileSystem
        return ArchiveRepository<IndexedSample>(path: root + "/" + RecordLogFaultTests.storeName, options: options)
    }

    static func perform(_ operation: RecordLogFaultTests.Operation, on repository: ArchiveRepository<IndexedSample>) throws {
        var renamed = sampleRecords(2..<3)[0]
        renamed.name = "updated"
        switch operation {
        case .update: try repository.update(IndexedSample(renamed))
        case .remove: _ = try repository.remove("id3")
        case .removeCompactingTheLog: _ = try repository.remove("id2")
        case .importWritingAhead: _ = try repository.add(contentsOf: RecordLogFaultTests.importBatch.map(IndexedSample.init))
        case .transaction:
            try repository.write { transaction in
                try transaction.add(IndexedSample(RecordLogFaultTests.new))
                try transaction.update(IndexedSample(renamed))
                _ = try transaction.remove("id3")
            }
        default: try repository.add(IndexedSample(RecordLogFaultTests.new))
        }
    }

    @Test(arguments: operations)
    func everyCrashStateAnswersQueriesAsAFullScanDoes(operation: RecordLogFaultTests.Operation) throws {
        var before: [SampleRecord] = []
        var after: [SampleRecord] = []
        let report = try CrashSweep.run("indexed " + operation.rawValue, setUp: { root in
            before = try RecordLogFaultTests.setUp(operation, in: root)
            after = RecordLogFaultTests.expected(operation, after: before)
            if !before.isEmpty {
                // The index files of the store before, written.
                let repository = Self.repository(root, operation)
                try repository.prepareIndexes()
                repository.close()
            }
        }, operate: { root, fileSystem in
            let repository = Self.repository(root, operation, fileSystem)
            if !before.isEmpty { try repository.prepareIndexes() }   // from the files; the operation's commits keep them
            try Self.perform(operation, on: repository)
            repository.close()   // their files written again
        }, check: { root, acknowledged in
            try Self.check(root, operation, before: before, after: after, acknowledged: acknowledged)
        })
        #expect(report.failures == [], "\(report)")
        #expect(report.points > 3 && report.states >= report.points, "\(report)")
    }

    static func check(_ root: String, _ operation: RecordLogFaultTests.Operation, before: [SampleRecord], after: [SampleRecord],
                      acknowledged: Bool) throws -> [String] {
        var problems: [String] = []
        let repository = Self.repository(root, operation)
        let records: [SampleRecord]
        do {
            records = try repository.records().map(\.record)
        } catch {
            return ["the store does not open: \(error)"]
        }
        if acknowledged {
            if records != after { problems.append("acknowledged, but the store holds \(records.map(\.id)), not \(after.map(\.id))") }
        } else if records != before && records != after {
            problems.append("the store holds \(records.map(\.id)): neither the one before nor the one after")
        }
        problems += try Self.queryProblems(repository, records, when: "opened")
        try repository.add(IndexedSample(FullDiskAndDirectoryDurabilityTests.next))
        problems += try Self.queryProblems(repository, records + [FullDiskAndDirectoryDurabilityTests.next], when: "after the next write")
        repository.close()
        problems += try Self.queryProblems(Self.repository(root, operation), records + [FullDiskAndDirectoryDurabilityTests.next],
                                           when: "opened again")
        return problems
    }

    /// How queries from the indexes differ from a scan of `records` (in log order).
    static func queryProblems(_ repository: ArchiveRepository<IndexedSample>, _ records: [SampleRecord], when: String) throws -> [String] {
        var problems: [String] = []
        let byName = records.enumerated().sorted { a, b in
            a.element.name != b.element.name ? a.element.name.utf8.lexicographicallyPrecedes(b.element.name.utf8) : a.offset < b.offset
        }.map(\.element.id)
        if try repository.ids(matching: RecordQuery().sorted(by: \.name)) != byName { problems.append("\(when): sorted by name differs") }
        let limit = Date(timeIntervalSince1970: 1_999)
        if try repository.ids(matching: RecordQuery().where(\.expiresAt, in: ...limit)) != records.filter({ $0.expiresAt <= limit }).map(\.id) {
            problems.append("\(when): the expiry range differs")
        }
        if try repository.max(of: \.registeredAt) != records.map(\.registeredAt).max() { problems.append("\(when): max(registeredAt) differs") }
        if try repository.count(matching: RecordQuery().where(\.name, equals: "updated")) != records.filter({ $0.name == "updated" }).count {
            problems.append("\(when): count(name == updated) differs")
        }
        return problems
    }
}
