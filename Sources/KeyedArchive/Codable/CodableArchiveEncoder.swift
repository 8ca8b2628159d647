import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The `Encoder` that `encode(to:)` receives: one per archive, writing straight into a ``KeyedArchiver``'s
/// object table, so that Codable values share its uniquing, class dictionaries, key caches and identities.
///
/// Encoding is depth first: the value whose `encode(to:)` is running is ``current``; it becomes an archived
/// object (keyed container), an `NSArray` (unkeyed container) or whatever its single value is. Its UID is
/// taken when it asks for its container, so the root is UID 1 and children follow, as Apple numbers them.
/// Nested containers (`nestedContainer`, `nestedUnkeyedContainer`, `superEncoder(forKey:)`) may be written
/// in any order with their parent, so they collect their references aside (``DetachedCollection``) and are
/// written as `NSDictionary` / `NSArray` objects when the encoding finishes.
final class CodableArchiveEncoder: Encoder {
    let archiver: KeyedArchiver
    var codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any]
    var current = Current()
    var types: [ObjectIdentifier: TypeEntry] = [:]
    var detached: [DetachedCollection] = []
    var failure: EncodingError?

    /// The value being encoded and the container it asked for.
    struct Current {
        enum State { case idle, keyed(Int32), unkeyed(Int32), single(Int32) }
        var state = State.idle
        var entry: TypeEntry?
        var identity: AnyObject?
    }

    /// What the encoder knows about one Swift type, looked up once per type.
    final class TypeEntry {
        let kind: CodableTypeKind
        let type: Any.Type
        let isClass: Bool
        /// The archiver's key cache slot for objects of this type (-1 until the first one).
        var slot = -1
        /// The class dictionary UID (-1 until the first object is closed).
        var classUID: Int32 = -1

        init(_ type: Any.Type) {
            self.type = type
            isClass = type is AnyClass
            kind = CodableTypeKind(type, for: .encoding)
        }
    }

    init(archiver: KeyedArchiver, userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.archiver = archiver
        self.userInfo = userInfo
    }

    func error(_ value: Any, _ reason: String) -> EncodingError {
        EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: codingPath, debugDescription: "keyed archive: object \(archiver.state.pointee.objectNodes.count): \(reason)"))
    }

    func record(_ error: EncodingError) {
        if failure == nil { failure = error }
    }

    @inline(__always)
    func typeEntry(_ type: Any.Type) -> TypeEntry { cachedEntry(&types, type, TypeEntry.init) }

    // MARK: Values

    /// Encodes `value` as an object (or a bare string or number) and returns its UID (0 for `$null`).
    func encode<T: Encodable>(_ value: T) throws -> Int32 {
        let entry = typeEntry(T.self)
        switch entry.kind {
        case .string: if let s = value as? String { return archiver.stringObject(s) }
        case .double: if let d = value as? Double { return archiver.realObject(d) }
        case .int: if let i = value as? Int { return archiver.integerObject(Int64(i)) }
        case .bool, .float, .integer, .standard: return archiver.encodeStandard(value)
        case .polymorphic: if let p = value as? any PolymorphicEncodable { return try encodeAny(p.polymorphicValue) }
        case .dictionary: if let d = value as? any ArchiveEncodableCodableDictionary { return try d.encodeArchiveDictionary(self) }
        case .set: if let s = value as? any ArchiveEncodableCodableSet { return try s.encodeArchiveSet(self) }
        case .object: break
        }
        return try archiveObject(value, entry, identity: entry.isClass ? value as AnyObject : nil)
    }

    /// ``encode(_:)`` for an ``ArchiveCodable`` value, whose identity is known without bridging.
    func encodeArchiveCodable<T: ArchiveCodable>(_ value: T) throws -> Int32 {
        let entry = typeEntry(T.self)
        guard entry.kind == .object else { return try encode(value) }
        return try archiveObject(value, entry, identity: value.archiveIdentity)
    }

    /// Runs `value.encode(to:)` as the current value and closes what it opened; a class instance encoded
    /// before is its earlier UID.
    func archiveObject<T: Encodable>(_ value: T, _ entry: TypeEntry, identity: AnyObject?) throws -> Int32 {
        if let identity, let uid = archiver.state.pointee.identities[KeyedArchiver.identityKey(ObjectIdentifier(identity))] {
            return uid
        }
        guard archiver.state.pointee.depth < archiver.maxDepth else {
            throw error(value, "objects nest deeper than \(archiver.maxDepth)")
        }
        let saved = current
        current = Current(state: .idle, entry: entry, identity: identity)
        defer { current = saved }
        do {
            try value.encode(to: self)
        } catch {
            abandonCurrent()
            throw error
        }
        if let failure {
            abandonCurrent()
            throw failure
        }
        return finishCurrent()
    }

    /// Closes the current value's object and returns its UID.
    private func finishCurrent() -> Int32 {
        switch current.state {
        case .idle:
            // encode(to:) asked for no container: an object without keys, as JSONEncoder writes `{}`.
            return closeKeyed(openKeyed())
        case .keyed(let uid): return closeKeyed(uid)
        case .unkeyed(let uid):
            closeArray(uid)
            return uid
        case .single(let uid): return uid
        }
    }

    /// Keeps the archiver's frames balanced when `encode(to:)` threw after opening a container.
    private func abandonCurrent() {
        switch current.state {
        case .keyed(let uid), .unkeyed(let uid): archiver.closeFrame(uid, classUID: 0)
        case .idle, .single: break
        }
        current.state = .single(0)
    }

    private func closeKeyed(_ uid: Int32) -> Int32 {
        guard uid > 0, let entry = current.entry else { return uid }
        if entry.classUID < 0 {
            var chain = archivedCodableChain(of: entry.type)
            if let name = archiver.classNames[ObjectIdentifier(entry.type)] { chain[0] = name }
            entry.classUID = archiver.classObject(chain: chain)
        }
        archiver.closeFrame(uid, classUID: entry.classUID)
        return uid
    }

    /// Closes an `NSArray` frame whose fields are `(-1, element reference)` pairs.
    func closeArray(_ uid: Int32) {
        let a = archiver
        var refs: [Int32] = []
        refs.reserveCapacity((a.state.pointee.scratch.count - a.state.pointee.frameStart) / 2)
        var i = a.state.pointee.frameStart + 1
        while i < a.state.pointee.scratch.count {
            refs.append(a.state.pointee.scratch[i])
            i += 2
        }
        a.state.pointee.scratch.removeSubrange(a.state.pointee.frameStart...)
        a.addField(a.keyNode("NS.objects"), a.arrayNode(refs))
        a.closeFrame(uid, classUID: a.classObject(.array))
    }

    /// Opens (once) the current value's archived object; returns its UID, or -1 when the value already
    /// chose another kind of container.
    func openKeyed() -> Int32 {
        switch current.state {
        case .keyed(let uid): return uid
        case .idle:
            let uid = openCurrent()
            if let entry = current.entry {
                if entry.slot < 0 {
                    entry.slot = archiver.state.pointee.newKeyCache()
                }
                archiver.openFrame(uid, slot: entry.slot)
            } else {
                archiver.openFrame(uid)
            }
            current.state = .keyed(uid)
            return uid
        case .unkeyed, .single: return refuseContainer("a keyed")
        }
    }

    func openUnkeyed() -> Int32 {
        switch current.state {
        case .unkeyed(let uid): return uid
        case .idle:
            let uid = openCurrent()
            _ = archiver.keyNode("NS.objects")
            archiver.openFrame(uid)
            current.state = .unkeyed(uid)
            return uid
        case .keyed, .single: return refuseContainer("an unkeyed")
        }
    }

    /// Records that the current value asked for `container` after another kind; returns -1.
    private func refuseContainer(_ container: String) -> Int32 {
        record(error(current.entry.map { "\($0.type)" } ?? "", "asked for \(container) container after another kind of container"))
        return -1
    }

    private func openCurrent() -> Int32 {
        let uid = archiver.newObject()
        if let identity = current.identity {
            archiver.state.pointee.identities.insert(KeyedArchiver.identityKey(ObjectIdentifier(identity)), uid)
            archiver.state.pointee.retained.append(identity)
        }
        return uid
    }

    /// Whether `uid` is the object the current value is writing.
    @inline(__always)
    func isCurrent(_ uid: Int32) -> Bool {
        switch current.state {
        case .keyed(let u), .unkeyed(let u): return u == uid
        default: return false
        }
    }

    func notCurrent(_ uid: Int32) -> EncodingError {
        error(uid, "a container of object \(uid) was used after its value finished encoding")
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ArchiveKeyedEncodingContainer<Key>(encoder: self, uid: openKeyed()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ArchiveUnkeyedEncodingContainer(encoder: self, target: .frame(openUnkeyed()), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        switch current.state {
        case .idle: current.state = .single(0)
        case .single: break
        case .keyed, .unkeyed:
            record(error(current.entry.map { "\($0.type)" } ?? "", "asked for a single value container after another kind of container"))
        }
        return ArchiveSingleValueEncodingContainer(encoder: self, slot: nil, codingPath: codingPath)
    }

    // MARK: Nested containers

    func newDetached(dictionary: Bool) -> DetachedCollection {
        let d = DetachedCollection(uid: archiver.newObject(), isDictionary: dictionary)
        detached.append(d)
        return d
    }

    /// Writes the nested `NSDictionary` / `NSArray` objects; called once the graph is encoded.
    func finishDetached() {
        let a = archiver
        for d in detached {
            var pairs: [Int32] = []
            if d.isDictionary {
                pairs.append(a.keyNode("NS.keys"))
                pairs.append(a.referenceArray(d.keys))
            }
            pairs.append(a.keyNode("NS.objects"))
            pairs.append(a.referenceArray(d.values))
            pairs.append(a.classKey)
            pairs.append(a.reference(a.classObject(d.isDictionary ? .dictionary : .array)))
            a.state.pointee.objectNodes[Int(d.uid)] = a.state.pointee.builder.dictionary(pairs: pairs[...])
        }
        detached.removeAll()
    }

    /// Adds a reference under `key` (or as the next element) to `parent`.
    func put(_ uid: Int32, key: String?, in parent: Parent) throws {
        switch parent {
        case .frame(let frame):
            guard isCurrent(frame) else { throw notCurrent(frame) }
            archiver.addField(key.map { archiver.escapedKeyNode($0) } ?? -1, archiver.reference(uid))
        case .detached(let d):
            if d.isDictionary { d.keys.append(archiver.stringObject(key ?? "")) }
            d.values.append(uid)
        }
    }

    enum Parent {
        /// The archived object (or `NSArray`) that the current value is writing, by UID.
        case frame(Int32)
        case detached(DetachedCollection)
    }

    // MARK: Polymorphic values

    /// Encodes a value of any static type by its dynamic type: Codable values through `encode(to:)`,
    /// ``KeyedArchivable`` ones through `encode(with:)`, collections of existentials element by element.
    func encodeAny(_ value: Any) throws -> Int32 {
        if let codable = value as? any ArchiveCodable { return try encodeArchiveCodable(codable) }
        if let encodable = value as? any Encodable { return try encode(encodable) }
        if value is any KeyedArchivable { return try checked(archiver.archiveObject(value), value) }
        if let optional = value as? ArchiveOptional {
            guard let wrapped = optional.archiveWrapped else { return 0 }
            return try encodeAny(wrapped)
        }
        if let array = value as? ArchiveEncodableArray {
            var elements: [Any] = []
            elements.reserveCapacity(array.archiveCount)
            array.forEachArchiveElement { elements.append($0) }
            return try writeArray(class: .array, elements.indices) { try encodeAny(elements[$0]) }
        }
        if let dictionary = value as? ArchiveEncodableDictionary {
            let entries = dictionary.archiveEntries.sorted { deterministicOrder($0.key, $1.key) }
            return try writeDictionary(entries.count, key: { try encodeAny(entries[$0].key.base) },
                                       value: { try encodeAny(entries[$0].value) })
        }
        if let set = value as? ArchiveEncodableSet {
            let members = set.archiveMembers.sorted(by: deterministicOrder)
            return try writeArray(class: .set, members.indices) { try encodeAny(members[$0].base) }
        }
        return try checked(archiver.archiveObject(value), value)
    }

    /// Turns a failure the archiver recorded while encoding `value` into an `EncodingError` now.
    private func checked(_ uid: Int32, _ value: Any) throws -> Int32 {
        if let failure = archiver.failure {
            archiver.failure = nil
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: failure.description, underlyingError: failure))
        }
        return uid
    }

    /// Writes an `NSArray` or `NSSet` object whose elements are encoded by `element`, in order.
    func writeArray(class standard: StandardClass, _ indices: Range<Int>,
                    _ element: (Int) throws -> Int32) throws -> Int32 {
        guard archiver.state.pointee.depth < archiver.maxDepth else { throw error(indices.count, "objects nest deeper than \(archiver.maxDepth)") }
        let uid = archiver.newObject()
        let objectsKey = archiver.keyNode("NS.objects")
        archiver.openFrame(uid)
        var refs: [Int32] = []
        refs.reserveCapacity(indices.count)
        do {
            for i in indices {
                codingPath.append(ArchiveIndexKey(i))
                defer { codingPath.removeLast() }
                refs.append(archiver.reference(try element(i)))
            }
        } catch {
            archiver.closeFrame(uid, classUID: 0)
            throw error
        }
        archiver.addField(objectsKey, archiver.arrayNode(refs))
        archiver.closeFrame(uid, classUID: archiver.classObject(standard))
        return uid
    }

    /// Writes an `NSDictionary` object: all keys, then all values, as Apple orders them.
    func writeDictionary(_ count: Int, key: (Int) throws -> Int32, value: (Int) throws -> Int32) throws -> Int32 {
        guard archiver.state.pointee.depth < archiver.maxDepth else { throw error(count, "objects nest deeper than \(archiver.maxDepth)") }
        let uid = archiver.newObject()
        archiver.openFrame(uid)
        var keys: [Int32] = [], values: [Int32] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        // Each array right after its elements, then the keys of both: the plist objects in the order
        // KeyedArchiver creates them, so that a dictionary gives the same bytes through either API.
        let keysNode: Int32, valuesNode: Int32
        do {
            for i in 0..<count { keys.append(archiver.reference(try key(i))) }
            keysNode = archiver.arrayNode(keys)
            for i in 0..<count {
                codingPath.append(ArchiveIndexKey(i))
                defer { codingPath.removeLast() }
                values.append(archiver.reference(try value(i)))
            }
            valuesNode = archiver.arrayNode(values)
        } catch {
            archiver.closeFrame(uid, classUID: 0)
            throw error
        }
        archiver.addField(archiver.keyNode("NS.keys"), keysNode)
        archiver.addField(archiver.keyNode("NS.objects"), valuesNode)
        archiver.closeFrame(uid, classUID: archiver.classObject(.dictionary))
        return uid
    }
}

