import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// Property indexes and queries: the Realm example's questions answered from indexes, decoding only what is
/// returned; unindexed conditions by decoding; index files written, used, rebuilt when damaged, dropped when
/// no longer declared.
@Suite("Repository: queries and property indexes")
struct RepositoryQueryTests {
    func store<R: ArchiveRecord>(_ directory: TemporaryDirectory, _ type: R.Type = IndexedExercise.self, background: Bool = false) -> ArchiveRepository<R> {
        var options = RepositoryOptions()
        options.tuning.maintainsInBackground = background
        return ArchiveRepository<R>(path: directory.file("data/Exercises.archive"), options: options)
    }

    @Test func theLargestRecordCountIsReadFromItsIndexWithoutDecoding() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory)
        try exercises.add(contentsOf: (0..<500).map { exercise($0) })
        #expect(try exercises.max(of: \.recordCount) == 80)
        #expect(try exercises.min(of: \.recordCount) == -20)
        let before = exercises.statistics
        #expect(try exercises.max(of: \.recordCount) == 80)
        #expect(try exercises.count(matching: RecordQuery().where(\.recordCount, in: 0...10)) == (0..<500).filter { (0...10).contains(exercise($0).recordCount) }.count)
        #expect(try exercises.sum(of: \.recordCount) == (0..<500).map { exercise($0).recordCount }.reduce(0, +))
        let average = try #require(try exercises.average(of: \.recordCount))
        #expect(abs(average - Double((0..<500).map { exercise($0).recordCount }.reduce(0, +)) / 500) < 1e-9)
        #expect(exercises.statistics.recordsDecoded == before.recordsDecoded)
        // Sorted, first 20: 20 records decoded.
        let top = try exercises.records(matching: RecordQuery().sorted(by: \.recordCount, ascending: false).limit(20))
        #expect(exercises.statistics.recordsDecoded - before.recordsDecoded == 20)
        let expected = (0..<500).map { exercise($0) }.enumerated().sorted { a, b in
            a.element.recordCount != b.element.recordCount ? a.element.recordCount > b.element.recordCount : a.offset > b.offset
        }.prefix(20).map(\.element)
        #expect(top == Array(expected))
        #expect(exercises.statistics.indexBuilds == 0)   // kept by the commits from the first add
    }

    @Test func anIntegerSumPastItsTypeIsAnOverflowErrorNotATrap() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory)
        try exercises.add(contentsOf: [exercise(0, count: Int.max), exercise(1, count: 1), exercise(2, count: 5)])
        let error = #expect(throws: StoreError.self) { try exercises.sum(of: \.recordCount) }
        #expect(error?.code == .overflow)
        #expect(error?.reason == "the sum of the property leaves Int's range (\(Int.min)...\(Int.max))")
        // Within range: the exact sum, and the Double one.
        #expect(try exercises.sum(of: \.recordCount, matching: RecordQuery().where(\.recordCount, in: ..<10)) == 6)
        #expect(try exercises.sum(of: \.weight) == 1.0 * 0 + 0.5 + 1.0)
    }

    @Test func aMaxOverAnUnindexedPropertyDecodesEveryRecord() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory)
        try exercises.add(contentsOf: (0..<50).map { exercise($0) })
        exercises.close()
        try exercises.prepareIndexes()   // from the files written with the store: nothing decoded
        let before = exercises.statistics.recordsDecoded
        #expect(before == 0)
        #expect(try exercises.max(of: \.weight) == 6.0)
        #expect(try exercises.records(matching: RecordQuery().where(\.weight, in: 5.5...)).map(\.id) == (0..<50).filter { Double($0 % 13) * 0.5 >= 5.5 }.map { "e\($0)" })
        #expect(exercises.statistics.recordsDecoded - before == 100)
    }

    /// A computed property is indexed and queried by its key path as a stored one is (nothing decoded), a
    /// closure condition narrows what the indexed conditions leave (decoding only those, and with a limit and no
    /// order stopping at the last one it needs), and a range of a type of the caller's own is tested on
    /// decoded records.
    @Test func computedPropertiesClosuresAndOtherRangesCombineWithIndexedConditions() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory, GradedExercise.self)
        try exercises.add(contentsOf: (0..<100).map { GradedExercise(id: "g\($0)", recordCount: $0) })
        let before = exercises.statistics.recordsDecoded
        #expect(try exercises.count(matching: RecordQuery().where(\.isBusy, equals: true)) == 30)
        #expect(try exercises.max(of: \.grade) == 9)
        #expect(try exercises.ids(matching: RecordQuery().where(\.grade, in: 3..<5).sorted(by: \.grade, ascending: false).limit(2)) == ["g49", "g48"])
        #expect(exercises.statistics.recordsDecoded == before)
        let odd = try exercises.ids(matching: RecordQuery().where(\.isBusy, equals: true).where { $0.recordCount % 2 == 1 }.limit(3))
        #expect(odd == ["g71", "g73", "g75"])
        #expect(exercises.statistics.recordsDecoded - before == 6)   // g70 ... g75
        #expect(try exercises.count(matching: RecordQuery().where(\.recordCount, in: EvenNumbers())) == 50)
        #expect(try exercises.count(matching: RecordQuery().where(\.grade, in: EvenNumbers()).where(\.isBusy, equals: false)) == 40)
    }

    @Test func optionalValuesSortFirstAndRangesLeaveThemOut() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory)
        try exercises.add(contentsOf: [exercise(1, note: "b"), exercise(2), exercise(3, note: "a"), exercise(4, note: "ab")])
        #expect(try exercises.ids(matching: RecordQuery().sorted(by: \.note)) == ["e2", "e3", "e4", "e1"])
        #expect(try exercises.ids(matching: RecordQuery().where(\.note, equals: nil)) == ["e2"])
        #expect(try exercises.ids(matching: RecordQuery().where(\.note, in: ..."ab")) == ["e3", "e4"])
        #expect(try exercises.min(of: \.note) == "a")
        #expect(try exercises.max(of: \.note) == "b")
    }

    @Test func indexFilesLetAnotherObjectStartWithoutDecoding() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory)
        try exercises.add(contentsOf: (0..<300).map { exercise($0) })
        try exercises.prepareIndexes()
        exercises.close()
        for name in ["recordDate", "recordCount", "note"] {
            #expect(FileManager.default.fileExists(atPath: exercises.propertyIndexPath(name)))
        }
        let other = store(directory)
        try other.add(exercise(1000, count: 500))
        #expect(try other.max(of: \.recordCount) == 500)
        #expect(other.statistics.indexBuilds == 0)
        #expect(other.statistics.recordsDecoded == 1)   // the one record committed after the files
    }

    @Test func aDamagedIndexFileIsRebuiltNeverTrusted() throws {
        let directory = try TemporaryDirectory()
        let exercises = store(directory)
        try exercises.add(contentsOf: (0..<200).map { exercise($0) })
        try exercises.prepareIndexes()
        exercises.close()
        let file = exercises.propertyIndexPath("recordCount")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count - 40] ^= 0x10   // a value inside a row
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let other = store(directory)
        #expect(try other.max(of: \.recordCount) == 80)
        #expect(other.statistics.indexBuilds == 1)
        #expect(try other.ids(matching: RecordQuery().where(\.recordCount, equals: 80)) == (0..<200).filter { exercise($0).recordCount == 80 }.map { "e\($0)" })
    }

    @Test func indexesNoLongerDeclaredAreRemovedAndNewOnesBuilt() throws {
        let directory = try TemporaryDirectory()
        let unindexed = store(directory, ExerciseUnindexed.self)
        try unindexed.add(contentsOf: (0..<100).map { i in
            let e = exercise(i, note: "n\(i % 3)")
            return ExerciseUnindexed(id: e.id, recordDate: e.recordDate, recordCount: e.recordCount, weight: e.weight, note: e.note)
        })
        let exercises = store(directory)
        var progress: [Int] = []
        try exercises.prepareIndexes { done, _ in progress.append(done) }
        #expect(progress.last == 100)
        #expect(try exercises.count(matching: RecordQuery().where(\.note, equals: "n1")) == 33)
        exercises.close()
        let fewer = store(directory, ExerciseWithoutNote.self)
        try fewer.prepareIndexes()
        #expect(!FileManager.default.fileExists(atPath: exercises.propertyIndexPath("note")))
        #expect(FileManager.default.fileExists(atPath: exercises.propertyIndexPath("recordCount")))
        // `export` is unchanged by indexes: the records are ordinary archives.
        #expect(try fewer.max(of: \.recordCount) == 80)
    }

    @Test func invalidIndexNamesAreRefused() throws {
        struct Bad: ArchiveRecord, Codable {
            var id: String
            var count: Int
            static let indexes: [RecordIndex<Bad>] = [RecordIndex("../count", \.count)]
        }
        let directory = try TemporaryDirectory()
        let bad = ArchiveRepository<Bad>(path: directory.file("Bad.archive"))
        try bad.add(Bad(id: "a", count: 1))
        #expect {
            try bad.max(of: \.count)
        } throws: { error in
            (error as? StoreError)?.code == .invalidArgument
        }
        bad.close()
        #expect(try directory.entries().sorted() == ["Bad.archive", "Bad.archive.lock"])   // no index file written anywhere
    }
}
