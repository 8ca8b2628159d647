/// A property wrapper that archives a value by its dynamic types: existentials (`any Shape`), collections
/// of them (`[any Shape]`, `[String: any Shape]`, `Set`), optionals of them, and ``KeyedArchivable`` values
/// held by a Codable type. Each object is written under its registered class name and decoded back to
/// that concrete type through the `ClassRegistry` given to ``ArchiveDecoder``.
///
/// ```swift
/// struct Contents: Codable {
///     @Polymorphic var shapes: [any Shape]
///     @Polymorphic var selection: (any Shape)?
/// }
/// ```
///
/// The synthesized `Codable` conformance then works unchanged. Hand-written conformances use the container
/// methods instead: `try container.encodePolymorphic(shapes, forKey: .shapes)` and
/// `shapes = try container.decodePolymorphic([any Shape].self, forKey: .shapes)`.
///
/// Only ``ArchiveEncoder`` / ``ArchiveDecoder`` can keep dynamic types; with another encoder or decoder a
/// wrapped value that is itself `Codable` is coded as usual, any other value is an error.
///
/// Mirrors what `NSCoder.encode(_:forKey:)` / `decodeObject(of:forKey:)` do for any `NSObject`.
@propertyWrapper
public struct Polymorphic<Value> {
    /// The value, archived by its dynamic types.
    public var wrappedValue: Value

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }
}

extension Polymorphic: Sendable where Value: Sendable {}

extension Polymorphic: Encodable {
    /// Encodes the value as a plain `Encodable` for an encoder other than ``ArchiveEncoder``, which never calls this.
    public func encode(to encoder: any Encoder) throws {
        // ArchiveEncoder never calls this (it encodes `wrappedValue` by its dynamic type directly).
        guard let encodable = wrappedValue as? any Encodable else {
            throw EncodingError.invalidValue(wrappedValue, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "a \(Value.self) can only be encoded by ArchiveEncoder"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(encodable)
    }
}

extension Polymorphic: Decodable {
    /// Decodes the value as a plain `Decodable` for a decoder other than ``ArchiveDecoder``, which never calls this.
    public init(from decoder: any Decoder) throws {
        // ArchiveDecoder never calls this (it decodes by the archived class names directly).
        guard let decodable = Value.self as? any Decodable.Type else {
            throw DecodingError.typeMismatch(Value.self, DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "a \(Value.self) can only be decoded by ArchiveDecoder"))
        }
        let value = try decoder.singleValueContainer().decode(decodable)
        guard let typed = value as? Value else {
            throw DecodingError.typeMismatch(Value.self, DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "decoded a \(type(of: value))"))
        }
        wrappedValue = typed
    }
}

// MARK: Container methods

extension KeyedEncodingContainer {
    /// Encodes `value` by its dynamic type (see ``Polymorphic``): `[any Shape]`, `any Shape`, `(any Shape)?`,
    /// `[String: any Shape]`, a ``KeyedArchivable`` value. `nil` is written as `$null`.
    public mutating func encodePolymorphic<Value>(_ value: Value, forKey key: Key) throws {
        try encode(Polymorphic(wrappedValue: value), forKey: key)
    }
}

extension KeyedDecodingContainer {
    /// Decodes a value written by ``KeyedEncodingContainer/encodePolymorphic(_:forKey:)``, each object as
    /// the type registered for its archived class name.
    ///
    /// ```swift
    /// shapes = try container.decodePolymorphic([any Shape].self, forKey: .shapes)
    /// ```
    public func decodePolymorphic<Value>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decode(Polymorphic<Value>.self, forKey: key).wrappedValue
    }

    /// `nil` when the key is missing or holds `$null`.
    public func decodePolymorphicIfPresent<Value>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        try decodeIfPresent(Polymorphic<Value>.self, forKey: key)?.wrappedValue
    }
}

extension UnkeyedEncodingContainer {
    /// Encodes `value` by its dynamic type (see ``Polymorphic``).
    public mutating func encodePolymorphic<Value>(_ value: Value) throws {
        try encode(Polymorphic(wrappedValue: value))
    }
}

extension UnkeyedDecodingContainer {
    /// Decodes the next value as the types registered for its archived class names.
    public mutating func decodePolymorphic<Value>(_ type: Value.Type) throws -> Value {
        try decode(Polymorphic<Value>.self).wrappedValue
    }
}

extension SingleValueEncodingContainer {
    /// Encodes `value` by its dynamic type (see ``Polymorphic``).
    public mutating func encodePolymorphic<Value>(_ value: Value) throws {
        try encode(Polymorphic(wrappedValue: value))
    }
}

extension SingleValueDecodingContainer {
    /// Decodes the value as the types registered for its archived class names.
    public func decodePolymorphic<Value>(_ type: Value.Type) throws -> Value {
        try decode(Polymorphic<Value>.self).wrappedValue
    }
}