/// The references of a nested container, written as an `NSDictionary` or `NSArray` when encoding finishes.
final class DetachedCollection {
    let uid: Int32
    let isDictionary: Bool
    /// UIDs of the key strings (dictionaries only).
    var keys: [Int32] = []
    var values: [Int32] = []

    init(uid: Int32, isDictionary: Bool) {
        self.uid = uid
        self.isDictionary = isDictionary
    }
}

/// The coding key of an element of an unkeyed container (`Index 3`).
struct ArchiveIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

extension KeyedArchiver {
    /// The key node of a user key, escaped as Apple does, without the positional key cache.
    func escapedKeyNode(_ key: String) -> Int32 {
        key.utf8.first == UInt8(ascii: "$") ? keyNode("$" + key) : keyNode(key)
    }

    /// Encodes a Codable value met by the NSCoding-style API (`encodeObject(_:forKey:)` of a value that is
    /// not ``KeyedArchivable``) and returns its UID; failures are recorded like the archiver's own.
    func encodeCodableValue(_ value: any Encodable) -> Int32 {
        let encoder = CodableArchiveEncoder(archiver: self)
        do {
            let uid = try encoder.encode(value)
            encoder.finishDetached()
            return uid
        } catch {
            encoder.finishDetached()
            record(KeyedArchiveError(.unsupportedType, "\(error)", objectIndex: state.pointee.objectNodes.count))
            return 0
        }
    }

    /// Writes the keys of a Codable value into the object being encoded (the frame is already open): an
    /// `encode(with:)` made of the value's `encode(to:)`.
    func encodeCodableFields<T: Encodable>(of value: T) {
        let encoder = CodableArchiveEncoder(archiver: self)
        // encode(with:) runs right after the archiver opened the object: it is the last one created.
        encoder.current.state = .keyed(Int32(truncatingIfNeeded: state.pointee.objectNodes.count - 1))
        do {
            try value.encode(to: encoder)
            if let failure = encoder.failure { throw failure }
        } catch {
            record(KeyedArchiveError(.unsupportedType, "\(error)", objectIndex: state.pointee.objectNodes.count))
        }
        encoder.finishDetached()
    }
}
