import BinaryPlist

/// The keyed container of an archived object: scalars are stored inline as `NSCoder`'s `encodeDouble`,
/// `encodeInteger` and `encodeBool` store them, strings and everything else as object references.
struct ArchiveKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CodableArchiveEncoder
    let uid: Int32
    /// The encoder's path while this container's object is current (the only time it may be used).
    var codingPath: [any CodingKey] { encoder.codingPath }

    @inline(__always)
    private func put(_ key: Key, _ node: @autoclosure () -> Int32) throws {
        guard encoder.isCurrent(uid) else { throw encoder.notCurrent(uid) }
        let archiver = encoder.archiver
        archiver.addField(archiver.userKey(key.stringValue), node())
    }

    /// ``put(_:_:)`` for a scalar stored inline: `make` writes its node with the archiver's plist builder.
    @inline(__always)
    private func put(_ key: Key, scalar make: (inout ArchivePlistBuilder) -> Int32) throws {
        try put(key, make(&encoder.archiver.state.pointee.builder))
    }

    mutating func encodeNil(forKey key: Key) throws { try put(key) { $0.uid(0) } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(key) { $0.bool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws {
        try put(key, encoder.archiver.reference(encoder.archiver.stringObject(value)))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(key) { $0.real(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(key) { $0.real(Double(value)) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(key) { $0.integer(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(key) { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(key) { $0.unsignedInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard encoder.isCurrent(uid) else { throw encoder.notCurrent(uid) }
        let archiver = encoder.archiver
        // The key's node is taken before the child adds fields of its own.
        let keyNode = archiver.userKey(key.stringValue)
        encoder.codingPath.append(key)
        defer { encoder.codingPath.removeLast() }
        let child = try encoder.encode(value)
        archiver.addField(keyNode, archiver.reference(child))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = encoder.newDetached(dictionary: true)
        do { try encoder.put(nested.uid, key: key.stringValue, in: .frame(uid)) } catch { encoder.record(encoder.notCurrent(uid)) }
        return KeyedEncodingContainer(ArchiveDictionaryEncodingContainer<NestedKey>(
            encoder: encoder, storage: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = encoder.newDetached(dictionary: false)
        do { try encoder.put(nested.uid, key: key.stringValue, in: .frame(uid)) } catch { encoder.record(encoder.notCurrent(uid)) }
        return ArchiveUnkeyedEncodingContainer(encoder: encoder, target: .detached(nested), codingPath: codingPath + [key])
    }

    /// The superclass writes its keys into the same archived object, as `super.encode(with:)` does with
    /// NSCoding; the object's `$classes` chain records the inheritance.
    mutating func superEncoder() -> any Encoder { encoder }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ArchiveSlotEncoder(encoder: encoder, parent: .frame(uid), key: key.stringValue, codingPath: codingPath + [key])
    }
}

/// The keyed container of a nested container: an `NSDictionary` whose values are all objects.
struct ArchiveDictionaryEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CodableArchiveEncoder
    let storage: DetachedCollection
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { try encoder.put(0, key: key.stringValue, in: .detached(storage)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.codingPath.append(key)
        defer { encoder.codingPath.removeLast() }
        try encoder.put(try encoder.encode(value), key: key.stringValue, in: .detached(storage))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = encoder.newDetached(dictionary: true)
        try? encoder.put(nested.uid, key: key.stringValue, in: .detached(storage))
        return KeyedEncodingContainer(ArchiveDictionaryEncodingContainer<NestedKey>(
            encoder: encoder, storage: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = encoder.newDetached(dictionary: false)
        try? encoder.put(nested.uid, key: key.stringValue, in: .detached(storage))
        return ArchiveUnkeyedEncodingContainer(encoder: encoder, target: .detached(nested), codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        ArchiveSlotEncoder(encoder: encoder, parent: .detached(storage), key: "super", codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ArchiveSlotEncoder(encoder: encoder, parent: .detached(storage), key: key.stringValue, codingPath: codingPath + [key])
    }
}

/// An unkeyed container: an `NSArray` of references, either the current value's own or a nested one.
struct ArchiveUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: CodableArchiveEncoder
    let target: CodableArchiveEncoder.Parent
    var codingPath: [any CodingKey]
    var count = 0

    mutating func encodeNil() throws {
        try encoder.put(0, key: nil, in: target)
        count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.codingPath.append(ArchiveIndexKey(count))
        defer { encoder.codingPath.removeLast() }
        try encoder.put(try encoder.encode(value), key: nil, in: target)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = encoder.newDetached(dictionary: true)
        do { try encoder.put(nested.uid, key: nil, in: target) } catch { encoder.record(error as? EncodingError ?? encoder.error(count, "\(error)")) }
        count += 1
        return KeyedEncodingContainer(ArchiveDictionaryEncodingContainer<NestedKey>(
            encoder: encoder, storage: nested, codingPath: codingPath + [ArchiveIndexKey(count - 1)]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = encoder.newDetached(dictionary: false)
        do { try encoder.put(nested.uid, key: nil, in: target) } catch { encoder.record(error as? EncodingError ?? encoder.error(count, "\(error)")) }
        count += 1
        return ArchiveUnkeyedEncodingContainer(encoder: encoder, target: .detached(nested),
                                               codingPath: codingPath + [ArchiveIndexKey(count - 1)])
    }

    mutating func superEncoder() -> any Encoder {
        count += 1
        return ArchiveSlotEncoder(encoder: encoder, parent: target, key: nil, codingPath: codingPath + [ArchiveIndexKey(count - 1)])
    }
}

/// A single value container: the value is whatever its one encoded value is (a bare string or number, an
/// object reference, `$null`); in a slot encoder, it fills the slot.
struct ArchiveSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: CodableArchiveEncoder
    let slot: ArchiveSlotEncoder?
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { try store(0) }

    mutating func encode<T: Encodable>(_ value: T) throws { try store(try encoder.encode(value)) }

    private func store(_ uid: Int32) throws {
        if let slot {
            try encoder.put(uid, key: slot.key, in: slot.parent)
        } else {
            encoder.current.state = .single(uid)
        }
    }
}

/// The encoder of `superEncoder(forKey:)` and of an unkeyed container's `superEncoder()`: whatever is
/// encoded through it becomes the value of one key (or element) of its parent.
final class ArchiveSlotEncoder: Encoder {
    let encoder: CodableArchiveEncoder
    let parent: CodableArchiveEncoder.Parent
    let key: String?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { encoder.userInfo }

    init(encoder: CodableArchiveEncoder, parent: CodableArchiveEncoder.Parent, key: String?, codingPath: [any CodingKey]) {
        self.encoder = encoder
        self.parent = parent
        self.key = key
        self.codingPath = codingPath
    }

    private func detached(dictionary: Bool) -> DetachedCollection {
        let nested = encoder.newDetached(dictionary: dictionary)
        do { try encoder.put(nested.uid, key: key, in: parent) } catch {
            encoder.record(error as? EncodingError ?? encoder.error(key ?? "", "\(error)"))
        }
        return nested
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ArchiveDictionaryEncodingContainer<Key>(
            encoder: encoder, storage: detached(dictionary: true), codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ArchiveUnkeyedEncodingContainer(encoder: encoder, target: .detached(detached(dictionary: false)), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ArchiveSingleValueEncodingContainer(encoder: encoder, slot: self, codingPath: codingPath)
    }
}
