import Foundation
import ArchiveStore
import KeyedArchive

/// The Realm example's model: a date and a count, both indexed, and an optional note.
struct IndexedExercise: ArchiveRecord, Codable, Hashable, Sendable {
    var id: String
    var recordDate: Date
    var recordCount: Int
    var weight: Double
    var note: String?

    static let indexes: [RecordIndex<IndexedExercise>] = [
        RecordIndex("recordDate", \.recordDate),
        RecordIndex("recordCount", \.recordCount),
        RecordIndex("note", \.note),
    ]
}

/// The same records with one index fewer (a later build that dropped `note`), and with none.
struct ExerciseWithoutNote: ArchiveRecord, Codable, Hashable, Sendable {
    var id: String
    var recordDate: Date
    var recordCount: Int
    var weight: Double
    var note: String?
    static var archivedClassName: String { "IndexedExercise" }
    static let indexes: [RecordIndex<ExerciseWithoutNote>] = [
        RecordIndex("recordDate", \.recordDate),
        RecordIndex("recordCount", \.recordCount),
    ]
}

struct ExerciseUnindexed: ArchiveRecord, Codable, Hashable, Sendable {
    var id: String
    var recordDate: Date
    var recordCount: Int
    var weight: Double
    var note: String?
    static var archivedClassName: String { "IndexedExercise" }
}

func exercise(_ i: Int, count: Int? = nil, note: String? = nil) -> IndexedExercise {
    IndexedExercise(id: "e\(i)", recordDate: Date(timeIntervalSinceReferenceDate: Double(1_000 * (i % 97))),
                 recordCount: count ?? (i * 37) % 101 - 20, weight: Double(i % 13) * 0.5, note: note)
}

/// A count with two computed properties indexed by their key paths (neither is archived).
struct GradedExercise: ArchiveRecord, Codable, Hashable, Sendable {
    var id: String
    var recordCount: Int
    var isBusy: Bool { recordCount >= 70 }
    var grade: Int { recordCount / 10 }

    static let indexes: [RecordIndex<GradedExercise>] = [
        RecordIndex("isBusy", \.isBusy),
        RecordIndex("grade", \.grade),
    ]
}

/// A range of the caller's own: the even integers (a query tests it on decoded records).
struct EvenNumbers: RangeExpression, Sendable {
    func contains(_ element: Int) -> Bool { element % 2 == 0 }
    func relative<C: Collection>(to collection: C) -> Range<Int> where C.Index == Int { collection.startIndex..<collection.endIndex }
}
