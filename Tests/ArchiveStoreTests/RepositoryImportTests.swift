import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// `add(contentsOf:)` over any sequence: one commit, written ahead of it in bounded pieces, all or nothing.
@Suite("Repository: streaming import")
struct RepositoryImportTests {
    func store(_ directory: TemporaryDirectory, writeAhead: Int = 1 << 22) -> ArchiveRepository<SampleRecord> {
        var options = RepositoryOptions()
        options.tuning.writeAheadBytes = writeAhead
        options.tuning.maintainsInBackground = false
        return ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"), options: options)
    }

    /// A lazy sequence read once, in one commit, written ahead a few kilobytes at a time; progress counts every
    /// record read, of the sequence's underestimated count (a lazy map over a range knows it).
    @Test func aLazySequenceIsImportedInOneCommitWrittenAheadInPieces() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory, writeAhead: 4_096)
        try repository.add(contentsOf: sampleRecords(0..<10))
        let before = repository.statistics
        var reads = 0
        let records = (10..<3_010).lazy.map { i -> SampleRecord in
            reads += 1
            return sampleRecords(i..<i + 1)[0]
        }
        var progress: [(Int, Int?)] = []
        let added = try repository.add(contentsOf: records, progress: { progress.append(($0, $1)) })
        #expect(added == 3_000)
        #expect(reads == 3_000)
        #expect(progress.count == 3_000 && progress.last?.0 == 3_000 && progress.last?.1 == 3_000)
        #expect(repository.statistics.commits - before.commits == 1)
        #expect(repository.statistics.syncs - before.syncs == 1)
        #expect(repository.statistics.bytesWritten - before.bytesWritten > 40 * 4_096)   // many pieces
        #expect(try store(directory).records() == sampleRecords(0..<3_010))
    }

    /// A taken id part way, after pieces were written ahead: nothing is added, what was written ahead is cut off,
    /// and the store takes the next write as if nothing happened.
    @Test func aDuplicatePartWayAddsNothing() throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory, writeAhead: 2_048)
        try repository.add(contentsOf: sampleRecords(0..<5))
        let size = try directory.read("Forms.archive").count
        let records = sampleRecords(100..<1_100) + sampleRecords(3..<4) + sampleRecords(1_100..<1_200)
        let error = #expect(throws: StoreError.self) { try repository.add(contentsOf: records) }
        #expect(error?.code == .duplicateID)
        #expect(error?.recordID == "id3")
        #expect(try directory.read("Forms.archive").count <= size)
        #expect(try repository.records() == sampleRecords(0..<5))
        #expect(try store(directory).records() == sampleRecords(0..<5))
        try repository.add(sampleRecords(5..<6)[0])
        #expect(try store(directory).records() == sampleRecords(0..<6))
    }

    /// With `skippingExisting`, ids taken in the store or earlier in the sequence are handed to `skipped`, in
    /// order; into a new store as into an existing one.
    @Test(arguments: [false, true])
    func takenIdsAreSkippedInOrder(existing: Bool) throws {
        let directory = try TemporaryDirectory()
        let repository = store(directory, writeAhead: 1_024)
        if existing { try repository.add(contentsOf: sampleRecords(0..<3)) }
        var skipped: [String] = []
        let records = sampleRecords(2..<600) + sampleRecords(10..<12) + sampleRecords(600..<601)
        let added = try repository.add(contentsOf: records, skippingExisting: true, skipped: { skipped.append($0.id) })
        #expect(skipped == (existing ? ["id2"] : []) + ["id10", "id11"])
        #expect(added == (existing ? 598 : 599))
        #expect(try store(directory).records() == (existing ? sampleRecords(0..<601) : sampleRecords(2..<601)))
    }

    /// An empty sequence writes nothing and creates nothing.
    @Test func anEmptySequenceCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<SampleRecord>(path: directory.file("data/Forms.archive"))
        #expect(try repository.add(contentsOf: [SampleRecord]().lazy.map { $0 }) == 0)
        #expect(try directory.entries() == [])
    }
}
