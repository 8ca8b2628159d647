import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Writes an object graph as a keyed archive, the format of `NSKeyedArchiver`.
///
/// ```swift
/// let bytes = try KeyedArchiver.archivedData(withRootObject: contents)          // binary plist
/// let xml = try KeyedArchiver.archivedData(withRootObject: contents, format: .xml)
/// ```
///
/// Inside ``KeyedArchivable/encode(with:)`` a type writes its keys with the `encode` methods. Objects are
/// numbered as Apple numbers them: the root is UID 1, then depth first; a class dictionary is added after
/// its first instance's children and reused. Class instances are shared by identity (one instance encoded
/// twice is one UID); values (structs, arrays) are written at each use; equal strings and numbers are
/// uniqued. User keys that begin with `$` are escaped with one more `$`, as Apple does. The same graph always
/// gives the same bytes (dictionary and set elements are written in a sorted order).
///
/// Failures inside `encode(with:)` (nesting deeper than ``maxDepth``, an unsupported value) are recorded
/// and thrown by ``finishEncoding()->[UInt8]``.
///
/// Objects may be substituted as they are written: by their type (``KeyedArchiveSubstituting``'s
/// `replacementObject(for:)` and `classForKeyedArchiver`) and by the archiver's ``willEncode`` hook.
///
/// Mirrors `NSKeyedArchiver` (`init(requiringSecureCoding:)`, `encode(_:forKey:)`, `finishEncoding()`,
/// `encodedData`, `setClassName(_:for:)`, `archivedData(withRootObject:requiringSecureCoding:)`).
public final class KeyedArchiver {
    /// The format ``finishEncoding()->[UInt8]`` writes. Mirrors `NSKeyedArchiver.outputFormat`.
    public var outputFormat: PlistFormat

    /// The state touched for every key and object, behind a pointer that only this archiver holds: stored
    /// properties of a class get a dynamic exclusivity check at each access, which cost more than the
    /// encoding work itself. The archiver is not Sendable and runs on one thread at a time. Used in place,
    /// as `state.pointee.scratch`, never through forwarding accessors.
    let state: UnsafeMutablePointer<EncodingState>

    /// Everything an archive's encoding changes. A new field needs its start value in ``reuse()`` too.
    struct EncodingState {
        var builder: ArchivePlistBuilder = ArchivePlistBuilder()
        /// `$objects`: archive UID -> plist node (-1 while the object is being encoded).
        var objectNodes: [Int32] = []
        /// `(key node, value node)` pairs of the objects being encoded, innermost last.
        var scratch: [Int32] = []
        var frameStart: Int = 0
        var unkeyedCount: Int = 0
        var depth: Int = 0
        var identities = IdentityTable(capacity: 16)
        /// Per archived type: see ``TypeInfo``.
        var typeInfo = TypeInfoTable()
        /// Per type slot, the keys written at each field position with their nodes: objects of one type write
        /// the same keys in the same order, so a key is usually found by one string comparison.
        var keyCaches: [[(key: String, node: Int32)]] = []
        /// How many of `keyCaches` this archive uses: a reused state keeps the others' storage for the next
        /// archive's types (see ``newKeyCache()``), instead of growing new arrays key by key each archive.
        var keyCacheCount = 0
        var currentSlot: Int = -1
        var retained: [AnyObject] = []
        /// Per plist string node, the UID of its bare `NSString` object (-1 when it has none).
        var stringUIDs: [Int32] = []
        /// Per ``StandardKey``, its key node (-1 until first written).
        var standardKeyNodes: [Int32] = [Int32](repeating: -1, count: StandardKey.count)
        /// Per ``StandardClass``, its class dictionary UID (-1 until first written).
        var standardClassUIDs: [Int32] = [Int32](repeating: -1, count: StandardClass.count)
        var frameStack: [(start: Int, unkeyed: Int, slot: Int)] = []
        var maxDepth: Int = 512
        /// Types recently found to be ``KeyedArchivable`` by a cast from `Any`, so that the next value of the
        /// same type skips the runtime's protocol-conformance lookup.
        var archivableTypes = RecentArchivableTypes()
        /// Whether a ``KeyedArchiver/willEncode`` hook is set (every object then takes the substituting path).
        var hooked = false
        var willEncode: ((Any) -> Any?)?
    }

    /// Per archived type: its class dictionary UID (-1 until the first instance is closed), its key cache
    /// slot, and whether it substitutes objects (``KeyedArchiveSubstituting``).
    struct TypeInfo {
        var classUID: Int32
        var slot: Int
        var substitutes: Bool
    }

    /// Deepest nesting of objects accepted. Default 512.
    public var maxDepth: Int {
        get { state.pointee.maxDepth }
        set { state.pointee.maxDepth = newValue }
    }

