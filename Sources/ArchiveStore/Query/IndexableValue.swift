#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type a property index can keep and a query can compare: `Int` (and the other fixed-width integers up to
/// 64 bits), `Double`, `Float`, `Date`, `String`, `Bool`, `UUID`, and the optionals of each (`nil` sorts first,
/// as SQLite sorts `NULL`).
///
/// The index keeps an ``IndexValue`` ordered as the values are, and turns it back into the value, so `min`,
/// `max` and `sum` of an indexed property are read from the index without decoding a record.
///
/// Plays the part of the attribute types Core Data's `NSFetchIndexElementDescription` and Realm's
/// `@Persisted(indexed: true)` accept.
public protocol IndexableValue: Sendable {
    /// The type without `nil`: the type itself, or for an optional the type it wraps (`Int` for `Int?`), which
    /// a query's ranges and an aggregate's result are of. Default: `Self`.
    associatedtype Unwrapped: IndexableValue = Self
    /// The value as an index keeps it.
    var indexValue: IndexValue { get }
    /// The value an index kept; `nil` when `indexValue` is not one of this type's.
    init?(indexValue: IndexValue)
}

extension Int: IndexableValue {
    public var indexValue: IndexValue { IndexValue(integer: Int64(self)) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil, let value = Int(exactly: indexValue.integer) else { return nil }
        self = value
    }
}

extension Int64: IndexableValue {
    public var indexValue: IndexValue { IndexValue(integer: self) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil else { return nil }
        self = indexValue.integer
    }
}

extension Int32: IndexableValue {
    public var indexValue: IndexValue { IndexValue(integer: Int64(self)) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil, let value = Int32(exactly: indexValue.integer) else { return nil }
        self = value
    }
}

extension Double: IndexableValue {
    public var indexValue: IndexValue { IndexValue(double: self) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil else { return nil }
        self = indexValue.double
    }
}

extension Float: IndexableValue {
    public var indexValue: IndexValue { IndexValue(double: Double(self)) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil else { return nil }
        self = Float(indexValue.double)
    }
}

extension Bool: IndexableValue {
    public var indexValue: IndexValue { IndexValue(integer: self ? 1 : 0) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil else { return nil }
        self = indexValue.integer != 0
    }
}

extension Date: IndexableValue {
    /// Seconds since 2001 as a `Double` (as `NSDate` keeps them).
    public var indexValue: IndexValue { IndexValue(double: timeIntervalSinceReferenceDate) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil else { return nil }
        self = Date(timeIntervalSinceReferenceDate: indexValue.double)
    }
}

extension String: IndexableValue {
    public var indexValue: IndexValue { IndexValue(string: self) }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, let text = indexValue.text else { return nil }
        self = text
    }
}

extension UUID: IndexableValue {
    /// The UUID's 16 bytes, in order.
    public var indexValue: IndexValue {
        let bytes = uuid
        let high = [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5, bytes.6, bytes.7].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = [bytes.8, bytes.9, bytes.10, bytes.11, bytes.12, bytes.13, bytes.14, bytes.15].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return IndexValue(uuidBytes: (high, low))
    }
    public init?(indexValue: IndexValue) {
        guard indexValue.present == 1, indexValue.text == nil else { return nil }
        func byte(_ word: UInt64, _ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * i)) }
        let h = indexValue.high, l = indexValue.low
        self = UUID(uuid: (byte(h, 0), byte(h, 1), byte(h, 2), byte(h, 3), byte(h, 4), byte(h, 5), byte(h, 6), byte(h, 7),
                           byte(l, 0), byte(l, 1), byte(l, 2), byte(l, 3), byte(l, 4), byte(l, 5), byte(l, 6), byte(l, 7)))
    }
}

extension Optional: IndexableValue where Wrapped: IndexableValue {
    public typealias Unwrapped = Wrapped.Unwrapped
    public var indexValue: IndexValue { self?.indexValue ?? .null }
    public init?(indexValue: IndexValue) {
        if indexValue.present == 0 {
            self = .none
        } else {
            guard let value = Wrapped(indexValue: indexValue) else { return nil }
            self = .some(value)
        }
    }
}
