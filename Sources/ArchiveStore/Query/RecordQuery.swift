/// A question for an ``ArchiveRepository``: conditions on properties (combined with AND), an order, and a
/// window (offset and limit). A small value, built by chaining and run by the repository:
///
/// ```swift
/// let recent = RecordQuery<ExerciseData>()
///     .where(\.recordCount, in: 10...)
///     .sorted(by: \.recordDate, ascending: false)
///     .limit(20)
/// let records = try exercises.records(matching: recent)
/// let total = try exercises.count(matching: recent)
/// ```
///
/// A condition or an order on a property the record type declares in ``ArchiveRecord/indexes`` is answered
/// from its index: only the records the query returns are decoded (none for ``ArchiveRepository/count(matching:)``,
/// ``ArchiveRepository/ids(matching:)`` or an aggregate). A condition or order on any other property still
/// works, by decoding every record the indexed conditions leave (every record when there are none).
///
/// Ranges exclude `nil`, as SQL's comparisons exclude `NULL`; `where(\.property, equals: nil)` finds it.
/// Without an order, records come in the order of ``ArchiveRepository/all()`` (of their last write).
///
/// Mirrors `NSFetchRequest` with a predicate, sort descriptors, `fetchLimit` and `fetchOffset` (Core Data),
/// GRDB's `QueryInterfaceRequest` and SwiftData's `FetchDescriptor`.
public struct RecordQuery<Record: ArchiveRecord>: Sendable {
    /// A property a query names: by key path (answered from the index declared with that key path, if any) or
    /// by index name.
    struct Property: Sendable {
        var keyPath: (AnyKeyPath & Sendable)?
        var indexName: String?
        /// The value of a decoded record (`nil` for an index named but not declared: see ``ArchiveRepository``).
        var value: (@Sendable (Record) -> IndexValue)?
        /// What an error names it by (made only then: a key path's description is costly).
        var description: String {
            if let indexName { return "index \"\(indexName)\"" }
            return keyPath.map { "\($0)" } ?? "a property"
        }

        func matches(_ index: RecordIndex<Record>) -> Bool {
            if let indexName { return index.name == indexName }
            guard let keyPath, let declared = index.keyPath else { return false }
            return declared == keyPath
        }
    }

    /// One condition: the property's value lies between the bounds.
    struct Condition: Sendable {
        var property: Property
        var bounds: IndexBounds

        func admits(_ value: IndexValue) -> Bool { bounds.admits(value) }
    }

    var conditions: [Condition] = []
    var order: (property: Property, ascending: Bool)?
    var limitCount: Int?
    var offsetCount = 0

    /// A query for every record, in the order of ``ArchiveRepository/all()``.
    public init() {}

    /// The lowest value that is not `nil`: a range's missing lower bound (ranges exclude `nil`).
    static var lowestValue: IndexValue { IndexValue(present: 1, high: 0, low: 0, text: nil) }

    private func adding(_ property: Property, lower: IndexValue?, lowerInclusive: Bool = true,
                        upper: IndexValue?, upperInclusive: Bool = true) -> Self {
        var query = self
        query.conditions.append(Condition(property: property, bounds: IndexBounds(lower: lower ?? Self.lowestValue, lowerInclusive: lowerInclusive,
                                                                                  upper: upper, upperInclusive: upperInclusive)))
        return query
    }