    // The tables below are read and changed only by the archiver's own methods, each access short (a lookup,
    // an insert) with no call out to other code while it lasts, so no two accesses can overlap: they are not
    // checked at run time (an archive of a small record made some thirty such checks).

    /// Whether a non-finite date fails the archive (see ``archivedData(withRootObject:refusingUnreadableValues:)``).
    @exclusivity(unchecked) package var refusesNonFiniteDates = false
    @exclusivity(unchecked) var conditionals: [ObjectIdentifier] = []
    @exclusivity(unchecked) var integerObjects: [Int64: Int32] = [:]
    @exclusivity(unchecked) var realObjects: [UInt64: Int32] = [:]
    @exclusivity(unchecked) var boolObjects: [Int32] = [-1, -1]
    @exclusivity(unchecked) var nullObjectUID: Int32 = -1
    /// Class dictionaries by `$classes` chain, and key strings' plist nodes: tables of the project's cheap
    /// string hash (``HashedString``), where `Dictionary`'s seeded hashing of each key was a tenth of a small
    /// archive's work.
    @exclusivity(unchecked) var chainObjects = HashTable<HashedChain>(capacity: 8)
    @exclusivity(unchecked) var keyNodes = StringTable(capacity: 16)
    @exclusivity(unchecked) var classNames: [ObjectIdentifier: String] = [:] {
        didSet { typeChains.removeAll() }
    }
    /// Each archived type's `$classes` chain, hashed, from one archive to the next of a reused archiver (a
    /// type's names are static; ``classNames`` changing empties it): no chain array made and no names hashed
    /// for each archive.
    @exclusivity(unchecked) var typeChains: [ObjectIdentifier: HashedChain] = [:]
    /// The same for the standard classes, by ``StandardClass/rawValue``.
    @exclusivity(unchecked) var standardChains: [HashedChain?] = []
    /// Whether `typeChains` and `standardChains` are kept: only for an archiver made to be reused
    /// (``reusable()``); for one archive they would cost more than they save.
    @exclusivity(unchecked) var keepsClassChains = false
    /// Class dictionary UIDs of the types named by `classForKeyedArchiver` when not the object's own.
    @exclusivity(unchecked) var substituteClassUIDs: [ObjectIdentifier: Int32] = [:]
    @exclusivity(unchecked) var failure: KeyedArchiveError?
    @exclusivity(unchecked) var finished = false

