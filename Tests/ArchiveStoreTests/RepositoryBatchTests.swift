import ArchivePlatform
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

    /// Inputs failing in several lanes: the error of the first failing input is thrown, and every output made
    /// before it, in any lane, is released (none is kept alive by the batch).
    @Test(arguments: [1, 9, 100, 511])
    func theFirstFailureIsThrownAndEveryOutputMadeIsReleased(count: Int) throws {
        let alive = Locked(0)  // this case's own count: the cases run in parallel
        let failing: Set<Int> = [count / 2, count / 2 + 1, count - 1]
        let error = #expect(throws: StoreError.self) {
            _ = try ArchiveRepository<SampleRecord>.inParallel(Array(0..<count), path: "x") { i throws(StoreError) -> CountedOutput in
                if failing.contains(i) { throw StoreError(.corrupt, "input \(i)", path: "x") }
                return CountedOutput(alive)
            }
        }
        #expect(error?.reason == "input \(count / 2)")
        #expect(alive.withLock { $0 } == 0)
        // And without a failure, every output is handed back, in order.
        let made = try ArchiveRepository<SampleRecord>.inParallel(Array(0..<count), path: "x") { i throws(StoreError) in
            CountedOutput(alive, i)
        }
        #expect(made.map(\.index) == Array(0..<count))
        #expect(alive.withLock { $0 } == count)
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

/// An output that counts the instances alive in `counter`.
private final class CountedOutput: Sendable {
    let counter: Locked<Int>
    let index: Int
    init(_ counter: Locked<Int>, _ index: Int = -1) {
        (self.counter, self.index) = (counter, index)
        counter.withLock { $0 += 1 }
    }
    deinit { counter.withLock { $0 -= 1 } }
}
