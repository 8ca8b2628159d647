import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// Reading and archiving many records at once: batches of 512 spread over eight lanes, whatever their size.
@Suite("Repository: batches across the cores")
struct RepositoryBatchTests {
    /// Every batch size a store of 1,024 records or more can end with, through the eight lanes: a last batch of
    /// 1 to 41 records leaves lanes with nothing to do (review finding: their range started past its end).
    @Test(arguments: [1, 2, 6, 9, 13, 20, 27, 34, 41, 63, 64, 65, 511])
    func everyLastBatchSizeDecodesInOrder(lastBatch: Int) throws {
        let records = sampleRecords(0..<(2 * 512 + lastBatch))
        #expect(try ArchiveRepository<SampleRecord>.inParallel(records, path: "x") { $0.id } == records.map(\.id))
    }

    /// A store of 1,025 records (two full batches and one of a single record) lists every record in order,
    /// and `count(matching:)` with a closure condition and `forEach` see the same.
    @Test func aStoreWhoseLastBatchHoldsOneRecordListsEveryRecord() throws {
        let directory = try TemporaryDirectory()
        var options = RepositoryOptions()
        options.tuning.maintainsInBackground = false
        let repository = ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options)
        let records = sampleRecords(0..<1_025)
        #expect(try repository.add(contentsOf: records) == 1_025)
        #expect(try repository.records() == records)
        #expect(try repository.count(matching: RecordQuery().where { $0.id.hasSuffix("4") }) == records.filter { $0.id.hasSuffix("4") }.count)
        var seen = 0
        try repository.forEach { _ in seen += 1 }
        #expect(seen == 1_025)
    }
}