    /// An archiver with an empty archive. Mirrors `NSKeyedArchiver(requiringSecureCoding:)`.
    public init(outputFormat: PlistFormat = .binary) {
        self.outputFormat = outputFormat
        state = UnsafeMutablePointer<EncodingState>.allocate(capacity: 1)
        state.initialize(to: EncodingState())
        state.pointee.objectNodes.append(state.pointee.builder.string("$null"))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Archives `rootObject` under the key `root`. Mirrors `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`.
    public static func archivedData(withRootObject rootObject: Any?, format: PlistFormat = .binary) throws -> [UInt8] {
        let archiver = KeyedArchiver(outputFormat: format)
        archiver.encodeObject(rootObject, forKey: "root")
        return try archiver.finishEncoding()
    }

    /// ``archivedData(withRootObject:format:)-(_,_)`` (binary), refusing what ``KeyedUnarchiver`` would refuse to
    /// read back of the values the archiver writes itself (a non-finite date): a store archives records this way
    /// instead of decoding each one again. With `archiver` (one made by ``reusable()``), the archive is written
    /// by it, its tables' storage kept from the archive before: the same bytes, without allocating and freeing
    /// the archiver's state for each of many small archives.
    package static func archivedData(withRootObject rootObject: Any?, refusingUnreadableValues: Bool,
                                     reusing archiver: KeyedArchiver? = nil) throws -> [UInt8] {
        let archiver = archiver ?? KeyedArchiver()
        archiver.prepareForReuse()
        archiver.refusesNonFiniteDates = refusingUnreadableValues
        archiver.encodeObject(rootObject, forKey: "root")
        return try archiver.finishEncoding()
    }

    /// An archiver for ``archivedData(withRootObject:refusingUnreadableValues:reusing:)``: one archive at a time.
    package static func reusable() -> KeyedArchiver {
        let archiver = KeyedArchiver()
        archiver.keepsClassChains = true
        return archiver
    }

    /// Makes an archiver that finished (or failed) an archive new again, keeping its tables' storage; a new one
    /// is left as it is.
    func prepareForReuse() {
        guard finished || failure != nil else { return }
        state.pointee.reuse()
        conditionals.removeAll(keepingCapacity: true)
        integerObjects.removeAll(keepingCapacity: true)
        realObjects.removeAll(keepingCapacity: true)
        boolObjects = [-1, -1]
        nullObjectUID = -1
        chainObjects.removeAll()
        keyNodes.removeAll()
        substituteClassUIDs.removeAll(keepingCapacity: true)
        failure = nil
        finished = false
        state.pointee.objectNodes.append(state.pointee.builder.string("$null"))
    }

    /// Archives `rootObject` under the key `root`, as `Data` (chosen where `Data` is expected:
    /// `let data: Data = try KeyedArchiver.archivedData(withRootObject: contents)`).
    /// Mirrors `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`, which returns `Data`.
    @_disfavoredOverload
    public static func archivedData(withRootObject rootObject: Any?, format: PlistFormat = .binary) throws -> Data {
        Data(try archivedData(withRootObject: rootObject, format: format) as [UInt8])
    }

    /// Writes `$classname` `name` (and a chain starting with it) for instances of `type`.
    /// Mirrors `NSKeyedArchiver.setClassName(_:for:)`.
    public func setClassName(_ name: String, for type: any KeyedArchivable.Type) {
        classNames[ObjectIdentifier(type)] = name
    }

    // MARK: Scalars

    /// Mirrors `encode(_:forKey:)` for `Bool`.
    public func encode(_ value: Bool, forKey key: String) { addField(userKey(key), state.pointee.builder.bool(value)) }
    /// Mirrors `encode(_:forKey:)` for `Int` (`encodeInteger`).
    public func encode(_ value: Int, forKey key: String) { addField(userKey(key), state.pointee.builder.integer(Int64(value))) }
    /// Mirrors `encodeCInt(_:forKey:)` / `encode(_:forKey:)` for `Int32`.
    public func encode(_ value: Int32, forKey key: String) { addField(userKey(key), state.pointee.builder.integer(Int64(value))) }
    /// Mirrors `encode(_:forKey:)` for `Int64`.
    public func encode(_ value: Int64, forKey key: String) { addField(userKey(key), state.pointee.builder.integer(value)) }
    /// Mirrors `encode(_:forKey:)` for `Float`.
    public func encode(_ value: Float, forKey key: String) { addField(userKey(key), state.pointee.builder.real(Double(value))) }
    /// Mirrors `encode(_:forKey:)` for `Double`.
    public func encode(_ value: Double, forKey key: String) { addField(userKey(key), state.pointee.builder.real(value)) }
    /// Mirrors `encodeBytes(_:length:forKey:)`: the bytes are stored inline as plist data.
    public func encodeBytes(_ bytes: [UInt8], forKey key: String) { addField(userKey(key), state.pointee.builder.data(bytes)) }
    /// Mirrors `encodeBytes(_:length:forKey:)` for `Data`: the bytes are stored inline as plist data.
    public func encodeBytes(_ data: Data, forKey key: String) { addField(userKey(key), state.pointee.builder.data(data)) }

    // MARK: Objects

    /// Encodes an archivable object (a reference; `nil` writes `$null`). Mirrors `encode(_:forKey:)` for objects.
    public func encode(_ object: (any KeyedArchivable)?, forKey key: String) {
        guard let object, !state.pointee.hooked, !Self.isStandardFastType(Swift.type(of: object)) else {
            return encodeObject(object, forKey: key)
        }
        // The conformance is known statically: no cast from `Any` to find it again.
        addField(userKey(key), state.pointee.builder.uid(Int(encodeArchivable(object))))
    }

    /// Whether `encodeUnhooked` writes values of `type` by its exact-type switch, before looking at
    /// ``KeyedArchivable``.
    @inline(__always)
    static func isStandardFastType(_ type: Any.Type) -> Bool {
        let id = ObjectIdentifier(type)
        return id == ObjectIdentifier(String.self) || id == ObjectIdentifier(Date.self)
            || id == ObjectIdentifier(Int.self) || id == ObjectIdentifier(Double.self)
    }
    /// Encodes a string as an `NSString` object.
    public func encode(_ string: String?, forKey key: String) { encodeObjectField(string, forKey: key, as: stringObject) }
    /// Encodes a date as an `NSDate` object (`NS.time`).
    public func encode(_ date: Date?, forKey key: String) { encodeObjectField(date, forKey: key, as: dateObject) }
    /// Encodes data as an `NSData` object.
    public func encode(_ data: Data?, forKey key: String) { encodeObjectField(data, forKey: key, as: dataObject) }
    /// Encodes a UUID as an `NSUUID` object (`NS.uuidbytes`).
    public func encode(_ uuid: UUID?, forKey key: String) { encodeObjectField(uuid, forKey: key, as: uuidObject) }
    /// Encodes a URL as an `NSURL` object (`NS.base`, `NS.relative`).
    public func encode(_ url: URL?, forKey key: String) { encodeObjectField(url, forKey: key, as: urlObject) }
    /// Encodes an array as an `NSArray` of its elements.
    public func encode<Element>(_ array: [Element]?, forKey key: String) {
        encodeObjectField(array, forKey: key) { arrayObject($0) }
    }
    /// Encodes a dictionary as an `NSDictionary` (`NS.keys`, `NS.objects`), keys in a sorted order.
    public func encode<Key: Hashable, Value>(_ dictionary: [Key: Value]?, forKey key: String) {
        if Key.self == String.self, Value.self == String.self, let dictionary, !state.pointee.hooked {
            // The types were just found identical: a reinterpretation, not an element-by-element `as?` copy.
            return addObjectField(key, stringDictionaryObject(unsafeBitCast(dictionary, to: [String: String].self)))
        }
        encodeObject(dictionary, forKey: key)
    }
    /// Encodes a set as an `NSSet` (`NS.objects`), elements in a sorted order.
    public func encode<Element: Hashable>(_ set: Set<Element>?, forKey key: String) { encodeObject(set, forKey: key) }

    /// Encodes any supported value as an object: archivable types, `String`, `Int`, `Double`, `Bool` and the
    /// other integer types (as `NSNumber`), `Date`, `Data`, `UUID`, `URL`, arrays, dictionaries, sets,
    /// `ArchivedNull`, `ArchivedValue`, `ArchivedOrderedSet`; `nil` writes `$null`.
    /// Mirrors `encode(_:forKey:)` with an `Any?` object.
    public func encodeObject(_ value: Any?, forKey key: String) {
        addField(userKey(key), state.pointee.builder.uid(Int(archiveObject(value))))
    }

    /// Encodes a reference to `object` only if it is also encoded unconditionally somewhere in the archive;
    /// otherwise the key holds `$null`. Mirrors `encodeConditionalObject(_:forKey:)`.
    public func encodeConditionalObject(_ object: (any KeyedArchivable & AnyObject)?, forKey key: String) {
        guard let object else { return addField(userKey(key), state.pointee.builder.uid(0)) }
        let id = ObjectIdentifier(object)
        if let uid = state.pointee.identities[Self.identityKey(id)] { return addField(userKey(key), state.pointee.builder.uid(Int(uid))) }
        state.pointee.retained.append(object)
        conditionals.append(id)
        addField(userKey(key), Int32(-conditionals.count))
    }

    /// Encodes a value without a key, under the next of `$0`, `$1`, ... of the current object.
    /// Mirrors `NSCoder.encode(_:)` on a keyed archiver.
    public func encodeObject(_ value: Any?) {
        let key = "$\(state.pointee.unkeyedCount)"
        state.pointee.unkeyedCount += 1
        addField(keyNode(key), state.pointee.builder.uid(Int(archiveObject(value))))
    }

    // MARK: Finishing

    /// Finishes the archive and returns its bytes in ``outputFormat``.
    /// Mirrors `finishEncoding()` followed by `encodedData`.
    public func finishEncoding() throws -> [UInt8] {
        if let failure { throw failure }
        guard !finished else {
            throw KeyedArchiveError(.unsupportedType, "finishEncoding() was already called")
        }
        finished = true
        if !conditionals.isEmpty {
            var resolved: [Int32] = []
            for id in conditionals { resolved.append(state.pointee.builder.uid(Int(state.pointee.identities[Self.identityKey(id)] ?? 0))) }
            state.pointee.builder.resolvePlaceholders { resolved[Int(-$0) - 1] }
            // A conditional reference under a $top key is still in the top frame.
            for i in state.pointee.scratch.indices where state.pointee.scratch[i] < 0 { state.pointee.scratch[i] = resolved[Int(-state.pointee.scratch[i]) - 1] }
        }
        let topNode = state.pointee.builder.dictionary(pairs: state.pointee.scratch[...])
        let objectsNode = state.pointee.builder.collection(.array, state.pointee.objectNodes)
        // The nodes made in the same order as before (keys, then values), so the output is byte for byte the
        // same; the pairs in one array, made once.
        let versionKey = state.pointee.builder.string("$version")
        let archiverKey = state.pointee.builder.string("$archiver")
        let topKey = state.pointee.builder.string("$top")
        let objectsKey = state.pointee.builder.string("$objects")
        let version = state.pointee.builder.integer(100_000)
        let archiver = state.pointee.builder.string("NSKeyedArchiver")
        let pairs: [Int32] = [versionKey, version, archiverKey, archiver, topKey, topNode, objectsKey, objectsNode]
        let root = state.pointee.builder.dictionary(pairs: pairs[...])
        return try state.pointee.builder.serialize(top: root, format: outputFormat)
    }

    /// Finishes the archive and returns it in ``outputFormat`` as `Data` (chosen where `Data` is expected).
    /// Mirrors `finishEncoding()` followed by `encodedData`, which is `Data`.
    @_disfavoredOverload
    public func finishEncoding() throws -> Data {
        Data(try finishEncoding() as [UInt8])
    }

    // MARK: Fields as the file spells them

    /// Writes `field` under `key` as the file spells it, the way `ArchivedObject` writes its fields back: a
    /// key that starts with `$` is not escaped, a plist value goes inline, an object or a list of objects as
    /// UIDs. At the top level it writes a `$top` entry. Use it to write the fields of an object exactly as
    /// another archive has them.
    ///
    /// No Apple API corresponds: `NSKeyedArchiver` escapes a key that starts with `$` (with another `$`).
    public func encode(_ field: ArchivedObject.Field, forArchivedKey key: String) {
        switch field {
        case .value(let v): addField(keyNode(key), state.pointee.builder.scalar(v))
        case .object(let o): addField(keyNode(key), state.pointee.builder.uid(Int(archiveObject(o))))
        case .objects(let list): addField(keyNode(key), uidArray(list))
        }
    }

    // MARK: Internals

    func record(_ error: KeyedArchiveError) {
        if failure == nil { failure = error }
    }

    @inline(__always)
    func addField(_ key: Int32, _ value: Int32) {
        state.pointee.scratch.append(key)
        state.pointee.scratch.append(value)
    }

    @inline(__always)
    func keyNode(_ key: String) -> Int32 {
        let hashed = HashedString(key)
        if let n = keyNodes[hashed] { return n }
        let n = state.pointee.builder.string(key)
        keyNodes.insert(hashed, n)
        return n
    }

    /// A user key, escaped as Apple does: a leading `$` gets one more.
    @inline(__always)
    func userKey(_ key: String) -> Int32 {
        let position = (state.pointee.scratch.count - state.pointee.frameStart) >> 1
        if state.pointee.currentSlot >= 0, position < state.pointee.keyCaches[state.pointee.currentSlot].count {
            let cached = state.pointee.keyCaches[state.pointee.currentSlot][position]
            if cached.key == key { return cached.node }
        }
        let node = key.utf8.first == UInt8(ascii: "$") ? keyNode("$" + key) : keyNode(key)
        if state.pointee.currentSlot >= 0 {
            if position < state.pointee.keyCaches[state.pointee.currentSlot].count {
                state.pointee.keyCaches[state.pointee.currentSlot][position] = (key, node)
            } else if position == state.pointee.keyCaches[state.pointee.currentSlot].count {
                state.pointee.keyCaches[state.pointee.currentSlot].append((key, node))
            }
        }
        return node
    }

    static func identityKey(_ id: ObjectIdentifier) -> IdentityKey { IdentityKey(id) }

    /// The plist UID object that refers to object `uid` (`$objects` index).
    @inline(__always)
    func reference(_ uid: Int32) -> Int32 { state.pointee.builder.uid(Int(uid)) }

    /// A plist array of the plist objects `nodes`.
    @inline(__always)
    func arrayNode(_ nodes: [Int32]) -> Int32 { state.pointee.builder.collection(.array, nodes) }

    /// A plist array of references to the objects `uids`, as `NS.objects` holds them.
    func referenceArray(_ uids: [Int32]) -> Int32 { arrayNode(uids.map(reference)) }

    func uidArray(_ values: [Any]) -> Int32 {
        var refs: [Int32] = []
        refs.reserveCapacity(values.count)
        for v in values { refs.append(reference(archiveObject(v))) }
        return arrayNode(refs)
    }

    func uidArray(_ array: ArchiveEncodableArray) -> Int32 {
        var refs: [Int32] = []
        refs.reserveCapacity(array.archiveCount)
        array.forEachArchiveElement { refs.append(reference(archiveObject($0))) }
        return arrayNode(refs)
    }

    func uidArray(_ values: [Any?]) -> Int32 {
        var refs: [Int32] = []
        refs.reserveCapacity(values.count)
        for v in values { refs.append(reference(archiveObject(v))) }
        return arrayNode(refs)
    }

    /// The typed `encode(_:forKey:)` of a standard value: its object made by `object` (`$null` for nil), or,
    /// when a ``willEncode`` hook is set, the value passed through ``encodeObject(_:forKey:)`` like any other.
    @inline(__always)
    func encodeObjectField<Value>(_ value: Value?, forKey key: String, as object: (Value) -> Int32) {
        if state.pointee.hooked { return encodeObject(value, forKey: key) }
        addObjectField(key, value.map(object))
    }

    /// Adds a field holding a reference to object `uid` (`$null` for nil), after the key: the same order
    /// of plist objects as ``encodeObject(_:forKey:)``.
    @inline(__always)
    func addObjectField(_ key: String, _ uid: @autoclosure () -> Int32?) {
        let keyNode = userKey(key)
        addField(keyNode, reference(uid() ?? 0))
    }

    /// Encodes `value` as an object and returns its UID (0 for nil).
    func archiveObject(_ value: Any?) -> Int32 {
        guard let value else { return 0 }
        return archiveObject(value)
    }

    /// Encodes `value` as an object and returns its UID: the overload for a value that is there, which an
    /// array's elements are (wrapping each in an `Optional` copied and destroyed the `Any`).
    func archiveObject(_ value: Any) -> Int32 {
        if state.pointee.hooked { return encodeHooked(value) }
        return encodeUnhooked(value)
    }

    /// Encodes `value`, which the ``willEncode`` hook has not seen: an instance encoded before keeps its UID
    /// (or its replacement's) without another call.
    func encodeHooked(_ value: Any) -> Int32 {
        if let optional = value as? ArchiveOptional { return archiveObject(optional.archiveWrapped) }
        if let archivable = value as? any KeyedArchivable, let instance = archivable.archiveIdentity {
            if let existing = state.pointee.identities[Self.identityKey(ObjectIdentifier(instance))] { return existing }
            return encodeSubstituting(archivable, instance: instance)
        }
        return encodeSubstituting(value, instance: nil)
    }

    /// The substituting path: `replacementObject(for:)`, then the ``willEncode`` hook, then the result is
    /// encoded without being substituted again; `instance` (the original, when a class instance) is mapped
    /// to the result's UID so that later references to it need no more calls.
    func encodeSubstituting(_ value: Any, instance: AnyObject?) -> Int32 {
        var current: Any? = value
        if let substituting = value as? any KeyedArchiveSubstituting { current = substituting.replacementObject(for: self) }
        if let hook = state.pointee.willEncode, let object = current { current = hook(object) }
        let uid: Int32
        if let object = current {
            if let archivable = object as? any KeyedArchivable {
                if let identity = archivable.archiveIdentity, identity !== instance,
                   let existing = state.pointee.identities[Self.identityKey(ObjectIdentifier(identity))] {
                    uid = existing  // a replacement that was encoded before
                } else {
                    uid = encodeArchivable(archivable, substituted: true)
                }
            } else {
                uid = encodeUnhooked(object)
            }
        } else {
            uid = 0
        }
        if let instance {
            let key = Self.identityKey(ObjectIdentifier(instance))
            if state.pointee.identities[key] == nil {
                state.pointee.identities.insert(key, uid)
                state.pointee.retained.append(instance)
            }
        }
        return uid
    }

    /// Encodes `value` as an object without the ``willEncode`` hook (its children still pass through it).
    func encodeUnhooked(_ value: Any) -> Int32 {
        // A class instance of a type found archivable before, by its reference: `type(of:)` on the `Any` and a
        // cast to the class would each ask the runtime to unwrap the existential an `[any SomeShape]` element
        // is stored as (`storedClassReference(in:)`).
        if let object = storedClassReference(in: value) {
            let typeID = ObjectIdentifier(Swift.type(of: object))
            if let known = state.pointee.archivableTypes[typeID], let uid = encodeArchivable(object: object, exactly: known) {
                return uid
            }
        }
        // The commonest standard values by their exact type, before the protocol-conformance lookup (one
        // `type(of:)`: it is a runtime call for an `Any`).
        let typeID = ObjectIdentifier(type(of: value))
        switch typeID {
        case ObjectIdentifier(String.self): if let s = value as? String { return stringObject(s) }
        case ObjectIdentifier(Date.self): if let d = value as? Date { return dateObject(d) }
        case ObjectIdentifier(Int.self): if let i = value as? Int { return integerObject(Int64(i)) }
        case ObjectIdentifier(Double.self): if let d = value as? Double { return realObject(d) }
        default: break
        }
        if let known = state.pointee.archivableTypes[typeID], let uid = encodeArchivable(value, exactly: known) {
            return uid
        }
        if let archivable = value as? any KeyedArchivable {
            state.pointee.archivableTypes.insert(typeID, Swift.type(of: archivable))
            return encodeArchivable(archivable)
        }
        return encodeStandard(value)
    }

    /// Encodes the class instance `object`, whose class is `type`, as a `type` (no cast); `nil` when its class
    /// is not `type` itself.
    func encodeArchivable(object: AnyObject, exactly type: any KeyedArchivable.Type) -> Int32? {
        func encode<T: KeyedArchivable>(_: T.Type) -> Int32? {
            // The instance's class is `T` itself, so the reference is a `T`.
            guard ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) else { return nil }
            return encodeArchivable(unsafeBitCast(object, to: T.self), exact: true)
        }
        return encode(type)
    }

