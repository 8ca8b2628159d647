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
/// Without an order, records come in the order of ``ArchiveRepository/records(matching:)`` (of their last write).
///
/// Mirrors `NSFetchRequest` with a predicate, sort descriptors, `fetchLimit` and `fetchOffset` (Core Data),
/// GRDB's `QueryInterfaceRequest` and SwiftData's `FetchDescriptor`.
public struct RecordQuery<Record: ArchiveRecord>: Sendable {
    /// A property a query names: by key path (answered from the index declared with that key path, if any),
    /// or a test of the decoded record (no key path: never answered from an index).
    struct Property: Sendable {
        var keyPath: (AnyKeyPath & Sendable)?
        /// The value of a decoded record.
        var value: @Sendable (Record) -> IndexValue

        func matches(_ index: RecordIndex<Record>) -> Bool {
            guard let keyPath else { return false }
            return index.keyPath == keyPath
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

    /// A query for every record, in the order of ``ArchiveRepository/records(matching:)``.
    public init() {}

    /// Whether the query is every record in the order of ``ArchiveRepository/records(matching:)``: no condition, order or window.
    package var isEverything: Bool { conditions.isEmpty && order == nil && limitCount == nil && offsetCount == 0 }

    private func adding(_ property: Property, _ bounds: IndexBounds) -> Self {
        var query = self
        query.conditions.append(Condition(property: property, bounds: bounds))
        return query
    }

    /// A condition tested on decoded records only: `isIncluded` as a property no index answers, true for one.
    private func adding(_ test: Property) -> Self { adding(test, IndexBounds(equalTo: Self.included)) }

    /// The value of a ``test(_:)`` property for a record it includes.
    static var included: IndexValue { IndexValue(integer: 1) }

    /// A property no index answers (it names none): `isIncluded` on the decoded record, as ``included`` or not.
    static func test(_ isIncluded: @escaping @Sendable (Record) -> Bool) -> Property {
        Property(keyPath: nil, value: { record in isIncluded(record) ? included : IndexValue(integer: 0) })
    }

    static func property<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable) -> Property {
        Property(keyPath: keyPath, value: { $0[keyPath: keyPath].indexValue })
    }

    // MARK: Conditions

    /// Records whose property at `keyPath` equals `value` (`nil` included, for an optional property).
    public func `where`<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, equals value: Value) -> Self {
        adding(Self.property(keyPath), IndexBounds(equalTo: value.indexValue))
    }

    /// Records whose property at `keyPath` lies in `range`: any range of the standard library (`a...b`, `a..<b`,
    /// `a...`, `...b`, `..<b`). An optional property's `nil` lies in no range.
    ///
    /// ```swift
    /// let busy = RecordQuery<ExerciseData>().where(\.recordCount, in: 100...)
    /// ```
    ///
    /// A range of another `RangeExpression` type is tested on decoded records (by its `contains(_:)`), not
    /// from the property's index.
    public func `where`<Value: IndexableValue, Bounds: RangeExpression & Sendable>(
        _ keyPath: KeyPath<Record, Value> & Sendable, in range: Bounds
    ) -> Self where Bounds.Bound == Value.Unwrapped {
        guard let bounds = IndexBounds(range) else {
            return adding(Self.test { record in Value.Unwrapped(indexValue: record[keyPath: keyPath].indexValue).map(range.contains) ?? false })
        }
        return adding(Self.property(keyPath), bounds)
    }

    /// Records whose property at `keyPath` is above `value` (`>`; an optional property's `nil` is not).
    public func `where`<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, greaterThan value: Value.Unwrapped) -> Self
    where Value.Unwrapped: Comparable {
        adding(Self.property(keyPath), IndexBounds(lower: value.indexValue, lowerInclusive: false, upper: nil, upperInclusive: true))
    }

    /// Records for which `isIncluded` is true: a condition on anything a record holds, tested on each record
    /// the other conditions leave (decoded for it), combined with them by AND.
    ///
    /// ```swift
    /// let pending = try todos.records(matching: RecordQuery().where { !$0.done })
    /// ```
    ///
    /// Mirrors `NSPredicate(block:)` and Swift's `filter(_:)`.
    public func `where`(_ isIncluded: @escaping @Sendable (Record) -> Bool) -> Self {
        adding(Self.test(isIncluded))
    }

    // MARK: Order and window

    /// Records ordered by the property at `keyPath` (ties in the order of their last write, reversed when
    /// descending). A later call replaces the order.
    public func sorted<Value: IndexableValue>(by keyPath: KeyPath<Record, Value> & Sendable, ascending: Bool = true) -> Self {
        var query = self
        query.order = (Self.property(keyPath), ascending)
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

    /// The bounds of one of the standard library's ranges, without `nil` (a missing lower bound is the lowest
    /// value that is not `nil`); `nil` for a range of another type.
    init?<Bounds: RangeExpression>(_ range: Bounds) where Bounds.Bound: IndexableValue {
        let lowest = IndexValue.lowest
        if let range = range as? ClosedRange<Bounds.Bound> {
            self.init(lower: range.lowerBound.indexValue, lowerInclusive: true, upper: range.upperBound.indexValue, upperInclusive: true)
        } else if let range = range as? Range<Bounds.Bound> {
            self.init(lower: range.lowerBound.indexValue, lowerInclusive: true, upper: range.upperBound.indexValue, upperInclusive: false)
        } else if let range = range as? PartialRangeFrom<Bounds.Bound> {
            self.init(lower: range.lowerBound.indexValue, lowerInclusive: true, upper: nil, upperInclusive: true)
        } else if let range = range as? PartialRangeThrough<Bounds.Bound> {
            self.init(lower: lowest, lowerInclusive: true, upper: range.upperBound.indexValue, upperInclusive: true)
        } else if let range = range as? PartialRangeUpTo<Bounds.Bound> {
            self.init(lower: lowest, lowerInclusive: true, upper: range.upperBound.indexValue, upperInclusive: false)
        } else {
            return nil
        }
    }

    func admits(_ value: IndexValue) -> Bool {
        if let lower, lowerInclusive ? value < lower : !(lower < value) { return false }
        if let upper, upperInclusive ? upper < value : !(value < upper) { return false }
        return true
    }
}
