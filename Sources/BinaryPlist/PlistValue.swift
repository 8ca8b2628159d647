/// One property-list value: the tree that binary and XML plists decode to and encode from.
///
/// Equality is structural. Reals and dates compare by bit pattern (NaN equals the same NaN), dictionaries
/// compare as maps whatever their key order, sets as multisets; arrays keep their order. `1`, `1.0` and
/// `true` are three different values and never compare equal.
///
/// Mirrors `CFPropertyListRef`: `CFNull` (binary plists only), `CFBoolean`, `CFNumber`, `CFDate`, `CFData`,
/// `CFString`, `CFKeyedArchiverUID`, `CFArray`, `CFSet` and `CFDictionary`.
///
/// Frozen: its cases are the object types of the `bplist00` format, which has not changed since 2005; a
/// `switch` over them needs no `default`.
public enum PlistValue: Sendable {
    /// The binary null object, marker `0x00`. XML plists cannot express it.
    case null
    /// A boolean, markers `0x08` and `0x09`; never equal to an integer.
    case bool(Bool)
    /// An integer of up to 128 bits, signed or unsigned.
    case integer(PlistInteger)
    /// A 32- or 64-bit real, widened to `Double`; NaN and infinities are kept.
    case real(Double)
    /// A date, seconds since 2001-01-01.
    case date(PlistDate)
    /// Raw bytes.
    case data([UInt8])
    /// A string.
    case string(String)
    /// A UID: a reference to an object of a keyed archive.
    case uid(PlistUID)
    /// An array.
    case array([PlistValue])
    /// A set, its members in file order.
    case set([PlistValue])
    /// A dictionary, its keys in file order.
    case dictionary(PlistDictionary)
}

extension PlistValue {
    /// A short name of the value's kind, for error messages ("string", "dictionary", ...).
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .integer: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .string: "string"
        case .uid: "UID"
        case .array: "array"
        case .set: "set"
        case .dictionary: "dictionary"
        }
    }

    /// "an array", "a string", ...
    package var kindNameWithArticle: String {
        let name = kindName
        return (name.first.map { "aeiouAEIU".contains($0) } ?? false ? "an " : "a ") + name
    }

    /// The string, when the value is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The boolean, when the value is one (an integer is not).
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The integer, when the value is one.
    public var integerValue: PlistInteger? { if case .integer(let i) = self { i } else { nil } }
    /// The real, when the value is one (an integer is not).
    public var realValue: Double? { if case .real(let r) = self { r } else { nil } }
    /// The UID, when the value is one.
    public var uidValue: PlistUID? { if case .uid(let u) = self { u } else { nil } }
    /// The bytes, when the value is data.
    public var dataValue: [UInt8]? { if case .data(let d) = self { d } else { nil } }
    /// The date, when the value is one.
    public var dateValue: PlistDate? { if case .date(let d) = self { d } else { nil } }
    /// The elements, when the value is an array.
    public var arrayValue: [PlistValue]? { if case .array(let a) = self { a } else { nil } }
    /// The dictionary, when the value is one.
    public var dictionaryValue: PlistDictionary? { if case .dictionary(let d) = self { d } else { nil } }

    /// Whether the value is a set.
    package var isSet: Bool { if case .set = self { true } else { false } }

    /// Whether the value is an array, set or dictionary.
    package var isCollection: Bool {
        switch self {
        case .array, .set, .dictionary: true
        default: false
        }
    }

    /// The value under a string key, when the value is a dictionary.
    public subscript(key: String) -> PlistValue? {
        if case .dictionary(let d) = self { d[key] } else { nil }
    }
}

extension PlistValue: Hashable {
    /// Whether two values are structurally equal (see ``PlistValue``).
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.uid(let a), .uid(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.set(let a), .set(let b)): Self.sameMultiset(a, b)
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }

    /// Hashes the value consistently with its equality.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .integer(let i): hasher.combine(2); hasher.combine(i)
        case .real(let r): hasher.combine(3); hasher.combine(r.bitPattern)
        case .date(let d): hasher.combine(4); hasher.combine(d)
        case .data(let d): hasher.combine(5); hasher.combine(d)
        case .string(let s): hasher.combine(6); hasher.combine(s)
        case .uid(let u): hasher.combine(7); hasher.combine(u)
        case .array(let a): hasher.combine(8); hasher.combine(a)
        case .set(let s):
            hasher.combine(9)
            hasher.combine(s.count)
            // Order-independent: sum of element hashes.
            hasher.combine(s.reduce(0) { $0 &+ $1.hashValue })
        case .dictionary(let d): hasher.combine(10); hasher.combine(d)
        }
    }

    static func sameMultiset(_ a: [PlistValue], _ b: [PlistValue]) -> Bool {
        guard a.count == b.count else { return false }
        if a == b { return true }
        var counts: [PlistValue: Int] = [:]
        for x in a { counts[x, default: 0] += 1 }
        for y in b {
            guard let n = counts[y], n > 0 else { return false }
            counts[y] = n - 1
        }
        return true
    }
}

extension PlistValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(PlistInteger(value)) }
    /// A real.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
    /// A dictionary of string keys, in the literal's order.
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self = .dictionary(PlistDictionary(elements.map { (PlistValue.string($0.0), $0.1) }))
    }
}