    /// Encodes `value`, whose dynamic type is `type`, through a cast to that concrete type (no conformance
    /// lookup); `nil` when the cast fails. A class instance that ``storedClassReference(in:)`` reads took
    /// ``encodeArchivable(object:exactly:)`` before; what reaches here is a value, or an instance stored some
    /// other way (an opaque existential, an error).
    func encodeArchivable(_ value: Any, exactly type: any KeyedArchivable.Type) -> Int32? {
        func encode<T: KeyedArchivable>(_: T.Type) -> Int32? {
            if T.self is AnyObject.Type {
                // A class: the reference, then its class checked to be `T` itself, so that it is a `T` (the
                // runtime's cast to `T` unwraps an existential stored in the `Any` at about twice the cost).
                let object = value as AnyObject
                guard ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) else { return nil }
                return encodeArchivable(unsafeBitCast(object, to: T.self), exact: true)
            }
            // A pattern, not `as? T`: the cast then writes `T` itself, with no `Optional<T>` (whose metadata
            // an unspecialized function looks up at every call).
            switch value {
            case let object as T: return encodeArchivable(object)
            default: return nil
            }
        }
        return encode(type)
    }

    func newObject() -> Int32 {
        state.pointee.objectNodes.append(-1)
        return Int32(truncatingIfNeeded: state.pointee.objectNodes.count - 1)
    }

    /// A bare object (string, number, data): its plist node is the `$objects` entry itself.
    func bareObject(_ node: Int32) -> Int32 {
        state.pointee.objectNodes.append(node)
        return Int32(truncatingIfNeeded: state.pointee.objectNodes.count - 1)
    }

    /// Runs `body` with a fresh field frame for a new object, then closes it with `$class`.
    @inline(__always)
    func withObjectFrame(classUID: () -> Int32, _ body: () -> Void) -> Int32 {
        if state.pointee.depth >= maxDepth {
            record(KeyedArchiveError(.depthLimitExceeded, "objects nest deeper than \(maxDepth)",
                                     objectIndex: state.pointee.objectNodes.count))
            return 0
        }
        let uid = newObject()
        openFrame(uid)
        body()
        closeFrame(uid, classUID: classUID())
        return uid
    }

    @inline(__always)
    func openFrame(_ uid: Int32, slot: Int = -1) {
        state.pointee.frameStack.append((state.pointee.frameStart, state.pointee.unkeyedCount, state.pointee.currentSlot))
        state.pointee.frameStart = state.pointee.scratch.count
        state.pointee.unkeyedCount = 0
        state.pointee.currentSlot = slot
        state.pointee.depth += 1
    }

    @inline(__always)
    func closeFrame(_ uid: Int32, classUID: Int32) {
        addField(classKey, state.pointee.builder.uid(Int(classUID)))
        state.pointee.objectNodes[Int(uid)] = state.pointee.builder.dictionary(pairs: state.pointee.scratch[state.pointee.frameStart...])
        state.pointee.scratch.removeSubrange(state.pointee.frameStart...)
        if let saved = state.pointee.frameStack.popLast() {
            state.pointee.frameStart = saved.start
            state.pointee.unkeyedCount = saved.unkeyed
            state.pointee.currentSlot = saved.slot
        }
        state.pointee.depth -= 1
    }

    var classKey: Int32 { knownKeyNode(.classKey) }

    /// Encodes an archivable object; `substituted`: its `replacementObject(for:)` was already asked.
    /// `exact`: the caller checked that `object`'s dynamic type is its static type, which then stands for it
    /// (`type(of:)` on an unspecialized generic value is a runtime call).
    func encodeArchivable<T: KeyedArchivable>(_ object: T, substituted: Bool = false, exact: Bool = false) -> Int32 {
        let type = exact ? T.self : Swift.type(of: object)
        if state.pointee.depth >= maxDepth { return withObjectFrame(classUID: { 0 }, {}) }
        let typeID = ObjectIdentifier(type)
        let infoIndex: Int
        if let known = state.pointee.typeInfo.index(of: typeID) {
            infoIndex = known
        } else {
            infoIndex = state.pointee.typeInfo.add(typeID, TypeInfo(classUID: -1, slot: state.pointee.newKeyCache(),
                                                                    substitutes: type is any KeyedArchiveSubstituting.Type))
        }
        let info = state.pointee.typeInfo[infoIndex]
        let uid: Int32
        if let instance = object.archiveIdentity {
            let key = Self.identityKey(ObjectIdentifier(instance))
            if let existing = state.pointee.identities[key] { return existing }
            if info.substitutes && !substituted { return encodeSubstituting(object, instance: instance) }
            uid = newObject()
            state.pointee.identities.insert(key, uid)
            state.pointee.retained.append(instance)
        } else {
            if info.substitutes && !substituted { return encodeSubstituting(object, instance: nil) }
            uid = newObject()
        }
        openFrame(uid, slot: info.slot)
        object.encode(with: self)
        let classUID: Int32
        if typeID == ObjectIdentifier(ArchivedObject.self), let generic = object as? ArchivedObject {
            classUID = classObject(chain: generic.classChain)
        } else if info.substitutes, let substituting = object as? any KeyedArchiveSubstituting,
                  ObjectIdentifier(substituting.classForKeyedArchiver) != typeID {
            classUID = classObject(archivedAs: substituting.classForKeyedArchiver)
        } else if info.classUID >= 0 {
            classUID = info.classUID
        } else {
            let hashed: HashedChain
            if keepsClassChains, let known = typeChains[typeID] {
                hashed = known
            } else {
                var chain = [classNames[typeID] ?? type.archivedClassName]
                chain.append(contentsOf: type.archivedSuperclassNames)
                hashed = HashedChain(chain)
                if keepsClassChains { typeChains[typeID] = hashed }
            }
            classUID = classObject(hashed)
            state.pointee.typeInfo[infoIndex].classUID = classUID
        }
        closeFrame(uid, classUID: classUID)
        return uid
    }

    /// The class dictionary of `type`, for objects whose `classForKeyedArchiver` names it.
    func classObject(archivedAs type: any KeyedArchivable.Type) -> Int32 {
        let id = ObjectIdentifier(type)
        if let uid = substituteClassUIDs[id] { return uid }
        var chain = [classNames[id] ?? type.archivedClassName]
        chain.append(contentsOf: type.archivedSuperclassNames)
        let uid = classObject(chain: chain)
        substituteClassUIDs[id] = uid
        return uid
    }

    /// The class dictionary `{$classes, $classname}` for a chain, created once.
    func classObject(chain: [String]) -> Int32 { classObject(HashedChain(chain)) }

    /// ``classObject(chain:)`` for a chain hashed already.
    func classObject(_ hashed: HashedChain) -> Int32 {
        let chain = hashed.chain
        if let uid = chainObjects[hashed] { return uid }
        var names: [Int32] = []
        names.reserveCapacity(chain.count)
        for name in chain { names.append(state.pointee.builder.string(name)) }
        let classes = state.pointee.builder.collection(.array, names)
        let pairs: [Int32] = [keyNode("$classes"), classes, keyNode("$classname"), state.pointee.builder.string(chain.first ?? "")]
        let uid = bareObject(state.pointee.builder.dictionary(pairs: pairs[...]))
        chainObjects.insert(hashed, uid)
        return uid
    }

    func classObject(_ standard: StandardClass) -> Int32 {
        if state.pointee.standardClassUIDs[standard.rawValue] >= 0 { return state.pointee.standardClassUIDs[standard.rawValue] }
        let hashed: HashedChain
        if !keepsClassChains {
            hashed = HashedChain(standard.classChain)
        } else if !standardChains.isEmpty, let known = standardChains[standard.rawValue] {
            hashed = known
        } else {
            if standardChains.isEmpty { standardChains = [HashedChain?](repeating: nil, count: StandardClass.count) }
            hashed = HashedChain(standard.classChain)
            standardChains[standard.rawValue] = hashed
        }
        let uid = classObject(hashed)
        state.pointee.standardClassUIDs[standard.rawValue] = uid
        return uid
    }

    func knownKeyNode(_ key: StandardKey) -> Int32 {
        if state.pointee.standardKeyNodes[key.rawValue] >= 0 { return state.pointee.standardKeyNodes[key.rawValue] }
        let node = keyNode(key.name)
        state.pointee.standardKeyNodes[key.rawValue] = node
        return node
    }
}

extension KeyedArchiver.EncodingState {
    /// A key cache for one more type of this archive: the next of `keyCaches`, emptied with its storage kept, or
    /// a new one.
    mutating func newKeyCache() -> Int { keyCaches.nextEmptied(&keyCacheCount) }

    /// A state as a new archiver starts with (see ``KeyedArchiver/prepareForReuse()``), made in place of this
    /// one: every field as a new state has it, the builder's tables, the lists and the identity table emptied
    /// with their storage kept, and the cache of types found archivable (which depends on no archive) kept.
    mutating func reuse() {
        builder.reset()
        objectNodes.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        frameStart = 0
        unkeyedCount = 0
        depth = 0
        identities.removeAll()
        typeInfo.removeAll()
        keyCacheCount = 0
        currentSlot = -1
        retained.removeAll(keepingCapacity: true)
        stringUIDs.removeAll(keepingCapacity: true)
        standardKeyNodes.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        standardClassUIDs.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        frameStack.removeAll(keepingCapacity: true)
        maxDepth = 512
        hooked = false
        willEncode = nil
    }
}
