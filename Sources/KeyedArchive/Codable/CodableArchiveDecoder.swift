import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The `Decoder` that `init(from:)` receives: one per archive, reading lazily through a
/// ``KeyedUnarchiver`` (its object table, class cache, per-class key caches and shared instances).
///
/// The value being decoded is ``current``: an archived object of a custom class (keyed containers read its
/// fields as the unarchiver's current frame), or any other value (a bare string or number, `$null`, an
/// `NSArray`, `NSDictionary`, `NSDate`...).
final class CodableArchiveDecoder: Decoder {
    let unarchiver: KeyedUnarchiver
    let reader: ArchiveObjectReader
    var codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any]
    var current: Current = .value(.uid(0))
    /// The Swift type whose `init(from:)` is running on ``current``.
    var currentType: Any.Type = Never.self
    var types: [ObjectIdentifier: TypeEntry] = [:]
    /// Types that ``decodeAny(_:from:key:)`` decodes by the registry alone (existentials, NSCoding types).
    var leafTypes: Set<ObjectIdentifier> = []
    /// A request-cache slot of the unarchiver for reading `$class` (always the first key read).
    let classKeySlot: Int

    enum Current {
        case object(ObjectFrame)
        case value(ArchiveObjectReader.Value)
    }

    /// An archived object of a custom class, as its keyed containers read it.
    struct ObjectFrame {
        var uid: Int
        var fields: ArchiveObjectReader.DictionaryView
        var chain: [String]
        var slot: Int
        /// The class dictionary's UID (-1 for an object the NSCoding path entered), with what it resolved to:
        /// `kind` is `nil` for a class the registry does not know (decodable only as a statically named type).
        var classUID: Int
        var kind: ResolvedClass.Kind?
        /// The last type whose name was found in `chain`.
        var verified: ObjectIdentifier?
    }

    final class TypeEntry {
        let kind: CodableTypeKind
        let isClass: Bool

        init(_ type: Any.Type) {
            isClass = type is AnyClass
            kind = CodableTypeKind(type, for: .decoding)
        }
    }

    init(unarchiver: KeyedUnarchiver, userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.unarchiver = unarchiver
        self.reader = unarchiver.reader
        self.userInfo = userInfo
        classKeySlot = unarchiver.state.pointee.newRequestCache()
    }

    @inline(__always)
    func typeEntry(_ type: Any.Type) -> TypeEntry { cachedEntry(&types, type, TypeEntry.init) }

    // MARK: Errors

    /// `keyed archive: object 7 (Circle < NSObject): reason`
    func describe(_ reason: String, uid: Int? = nil, chain: [String]? = nil) -> String {
        var s = "keyed archive:"
        let uid = uid ?? (unarchiver.state.pointee.frame.uid >= 0 ? unarchiver.state.pointee.frame.uid : nil)
        if let uid { s += " object \(uid)" }
        let chain = chain ?? unarchiver.state.pointee.frame.classChain
        if !chain.isEmpty { s += " (" + chain.joined(separator: " < ") + ")" }
        return s + ": " + reason
    }

    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }

    func mismatch(_ type: Any.Type, _ v: ArchiveObjectReader.Value, _ key: (any CodingKey)?) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path(key), debugDescription: describe("expected \(type), found \(unarchiver.describe(v))")))
    }

    func corrupted(_ reason: String, _ key: (any CodingKey)?, uid: Int? = nil) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: path(key), debugDescription: describe(reason, uid: uid)))
    }

    func null(_ type: Any.Type, _ key: (any CodingKey)?, uid: Int? = nil) -> DecodingError {
        DecodingError.valueNotFound(type, DecodingError.Context(
            codingPath: path(key), debugDescription: describe("expected \(type), found $null", uid: uid)))
    }

    func keyNotFound(_ key: any CodingKey) -> DecodingError {
        DecodingError.keyNotFound(key, DecodingError.Context(
            codingPath: codingPath, debugDescription: describe("no value for key \"\(key.stringValue)\"")))
    }

    /// A ``KeyedArchiveError`` of the unarchiver's machinery as a `DecodingError` at the current path.
    func converted(_ error: KeyedArchiveError, _ key: (any CodingKey)?, as type: Any.Type) -> DecodingError {
        var reason = error.description
        if error.code == .unknownClass {
            let names = unarchiver.registry.registeredClassNames
            reason += "; registered classes: " + (names.isEmpty ? "none" : names.joined(separator: ", "))
        }
        let context = DecodingError.Context(codingPath: path(key), debugDescription: reason, underlyingError: error)
        switch error.code {
        case .typeMismatch, .unknownClass, .classNotAllowed, .outOfRange: return .typeMismatch(type, context)
        case .valueNotFound: return .valueNotFound(type, context)
        default: return .dataCorrupted(context)
        }
    }

    // MARK: Scalars

    /// A scalar field value; a reference to a bare number is followed once.
    @inline(__always)
    func scalar(_ v: ArchiveObjectReader.Value, _ type: Any.Type, _ key: (any CodingKey)?) throws -> ArchiveObjectReader.Value {
        guard case .uid(let uid) = v else { return v }
        guard uid > 0 else { throw null(type, key) }
        do {
            return try reader.value(unarchiver.objectReference(uid))
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: type)
        }
    }

    func double(_ v: ArchiveObjectReader.Value, _ key: (any CodingKey)?) throws -> Double {
        switch try scalar(v, Double.self, key) {
        case .real(let d): return d
        case .integer(let i), .other(.integer(let i)):
            if let s = i.int64Value { return Double(s) }
            if let u = i.uint64Value { return Double(u) }
        default: break
        }
        throw mismatch(Double.self, v, key)
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ v: ArchiveObjectReader.Value, _ key: (any CodingKey)?) throws -> I {
        let s = try scalar(v, I.self, key)
        switch s {
        case .integer(let i), .other(.integer(let i)):
            if let n = i.int64Value.flatMap({ I(exactly: $0) }) ?? i.uint64Value.flatMap({ I(exactly: $0) }) { return n }
            throw corrupted("the number \(i) does not fit \(I.self)", key)
        case .real(let d):
            if let n = I(exactly: d) { return n }
            throw corrupted("the number \(d) does not fit \(I.self)", key)
        default: throw mismatch(I.self, v, key)
        }
    }

    func bool(_ v: ArchiveObjectReader.Value, _ key: (any CodingKey)?) throws -> Bool {
        if case .bool(let b) = try scalar(v, Bool.self, key) { return b }
        throw mismatch(Bool.self, v, key)
    }

    func string(_ v: ArchiveObjectReader.Value, _ key: (any CodingKey)?) throws -> String {
        if case .uid(let uid) = v, uid > 0 {
            do {
                if let s = try reader.string(unarchiver.objectReference(uid)) { return s }
            } catch let error as KeyedArchiveError {
                throw converted(error, key, as: String.self)
            }
        }
        return try standard(String.self, v, key)
    }

    /// A value of a standard class (NSDate, NSData, NSUUID, NSURL, NSMutableString...) through the
    /// unarchiver's decoding of standard classes.
    func standard<T>(_ type: T.Type, _ v: ArchiveObjectReader.Value, _ key: (any CodingKey)?) throws -> T {
        if case .uid(0) = v { throw null(T.self, key) }
        do {
            // Secure coding: a statically typed decode names `T` (an NSCoding type inside a Codable one).
            let u = unarchiver
            let saved = u.state.pointee.requested
            u.state.pointee.requested = u.requiresSecureCoding ? .type(T.self, nested: true) : .anything
            defer { u.state.pointee.requested = saved }
            guard let value = try u.typed(v, T.self, key: key?.stringValue ?? "") else { throw null(T.self, key) }
            return value
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: T.self)
        }
    }

    // MARK: Values

    /// Decodes `v` (a field value or an element) as `T`.
    func decodeValue<T: Decodable>(_ type: T.Type, from v: ArchiveObjectReader.Value, key: (any CodingKey)? = nil) throws -> T {
        let entry = typeEntry(T.self)
        switch entry.kind {
        case .string: if let s = try string(v, key) as? T { return s }
        case .double: if let d = try double(v, key) as? T { return d }
        case .int: if let i = try integer(Int.self, v, key) as? T { return i }
        case .bool: if let b = try bool(v, key) as? T { return b }
        case .float: if let f = Float(try double(v, key)) as? T { return f }
        case .integer: if let integerType = T.self as? any FixedWidthInteger.Type, let i = try integer(integerType, v, key) as? T { return i }
        case .standard: return try standard(T.self, v, key)
        case .polymorphic: if let p = T.self as? any PolymorphicDecodable.Type, let t = try p.decodePolymorphic(self, from: v) as? T { return t }
        case .dictionary:
            if let d = T.self as? any ArchiveDecodableCodableDictionary.Type, let t = try d.decodeArchiveDictionary(self, from: v) as? T {
                return t
            }
        case .set, .object: break
        }
        return try decodeObject(T.self, entry, from: v, key: key)
    }

    /// Decodes an archived value through `T.init(from:)`, or as the registered subclass of `T` it was
    /// archived as.
    func decodeObject<T: Decodable>(_ type: T.Type, _ entry: TypeEntry, from v: ArchiveObjectReader.Value,
                                    key: (any CodingKey)?) throws -> T {
        // Inline scalars and `$null` (an `Optional` reads it as `nil`) go to `init(from:)` as single values.
        guard case .uid(let uid) = v, uid > 0 else { return try withCurrent(.value(v), T.self) { try T(from: self) } }
        do {
            // Validates the UID against `$objects` before anything is looked up by it.
            let reference = try unarchiver.objectReference(uid, key: key?.stringValue)
            if let instance = unarchiver.state.pointee.instances[uid] {
                if let t = instance as? T { return t }
                throw DecodingError.typeMismatch(T.self, DecodingError.Context(
                    codingPath: path(key), debugDescription: describe("expected \(T.self), found \(Swift.type(of: instance))", uid: uid)))
            }
            guard case .dictionary(let fields) = try reader.value(reference) else {
                return try withCurrent(.value(v), T.self) { try T(from: self) }
            }
            let object = try objectFrame(uid, fields)
            switch object.kind {
            case .codable(let registered)? where ObjectIdentifier(registered) != ObjectIdentifier(T.self)
                && isType(registered, kindOf: T.self):
                // A registered subclass of T: decode the dynamic type.
                guard let t = try decodeRegistered(registered, object, key: key) as? T else { throw mismatch(T.self, v, key) }
                return t
            case .standard?:
                // An NSArray, NSDictionary... counts as a level, as the encoder and the unarchiver count it: the
                // collections between nested objects would otherwise double the recursion the limit allows.
                let u = unarchiver
                guard u.state.pointee.depth < u.maxDepth else {
                    throw corrupted("objects nest deeper than \(u.maxDepth)", key, uid: uid)
                }
                u.state.pointee.depth += 1
                defer { u.state.pointee.depth -= 1 }
                return try withCurrent(.value(v), T.self) { try T(from: self) }
            default:
                return try decodeFrame(T.self, object, isClass: entry.isClass, key: key)
            }
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: T.self)
        }
    }

    func decodeRegistered(_ type: any ArchiveCodable.Type, _ object: ObjectFrame, key: (any CodingKey)?) throws -> Any {
        func open<U: ArchiveCodable>(_: U.Type) throws -> Any {
            try decodeFrame(U.self, object, isClass: typeEntry(U.self).isClass, key: key)
        }
        return try open(type)
    }

    /// Runs `T.init(from:)` with `object` as the current object and the unarchiver's current frame.
    func decodeFrame<T: Decodable>(_ type: T.Type, _ object: ObjectFrame, isClass: Bool, key: (any CodingKey)?) throws -> T {
        let u = unarchiver
        guard u.state.pointee.depth < u.maxDepth else {
            throw corrupted("objects nest deeper than \(u.maxDepth)", key, uid: object.uid)
        }
        u.state.pointee.decodedCount += 1
        guard u.state.pointee.decodedCount <= u.maxObjects else {
            throw corrupted("more than \(u.maxObjects) objects decoded", key, uid: object.uid)
        }
        if isClass {
            guard !u.state.pointee.inProgress.contains(object.uid) else {
                throw corrupted("object \(object.uid) refers back to an object still being decoded (a cycle)", key, uid: object.uid)
            }
            u.state.pointee.inProgress.insert(object.uid)
        }
        u.state.pointee.depth += 1
        let value: T
        do {
            defer {
                u.state.pointee.depth -= 1
                // Also when `init(from:)` throws: a caller that catches the error and decodes the object again
                // gets the same error, not a cycle.
                if isClass { u.state.pointee.inProgress.remove(object.uid) }
            }
            value = try u.onFrame(KeyedUnarchiver.Frame(uid: object.uid, fields: object.fields, classChain: object.chain,
                                                        slot: object.slot)) {
                try withCurrent(.object(object), T.self) { try T(from: self) }
            }
        }
        if isClass {
            let instance = value as AnyObject
            u.state.pointee.instances[object.uid] = instance
            if let waiting = u.state.pointee.pending.removeValue(forKey: object.uid) { for assign in waiting { assign(instance) } }
        }
        return value
    }

    @inline(__always)
    func withCurrent<R>(_ value: Current, _ type: Any.Type, _ body: () throws -> R) throws -> R {
        let saved = current
        let savedType = currentType
        current = value
        currentType = type
        defer {
            current = saved
            currentType = savedType
        }
        return try body()
    }

    /// The object at `uid` with its class resolved (cached per class dictionary). A class the registry does
    /// not know is not an error here: a statically named Codable type may still decode it.
    func objectFrame(_ uid: Int, _ fields: ArchiveObjectReader.DictionaryView) throws -> ObjectFrame {
        let u = unarchiver
        guard let i = try u.onFrame(KeyedUnarchiver.Frame(uid: uid, fields: fields, slot: classKeySlot), { try u.position(ofRawKey: "$class") }) else {
            throw KeyedArchiveError(.invalidClass, "object \(uid) has no $class", objectIndex: uid)
        }
        guard case .uid(let classUID) = try reader.value(reader.valueReference(fields, i)) else {
            throw KeyedArchiveError(.invalidClass, "$class of object \(uid) is not a UID", objectIndex: uid)
        }
        let resolved = try u.classEntry(classUID, for: uid)
        return ObjectFrame(uid: uid, fields: fields, chain: resolved.chain, slot: resolved.slot, classUID: classUID,
                           kind: resolved.unregisteredName == nil ? resolved.kind : nil, verified: resolved.verified)
    }

    // MARK: Polymorphic values

    /// Decodes `v` as `V`, which may be an existential or hold existentials: each object becomes the type
    /// registered for its class name.
    func decodeAny<V>(_ type: V.Type, from v: ArchiveObjectReader.Value, key: (any CodingKey)? = nil) throws -> V {
        if !leafTypes.contains(ObjectIdentifier(V.self)) {
            if let decodable = V.self as? any Decodable.Type {
                if let t = try decodeOpened(decodable, from: v, key: key) as? V { return t }
                throw mismatch(V.self, v, key)
            }
            if let collection = V.self as? any PolymorphicDecodingCollection.Type {
                if let t = try collection.decodePolymorphicCollection(self, from: v) as? V { return t }
                throw mismatch(V.self, v, key)
            }
            leafTypes.insert(ObjectIdentifier(V.self))
        }
        guard case .uid(let uid) = v, uid > 0 else {
            if case .uid = v { throw null(V.self, key) }
            return try standard(V.self, v, key)
        }
        do {
            let reference = try unarchiver.objectReference(uid, key: key?.stringValue)  // validates the UID first
            if unarchiver.state.pointee.instances[uid] == nil, case .dictionary(let fields) = try reader.value(reference) {
                let object = try objectFrame(uid, fields)
                switch object.kind {
                case .codable(let registered)?:
                    let value = try decodeRegistered(registered, object, key: key)
                    if let t = value as? V { return t }
                    throw DecodingError.typeMismatch(V.self, DecodingError.Context(
                        codingPath: path(key),
                        debugDescription: describe("expected \(V.self), found \(Swift.type(of: value))", uid: uid, chain: object.chain)))
                case nil:
                    throw KeyedArchiveError(.unknownClass, "class \"\(object.chain.first ?? "")\" is not registered (its $classes: \(object.chain.joined(separator: ", ")))",
                                            objectIndex: uid, classChain: object.chain)
                default: break
                }
            }
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: V.self)
        }
        return try standard(V.self, v, key)
    }

    private func decodeOpened<D: Decodable>(_ type: D.Type, from v: ArchiveObjectReader.Value, key: (any CodingKey)?) throws -> D {
        try decodeValue(D.self, from: v, key: key)
    }

    // MARK: Collections

    /// The standard class of the object `v` refers to, with its fields.
    func standardObject(_ v: ArchiveObjectReader.Value, _ type: Any.Type, _ key: (any CodingKey)?)
        throws -> (uid: Int, fields: ArchiveObjectReader.DictionaryView, standard: StandardClass)
    {
        guard case .uid(let uid) = v else { throw mismatch(type, v, key) }
        guard uid > 0 else { throw null(type, key) }
        do {
            guard case .dictionary(let fields) = try reader.value(unarchiver.objectReference(uid, key: key?.stringValue)) else {
                throw mismatch(type, v, key)
            }
            let object = try objectFrame(uid, fields)
            guard case .standard(let standard)? = object.kind else {
                throw DecodingError.typeMismatch(type, DecodingError.Context(
                    codingPath: path(key),
                    debugDescription: describe("expected \(type), found an object of class \(object.chain.first ?? "?")", uid: uid, chain: object.chain)))
            }
            return (uid, fields, standard)
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: type)
        }
    }

    /// An inline array of references under a raw key of an object.
    func references(_ rawKey: String, of uid: Int, _ fields: ArchiveObjectReader.DictionaryView) throws -> ArchiveObjectReader.ArrayView {
        let u = unarchiver
        return try u.onFrame(KeyedUnarchiver.Frame(uid: uid, fields: fields)) { try u.elementArray(rawKey) }
            ?? BinaryPlistObjects.ArrayView(refs: 0, count: 0)
    }

    /// The elements of an `NSArray` / `NSSet`.
    func arrayElements(_ v: ArchiveObjectReader.Value, _ type: Any.Type, _ key: (any CodingKey)?) throws -> (uid: Int, refs: ArchiveObjectReader.ArrayView) {
        let (uid, fields, standard) = try standardObject(v, type, key)
        switch standard {
        case .array, .mutableArray, .set, .mutableSet, .orderedSet, .mutableOrderedSet: break
        default: throw DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path(key), debugDescription: describe("expected an array, found \(standard.className)", uid: uid)))
        }
        do {
            return (uid, try references("NS.objects", of: uid, fields))
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: type)
        }
    }

    func forEachElement(of v: ArchiveObjectReader.Value, as type: Any.Type,
                        _ body: (ArchiveObjectReader.Value, Int) throws -> Void) throws {
        let (_, refs) = try arrayElements(v, type, nil)
        for i in 0..<refs.count {
            codingPath.append(ArchiveIndexKey(i))
            defer { codingPath.removeLast() }
            try body(element(refs, i), refs.count)
        }
    }

    @inline(__always)
    func element(_ refs: ArchiveObjectReader.ArrayView, _ i: Int) throws -> ArchiveObjectReader.Value {
        do {
            return try reader.value(reader.elementReference(refs, i))
        } catch let error as KeyedArchiveError {
            throw converted(error, ArchiveIndexKey(i), as: Any.self)
        }
    }

    /// The keys and values of an `NSDictionary`.
    func dictionaryEntries(_ v: ArchiveObjectReader.Value, _ type: Any.Type, _ key: (any CodingKey)?)
        throws -> (keys: ArchiveObjectReader.ArrayView, values: ArchiveObjectReader.ArrayView)
    {
        let (uid, fields, standard) = try standardObject(v, type, key)
        guard standard == .dictionary || standard == .mutableDictionary else {
            throw DecodingError.typeMismatch(type, DecodingError.Context(
                codingPath: path(key), debugDescription: describe("expected a dictionary, found \(standard.className)", uid: uid)))
        }
        do {
            let keys = try references("NS.keys", of: uid, fields)
            let values = try references("NS.objects", of: uid, fields)
            guard keys.count == values.count else {
                throw corrupted("NS.keys has \(keys.count) entries but NS.objects has \(values.count)", key, uid: uid)
            }
            return (keys, values)
        } catch let error as KeyedArchiveError {
            throw converted(error, key, as: type)
        }
    }

    func forEachEntry(of v: ArchiveObjectReader.Value, as type: Any.Type,
                      _ body: (ArchiveObjectReader.Value, ArchiveObjectReader.Value) throws -> Void) throws {
        let (keys, values) = try dictionaryEntries(v, type, nil)
        for i in 0..<keys.count {
            codingPath.append(ArchiveIndexKey(i))
            defer { codingPath.removeLast() }
            try body(element(keys, i), element(values, i))
        }
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch current {
        case .object(let object):
            try verifyChain(object)
            return KeyedDecodingContainer(ArchiveKeyedDecodingContainer<Key>(decoder: self, object: object, codingPath: codingPath))
        case .value(let v):
            let (keys, values) = try dictionaryEntries(v, currentType, nil)
            return KeyedDecodingContainer(try ArchiveDictionaryDecodingContainer<Key>(
                decoder: self, keys: keys, values: values, codingPath: codingPath))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch current {
        case .object(let object):
            throw DecodingError.typeMismatch([Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: describe("expected an array, found an object of class \(object.chain.first ?? "?")", uid: object.uid, chain: object.chain)))
        case .value(let v):
            let (_, refs) = try arrayElements(v, currentType, nil)
            return ArchiveUnkeyedDecodingContainer(decoder: self, refs: refs, codingPath: codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        switch current {
        case .object(let object): ArchiveSingleValueDecodingContainer(decoder: self, value: .uid(object.uid), codingPath: codingPath)
        case .value(let v): ArchiveSingleValueDecodingContainer(decoder: self, value: v, codingPath: codingPath)
        }
    }

    /// A keyed container for `T` reads an object whose `$classes` chain names `T` (or whose class the
    /// registry maps to `T`): the wrong class chain is a type mismatch, not a silent misreading of another
    /// class's keys.
    func verifyChain(_ object: ObjectFrame) throws {
        let id = ObjectIdentifier(currentType)
        if object.verified == id { return }
        let name = archivedCodableName(of: currentType)
        var renamed = false
        if case .codable(let registered)? = object.kind {
            renamed = ObjectIdentifier(registered) == id  // a registry rename names this type
        }
        guard renamed || object.chain.contains(name) else {
            throw DecodingError.typeMismatch(currentType, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: describe("expected \(currentType) (archived as \"\(name)\"), found class \(object.chain.first ?? "?") whose $classes do not include \"\(name)\"",
                                           uid: object.uid, chain: object.chain)))
        }
        if object.classUID >= 0 { unarchiver.state.pointee.classCache.setVerified(id, forClass: object.classUID) }
    }

    /// A decoder whose current value is `v` (for `superDecoder(forKey:)`).
    func child(for v: ArchiveObjectReader.Value, codingPath: [any CodingKey]) -> CodableArchiveDecoder {
        let child = CodableArchiveDecoder(unarchiver: unarchiver, userInfo: userInfo)
        child.current = .value(v)
        child.codingPath = codingPath
        return child
    }

    // MARK: Top level

    /// The value of `root` in `$top`, or `nil` when there is none.
    func rootValue() throws -> ArchiveObjectReader.Value? {
        try unarchiver.fieldValue(forKey: "root")
    }
}

extension KeyedUnarchiver {
    /// Decodes a registered Codable type met by the NSCoding-style API (``ResolvedClass/Kind/codable(_:)``).
    func decodeCodableObject(_ uid: Int, _ type: any ArchiveCodable.Type, key: String) throws -> Any {
        let decoder = CodableArchiveDecoder(unarchiver: self)
        func open<U: ArchiveCodable>(_: U.Type) throws -> Any { try decoder.decodeValue(U.self, from: .uid(uid)) }
        do {
            return try open(type)
        } catch let error as DecodingError {
            throw KeyedArchiveError(decodingError: error)
        }
    }

    /// Decodes the current object (already entered) as the Codable `T`: an `init(coder:)` made of `T`'s
    /// `init(from:)`.
    func decodeCurrentCodableObject<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = CodableArchiveDecoder(unarchiver: self)
        let object = CodableArchiveDecoder.ObjectFrame(uid: state.pointee.frame.uid, fields: state.pointee.frame.fields, chain: state.pointee.frame.classChain,
                                                       slot: state.pointee.frame.slot, classUID: -1)
        do {
            return try decoder.withCurrent(.object(object), T.self) { try T(from: decoder) }
        } catch let error as DecodingError {
            throw KeyedArchiveError(decodingError: error)
        }
    }
}

extension KeyedArchiveError {
    /// A Codable failure met by the NSCoding-style API, with its code and coding path.
    init(decodingError: DecodingError) {
        if case .dataCorrupted(let context) = decodingError, let underlying = context.underlyingError as? KeyedArchiveError {
            self = underlying
            return
        }
        let code: Code
        let context: DecodingError.Context
        switch decodingError {
        case .typeMismatch(_, let c): code = .typeMismatch; context = c
        case .valueNotFound(_, let c): code = .valueNotFound; context = c
        case .keyNotFound(_, let c): code = .valueNotFound; context = c
        case .dataCorrupted(let c): code = .invalidValue; context = c
        @unknown default: code = .invalidValue; context = DecodingError.Context(codingPath: [], debugDescription: "\(decodingError)")
        }
        self.init(code, context.debugDescription,
                  keyPath: context.codingPath.map(\.stringValue).joined(separator: "."))
    }
}
