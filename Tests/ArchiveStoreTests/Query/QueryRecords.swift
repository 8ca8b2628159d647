import Foundation
import ArchiveStore
import KeyedArchive

/// The Realm example's model: a date and a count, both indexed, and an optional note indexed by a closure.
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
