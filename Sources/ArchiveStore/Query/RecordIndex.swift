/// A property of a record that the repository keeps an index of: declared by the record type in
/// ``ArchiveRecord/indexes``, with a name (part of the index file's name) and a key path to an
/// ``IndexableValue``: a stored property, or a computed one for a value derived from the record (an enum by its
/// raw value, a name folded to lower case).
///
/// ```swift
/// struct ExerciseData: ArchiveRecord, Codable {
///     var id: String
///     var recordDate: Date
///     var recordCount: Int
///     var isBusy: Bool { recordCount >= 100 }   // computed: indexed and queried like a stored property
///     static let indexes: [RecordIndex<ExerciseData>] = [
///         RecordIndex("recordDate", \.recordDate),
///         RecordIndex("recordCount", \.recordCount),
///         RecordIndex("isBusy", \.isBusy),
///     ]
/// }
/// let largest = try exercises.max(of: \.recordCount)
/// let busy = try exercises.count(matching: RecordQuery().where(\.isBusy, equals: true))
/// ```
///
/// The value is computed from the record when it is written (and, for a store written without the index,
/// once from every record when the index is first built), and kept in memory and in a file beside the store
/// (`<store>.index-<name>`). It is derived data: the records stay ordinary keyed archives. The value must
/// depend on the record alone (not on the time or on other records). The file records the index's name and
/// value type: an index whose computation changes under the same name and type is not noticed, so give it a
/// new name then (the old file is removed, the new index built once).
///
/// Mirrors `NSFetchIndexDescription` (Core Data) and `@Persisted(indexed: true)` (Realm).
public struct RecordIndex<Record>: Sendable {
    /// The index's name: letters, digits, `-` and `_`, at most 64 characters.
    public let name: String
    /// The key path queries name it by.
    let keyPath: AnyKeyPath & Sendable
    /// The value's type, kept in the index file: an index of another type under the same name is rebuilt.
    let valueType: String
    let value: @Sendable (Record) -> IndexValue

    /// An index of the property at `keyPath`.
    public init<Value: IndexableValue>(_ name: String, _ keyPath: KeyPath<Record, Value> & Sendable) {
        self.name = name
        self.keyPath = keyPath
        valueType = String(describing: Value.self)
        value = { record in record[keyPath: keyPath].indexValue }
    }

    /// Whether `name` can name an index file.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
    }
}
