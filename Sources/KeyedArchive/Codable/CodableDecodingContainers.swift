import BinaryPlist

/// The keyed container of an archived object: keys are found through the unarchiver's per-class key
/// caches; scalars may be inline or references to bare numbers.
struct ArchiveKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CodableArchiveDecoder
    let object: CodableArchiveDecoder.ObjectFrame
    var codingPath: [any CodingKey]

    /// The value for `key`, or `nil` when the object has no such key.
    @inline(__always)
    private func lookup(_ key: Key) throws -> ArchiveObjectReader.Value? {
        let u = decoder.unarchiver
        if u.state.pointee.frame.uid != object.uid { return try lookupElsewhere(key) }
        do {
            guard let i = try u.position(ofUserKey: key.stringValue) else { return nil }
            return try u.reader.value(u.reader.valueReference(u.state.pointee.frame.fields, i))
        } catch let error as KeyedArchiveError {
            throw decoder.converted(error, key, as: Any.self)
        }
    }

    /// A container kept and used after another object became current.
    private func lookupElsewhere(_ key: Key) throws -> ArchiveObjectReader.Value? {
        try decoder.unarchiver.onFrame(KeyedUnarchiver.Frame(uid: object.uid, fields: object.fields, classChain: object.chain,
                                                             slot: object.slot)) { try lookup(key) }
    }

    @inline(__always)
    private func required(_ key: Key) throws -> ArchiveObjectReader.Value {
        guard let v = try lookup(key) else { throw decoder.keyNotFound(key) }
        return v
    }

    var allKeys: [Key] {
        let u = decoder.unarchiver
        let keys = u.onFrame(KeyedUnarchiver.Frame(uid: object.uid, fields: object.fields, classChain: object.chain)) {
            (try? u.allKeys()) ?? []
        }
        return keys.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { (try? lookup(key)) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .uid(0) = try required(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(required(key), key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(required(key), key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.double(required(key), key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decoder.double(required(key), key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(Int.self, required(key), key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(Int64.self, required(key), key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(Int32.self, required(key), key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let v = try lookup(key) else {
            if let absent = (T.self as? any PolymorphicDecodable.Type)?.absentValue as? T { return absent }
            throw decoder.keyNotFound(key)
        }
        decoder.codingPath.append(key)
        defer { decoder.codingPath.removeLast() }
        return try decoder.decodeValue(T.self, from: v)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let v = try lookup(key), !v.isNullReference else { return nil }
        return try decoder.double(v, key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let v = try lookup(key), !v.isNullReference else { return nil }
        return try decoder.string(v, key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let v = try lookup(key), !v.isNullReference else { return nil }
        return try decoder.integer(Int.self, v, key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let v = try lookup(key), !v.isNullReference else { return nil }
        return try decoder.bool(v, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = try lookup(key), !v.isNullReference else { return nil }
        decoder.codingPath.append(key)
        defer { decoder.codingPath.removeLast() }
        return try decoder.decodeValue(T.self, from: v)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(for: required(key), codingPath: codingPath + [key]).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(for: required(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    /// The superclass reads its keys from the same archived object (see `superEncoder()`).
    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(for: try required(key), codingPath: codingPath + [key])
    }
}

/// The keyed container of an `NSDictionary` with string keys (nested containers, `superEncoder(forKey:)`).
struct ArchiveDictionaryDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CodableArchiveDecoder
    let entries: [String: ArchiveObjectReader.Value]
    var codingPath: [any CodingKey]

    init(decoder: CodableArchiveDecoder, keys: ArchiveObjectReader.ArrayView, values: ArchiveObjectReader.ArrayView,
         codingPath: [any CodingKey]) throws {
        self.decoder = decoder
        self.codingPath = codingPath
        var entries: [String: ArchiveObjectReader.Value] = [:]
        for i in 0..<keys.count {
            let key = try decoder.string(decoder.element(keys, i), ArchiveIndexKey(i))
            entries[key] = try decoder.element(values, i)
        }
        self.entries = entries
    }

    var allKeys: [Key] { entries.keys.sorted().compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

    private func required(_ key: Key) throws -> ArchiveObjectReader.Value {
        guard let v = entries[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: decoder.describe("the dictionary has no key \"\(key.stringValue)\"")))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .uid(0) = try required(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let v = entries[key.stringValue] else {
            if let absent = (T.self as? any PolymorphicDecodable.Type)?.absentValue as? T { return absent }
            return try decode(T.self, forKey: key, value: required(key))
        }
        return try decode(T.self, forKey: key, value: v)
    }

    private func decode<T: Decodable>(_ type: T.Type, forKey key: Key, value v: ArchiveObjectReader.Value) throws -> T {
        let saved = decoder.codingPath
        decoder.codingPath = codingPath + [key]
        defer { decoder.codingPath = saved }
        return try decoder.decodeValue(T.self, from: v)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = entries[key.stringValue], !v.isNullReference else { return nil }
        return try decode(T.self, forKey: key, value: v)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(for: required(key), codingPath: codingPath + [key]).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(for: required(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = ArchiveStringKey("super")
        guard let v = entries[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no \"super\" key"))
        }
        return decoder.child(for: v, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(for: try required(key), codingPath: codingPath + [key])
    }
}

/// The elements of an `NSArray` (or `NSSet`).
struct ArchiveUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: CodableArchiveDecoder
    let refs: ArchiveObjectReader.ArrayView
    var codingPath: [any CodingKey]
    var currentIndex = 0

    var count: Int? { refs.count }
    var isAtEnd: Bool { currentIndex >= refs.count }

    private func next(_ type: Any.Type) throws -> ArchiveObjectReader.Value {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [ArchiveIndexKey(currentIndex)], debugDescription: "the array has only \(refs.count) elements"))
        }
        return try decoder.element(refs, currentIndex)
    }

    mutating func decodeNil() throws -> Bool {
        guard case .uid(0) = try next(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let v = try decoder.double(next(Double.self), ArchiveIndexKey(currentIndex))
        currentIndex += 1
        return v
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let v = try next(T.self)
        let saved = decoder.codingPath
        decoder.codingPath = codingPath + [ArchiveIndexKey(currentIndex)]
        defer { decoder.codingPath = saved }
        let value = try decoder.decodeValue(T.self, from: v)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try decoder.child(for: next(NestedKey.self), codingPath: codingPath + [ArchiveIndexKey(currentIndex)])
            .container(keyedBy: NestedKey.self)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try decoder.child(for: next([Any].self), codingPath: codingPath + [ArchiveIndexKey(currentIndex)])
            .unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let child = decoder.child(for: try next(Any.self), codingPath: codingPath + [ArchiveIndexKey(currentIndex)])
        currentIndex += 1
        return child
    }
}

/// A single value: a bare string or number, an inline scalar, `$null`, or an object reference.
struct ArchiveSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: CodableArchiveDecoder
    let value: ArchiveObjectReader.Value
    var codingPath: [any CodingKey]

    func decodeNil() -> Bool { value.isNullReference }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(value, nil) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(value, nil) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(value, nil) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(Int.self, value, nil) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(T.self, from: value)
    }
}

/// A coding key made from a string (`super`).
struct ArchiveStringKey: CodingKey {
    let stringValue: String
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
    var intValue: Int? { nil }
}

extension ArchiveObjectReader.Value {
    /// Whether this is a reference to `$null`.
    var isNullReference: Bool {
        if case .uid(0) = self { return true }
        return false
    }
}