// MARK: Hooks the encoder and decoder look for

/// A ``Polymorphic`` wrapper, seen by the encoder without knowing its `Value`.
protocol PolymorphicEncodable {
    var polymorphicValue: Any { get }
}

extension Polymorphic: PolymorphicEncodable {
    var polymorphicValue: Any { wrappedValue }
}

/// A ``Polymorphic`` wrapper, built by the decoder without knowing its `Value`.
protocol PolymorphicDecodable {
    static func decodePolymorphic(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self
    /// The value for a missing key: `nil` when `Value` is optional.
    static var absentValue: Self? { get }
}

extension Polymorphic: PolymorphicDecodable {
    static func decodePolymorphic(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self {
        Polymorphic(wrappedValue: try decoder.decodeAny(Value.self, from: value))
    }

    static var absentValue: Self? {
        ((Value.self as? any ArchiveNilConstructible.Type)?.archiveNil as? Value).map { Polymorphic(wrappedValue: $0) }
    }
}

protocol ArchiveNilConstructible {
    static var archiveNil: Self { get }
}

extension Optional: ArchiveNilConstructible {
    static var archiveNil: Self { nil }
}

/// Collections (and optionals) whose elements may be existentials: decoded element by element.
protocol PolymorphicDecodingCollection {
    static func decodePolymorphicCollection(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self
}

extension Array: PolymorphicDecodingCollection {
    static func decodePolymorphicCollection(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self {
        var result: [Element] = []
        try decoder.forEachElement(of: value, as: Self.self) { element, count in
            if result.isEmpty { result.reserveCapacity(count) }
            result.append(try decoder.decodeAny(Element.self, from: element))
        }
        return result
    }
}

extension Set: PolymorphicDecodingCollection {
    static func decodePolymorphicCollection(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self {
        var result = Set<Element>()
        try decoder.forEachElement(of: value, as: Self.self) { element, _ in
            result.insert(try decoder.decodeAny(Element.self, from: element))
        }
        return result
    }
}

extension Dictionary: PolymorphicDecodingCollection {
    static func decodePolymorphicCollection(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self {
        var result: [Key: Value] = [:]
        try decoder.forEachEntry(of: value, as: Self.self) { key, value in
            result[try decoder.decodeAny(Key.self, from: key)] = try decoder.decodeAny(Value.self, from: value)
        }
        return result
    }
}

extension Optional: PolymorphicDecodingCollection {
    static func decodePolymorphicCollection(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self {
        if case .uid(0) = value { return nil }
        return .some(try decoder.decodeAny(Wrapped.self, from: value))
    }
}

// MARK: Codable dictionaries and sets as NSDictionary and NSSet

/// A `Dictionary` of Codable keys and values: written as an `NSDictionary` whose keys are objects (strings,
/// numbers, ...), in a deterministic order.
protocol ArchiveEncodableCodableDictionary {
    func encodeArchiveDictionary(_ encoder: CodableArchiveEncoder) throws -> Int32
}

extension Dictionary: ArchiveEncodableCodableDictionary where Key: Encodable, Value: Encodable {
    func encodeArchiveDictionary(_ encoder: CodableArchiveEncoder) throws -> Int32 {
        let entries: [(key: Key, value: Value)]
        if Key.self == String.self {
            entries = sorted { ($0.key as? String ?? "") < ($1.key as? String ?? "") }
        } else {
            entries = sorted { deterministicOrder(AnyHashable($0.key), AnyHashable($1.key)) }
        }
        return try encoder.writeDictionary(entries.count, key: { try encoder.encode(entries[$0].key) },
                                           value: { try encoder.encode(entries[$0].value) })
    }
}

protocol ArchiveDecodableCodableDictionary {
    static func decodeArchiveDictionary(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self
}

extension Dictionary: ArchiveDecodableCodableDictionary where Key: Decodable, Value: Decodable {
    static func decodeArchiveDictionary(_ decoder: CodableArchiveDecoder, from value: ArchiveObjectReader.Value) throws -> Self {
        var result: [Key: Value] = [:]
        try decoder.forEachEntry(of: value, as: Self.self) { key, value in
            result[try decoder.decodeValue(Key.self, from: key)] = try decoder.decodeValue(Value.self, from: value)
        }
        return result
    }
}

/// A `Set` of Codable members: written as an `NSSet`, members in a deterministic order.
protocol ArchiveEncodableCodableSet {
    func encodeArchiveSet(_ encoder: CodableArchiveEncoder) throws -> Int32
}

extension Set: ArchiveEncodableCodableSet where Element: Encodable {
    func encodeArchiveSet(_ encoder: CodableArchiveEncoder) throws -> Int32 {
        let members = sorted { deterministicOrder(AnyHashable($0), AnyHashable($1)) }
        return try encoder.writeArray(class: .set, members.indices) { try encoder.encode(members[$0]) }
    }
}