    static func property<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable) -> Property {
        Property(keyPath: keyPath, indexName: nil, value: { $0[keyPath: keyPath].indexValue })
    }

    static func property(index name: String) -> Property {
        let declared = Record.indexes.first { $0.name == name }
        return Property(keyPath: nil, indexName: name, value: declared?.value)
    }

    // MARK: Conditions

    /// Records whose property at `keyPath` equals `value` (`nil` included, for an optional property).
    public func `where`<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, equals value: Value) -> Self {
        var query = self
        query.conditions.append(Condition(property: Self.property(keyPath), bounds: IndexBounds(equalTo: value.indexValue)))
        return query
    }

    /// Records whose property at `keyPath` lies in `range`.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, in range: ClosedRange<Value>) -> Self {
        adding(Self.property(keyPath), lower: range.lowerBound.indexValue, upper: range.upperBound.indexValue)
    }

    /// Records whose property at `keyPath` lies in `range`.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, in range: Range<Value>) -> Self {
        adding(Self.property(keyPath), lower: range.lowerBound.indexValue, upper: range.upperBound.indexValue, upperInclusive: false)
    }

    /// Records whose property at `keyPath` is at least `range`'s lower bound.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, in range: PartialRangeFrom<Value>) -> Self {
        adding(Self.property(keyPath), lower: range.lowerBound.indexValue, upper: nil)
    }

    /// Records whose property at `keyPath` is at most `range`'s upper bound.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, in range: PartialRangeThrough<Value>) -> Self {
        adding(Self.property(keyPath), lower: nil, upper: range.upperBound.indexValue)
    }

    /// Records whose property at `keyPath` is below `range`'s upper bound.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, in range: PartialRangeUpTo<Value>) -> Self {
        adding(Self.property(keyPath), lower: nil, upper: range.upperBound.indexValue, upperInclusive: false)
    }

    /// Records whose property at `keyPath` is above `value` (`>`).
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, greaterThan value: Value) -> Self {
        adding(Self.property(keyPath), lower: value.indexValue, lowerInclusive: false, upper: nil)
    }

    /// Records whose property at `keyPath` is below `value` (`<`).
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value> & Sendable, lessThan value: Value) -> Self {
        adding(Self.property(keyPath), lower: nil, upper: value.indexValue, upperInclusive: false)
    }

    /// Records whose optional property at `keyPath` is not `nil` and lies in `range`.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value?> & Sendable, in range: ClosedRange<Value>) -> Self {
        adding(Self.property(keyPath), lower: range.lowerBound.indexValue, upper: range.upperBound.indexValue)
    }

    /// Records whose optional property at `keyPath` is not `nil` and lies in `range`.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value?> & Sendable, in range: Range<Value>) -> Self {
        adding(Self.property(keyPath), lower: range.lowerBound.indexValue, upper: range.upperBound.indexValue, upperInclusive: false)
    }

    /// Records whose optional property at `keyPath` is not `nil` and at least `range`'s lower bound.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value?> & Sendable, in range: PartialRangeFrom<Value>) -> Self {
        adding(Self.property(keyPath), lower: range.lowerBound.indexValue, upper: nil)
    }

    /// Records whose optional property at `keyPath` is not `nil` and at most `range`'s upper bound.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value?> & Sendable, in range: PartialRangeThrough<Value>) -> Self {
        adding(Self.property(keyPath), lower: nil, upper: range.upperBound.indexValue)
    }

    /// Records whose optional property at `keyPath` is not `nil` and below `range`'s upper bound.
    public func `where`<Value: IndexableValue & Comparable>(_ keyPath: KeyPath<Record, Value?> & Sendable, in range: PartialRangeUpTo<Value>) -> Self {
        adding(Self.property(keyPath), lower: nil, upper: range.upperBound.indexValue, upperInclusive: false)
    }

    /// Records whose value in the index named `name` (declared with a closure) equals `value`.
    public func `where`<Value: IndexableValue>(index name: String, equals value: Value) -> Self {
        var query = self
        query.conditions.append(Condition(property: Self.property(index: name), bounds: IndexBounds(equalTo: value.indexValue)))
        return query
    }

    /// Records whose value in the index named `name` (declared with a closure) lies in `range`.
    public func `where`<Value: IndexableValue & Comparable>(index name: String, in range: ClosedRange<Value>) -> Self {
        adding(Self.property(index: name), lower: range.lowerBound.indexValue, upper: range.upperBound.indexValue)
    }

    // MARK: Order and window

    /// Records ordered by the property at `keyPath` (ties in the order of their last write, reversed when
    /// descending). A later call
    /// replaces the order.
    public func sorted<Value: IndexableValue>(by keyPath: KeyPath<Record, Value> & Sendable, ascending: Bool = true) -> Self {
        var query = self
        query.order = (Self.property(keyPath), ascending)
        return query
    }

    /// Records ordered by their value in the index named `name`.
    public func sorted(byIndex name: String, ascending: Bool = true) -> Self {
        var query = self
        query.order = (Self.property(index: name), ascending)
        return query
    }

    /// At most `count` records (negative counts as zero).
    public func limit(_ count: Int) -> Self {
        var query = self
        query.limitCount = max(0, count)
        return query
    }

    /// Skips the first `count` records of the order (negative counts as zero).
    public func offset(_ count: Int) -> Self {
        var query = self
        query.offsetCount = max(0, count)
        return query
    }
}

/// The bounds of a condition on an index value (`nil`: unbounded on that side).
struct IndexBounds: Sendable {
    var lower: IndexValue?
    var lowerInclusive: Bool
    var upper: IndexValue?
    var upperInclusive: Bool

    init(lower: IndexValue?, lowerInclusive: Bool, upper: IndexValue?, upperInclusive: Bool) {
        (self.lower, self.lowerInclusive, self.upper, self.upperInclusive) = (lower, lowerInclusive, upper, upperInclusive)
    }

    /// Exactly `value`.
    init(equalTo value: IndexValue) { self.init(lower: value, lowerInclusive: true, upper: value, upperInclusive: true) }

    func admits(_ value: IndexValue) -> Bool {
        if let lower, lowerInclusive ? value < lower : !(lower < value) { return false }
        if let upper, upperInclusive ? upper < value : !(value < upper) { return false }
        return true
    }
}
