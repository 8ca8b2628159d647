import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Reads an object graph from a keyed archive, the format of `NSKeyedUnarchiver`.
///
/// ```swift
/// let registry = ClassRegistry([Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self])
/// let contents = try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: registry)
/// ```
///
/// Binary archives are read lazily, straight from the bytes; XML archives are converted once. Inside
/// ``KeyedArchivable/init(coder:)`` a type reads its keys with the `decode` methods:
/// - Scalars (`Bool`, `Int`, `Int32`, `Int64`, `Float`, `Double`) default to `false` / `0` when the key is
///   missing, as Apple's do; a value that does not fit `Int32` is an ``KeyedArchiveError/Code/outOfRange`` error.
/// - Objects: ``decode(_:forKey:)-(T.Type,_)`` throws ``KeyedArchiveError/Code/valueNotFound`` for a missing
///   key or `$null`; ``decodeIfPresent(_:forKey:)`` returns `nil` instead.
/// - Every decode of a reference checks the decoded value against the requested type, also when the same
///   object was decoded before under another key.
/// - Class instances are shared: one UID decodes to one instance. An object that refers back to an object
///   whose `init(coder:)` has not finished gets ``KeyedArchiveError/Code/cycle``, unless it reads that key with
///   ``decodeDeferred(_:forKey:assign:)``.
///
/// Secure decoding (``requiresSecureCoding``, on for the one-call APIs): every decode names the types it
/// accepts, and each object of a custom class is checked against them before its `init(coder:)` runs; a
/// decode inside `init(coder:)` that names no type (`Any`, `[Any]`) is refused when it finds a value.
/// With ``unarchivedObject(ofTypes:from:registry:requiresSecureCoding:acceptedArchivers:)`` only the
/// named types (and the standard Foundation value classes) are instantiated anywhere in the graph.
/// `$classes` claims in the file are never consulted.
///
/// Decoded objects may be substituted: by their type (``KeyedArchiveSubstituting``'s `awakeAfter(using:)`)
/// and by the unarchiver's ``didDecode`` hook; a class name nothing knows may be resolved by the registry's
/// fallback (`ClassRegistry.resolvingUnknownClasses(_:)`).
///
/// Mirrors `NSKeyedUnarchiver` (`unarchivedObject(ofClass:from:)`, `unarchivedObject(ofClasses:from:)`,
/// `decodeObject(of:forKey:)`, `decodeBool(forKey:)`, `decodeInteger(forKey:)`, `containsValue(forKey:)`).
public final class KeyedUnarchiver {
    /// The class registry in use.
    public let registry: ClassRegistry
    /// Deepest nesting of objects accepted. Default 512.
    public let maxDepth: Int
    /// Most objects decoded in one archive, counting a shared value at each use. Default 16,777,216.
    public let maxObjects: Int
    /// The archive's `$archiver` name: "NSKeyedArchiver" unless the call accepted others
    /// (``AcceptedArchivers``).
    public let archiver: String
    /// Whether every decode must name the types it accepts, checked against each object's class before the
    /// object is instantiated. On for the one-call APIs (``unarchivedObject(ofType:from:registry:requiresSecureCoding:acceptedArchivers:)``
    /// and the others), off by default for ``withUnarchiver(for:registry:allowedTypes:requiresSecureCoding:acceptedArchivers:maxDepth:maxObjects:_:)``.
    ///
    /// In secure mode:
    /// - `decode(Circle.self, forKey:)` accepts a `Circle` or a subclass; `decode([Circle].self, forKey:)`
    ///   an array of them; a class found that is not asked for is ``KeyedArchiveError/Code/classNotAllowed``
    ///   (naming the class, the key path and the types asked for) before its `init(coder:)` runs.
    /// - Inside `init(coder:)`, a decode that names no type (`Any`, `AnyObject`, `[Any]`, `[String: Any]`)
    ///   is refused when it finds a value; at the top level, `Any` accepts whatever the registry decodes.
    /// - An existential (`any Shape`) cannot be compared with a class before decoding: its objects (of
    ///   registered classes only) are checked with `as?` once decoded, as every decoded value is.
    /// - ``decode(_:forKey:allowedTypes:)`` names a list of types for one key.
    ///
    /// Mirrors `NSCoder.requiresSecureCoding` / `NSKeyedUnarchiver.requiresSecureCoding`.
    public let requiresSecureCoding: Bool

    /// The state touched for every key and object, behind a pointer that only this unarchiver holds: stored
    /// properties of a class get a dynamic exclusivity check at each access, which cost more than the
    /// decoding work itself. The unarchiver is not Sendable and runs on one thread at a time. Used in place,
    /// as `state.pointee.frame`, never through forwarding accessors.
    let state: UnsafeMutablePointer<DecodingState>

    struct DecodingState {
        var frame: Frame
        var instances: InstanceTable
        var inProgress: UIDBitSet
        /// The plist objects in `keyObjects`: each is the first object found for its name, so no other
        /// registered object holds that name.
        var registeredKeys: UIDBitSet
        var valid: Bool = true
        var depth: Int = 0
        var decodedCount: Int = 0
        var keyPath = KeyPathStack()
        var pending: [Int: [(AnyObject) -> Void]] = [:]
        var classCache: ResolvedClassCache = ResolvedClassCache()
        /// Recently found keys and their plist string objects.
        var keyObjects: [(key: String, object: Int)] = []
        /// Per ``StandardKey``, the plist string object that held it last (-1 before it is found).
        /// Starts as a shared array (copied at the first change): a reused state keeps its own instead of
        /// allocating one each decode.
        var knownKeyObjects: [Int] = DecodingState.noKnownKeyObjects
        /// Per resolved class, the keys looked up in request order with their plist string objects: every
        /// object of a class usually reads the same keys in the same order.
        var requestCaches: [[(key: String, object: Int)]] = []
        /// How many of `requestCaches` this decode uses (``newRequestCache()``): a reused state keeps the
        /// others' storage for the next archive's classes.
        var requestCacheCount = 0
        /// Per class slot, ``KeyLookupRecord``s of recent objects' key lookups (two a slot).
        var keyLookups: [KeyLookupRecord] = []
        /// Counts the objects that began key lookups (the records' ages).
        var lookupClock = 0
        /// Per array element type met so far, its existential element casts (`nil`: not an existential they
        /// serve), freed in `deinit`.
        var elementCasts: [(type: ObjectIdentifier, casts: ExistentialElementCasts?)] = []
        /// Secure coding: what the decode in progress asked for.
        var requested: RequestedTypes = .anything
        /// The lists of types that `.list` requests index, innermost last.
        var requestLists: [[Any.Type]] = []
        /// While ``KeyedUnarchiver/elements(_:)`` decodes the inline array under `elements.key` of the
        /// object at depth `elements.depth`, the index of the element being decoded (`index` -1 otherwise): a
        /// value decoded under that key at that depth is named `key.index` in key paths, a name made only
        /// when an error reads it. (Here rather than in the frame, which a custom object's decode swaps.)
        var elements: (key: String, index: Int, depth: Int) = ("", -1, -1)
        /// The serial number of the last list request (``RequestedTypes/list(_:serial:)``).
        var listSerial: UInt = 0
        /// Secure coding: requested types found to name a type (a nested decode of them is not refused).
        var typesNamingATypes: [ObjectIdentifier] = []
        /// Secure coding: per class slot, the ``RequestedTypes/cacheKey`` its class was last allowed for.
        var allowedRequests: [UInt] = []
        /// Whether a ``KeyedUnarchiver/didDecode`` hook is set (the direct paths are skipped then).
        var hooked = false
        var didDecode: ((Any) throws -> Any?)?
        /// Objects replaced by `awakeAfter(using:)` or ``KeyedUnarchiver/didDecode`` with a value that is not
        /// registered as an instance (a value, `nil`), by UID, so that later references get the same value.
        var substituted: [Int: Any?] = [:] { didSet { hasSubstitutes = true } }
        var hasSubstitutes = false
        /// The cycles among the `ArchivedObject`s being decoded.
        var cycles = ArchivedObjectCycles()
        /// The keys generic objects were read with, by their plist string object (an archive names each key
        /// once however many objects hold it), in 64 slots by the object's low bits: a lookup is a compare,
        /// not a hash. Empty until the first generic object: a decode of registered types makes none.
        /// `isClass`: the key is `$class`, which a generic object's fields leave out.
        var fieldKeys: [(object: Int, key: String, isClass: Bool)] = []
        /// Whether objects of mutable Foundation classes decode as `ArchivedMutableObject`s (see
        /// ``KeyedUnarchiver/keepsMutableClasses``); off while a registered type reads its own fields.
        var keepsMutableClasses = false
    }

    let reader: ArchiveObjectReader
    let objects: ArchiveObjectReader.ArrayView
    let allowedTypes: [Any.Type]?
    var deferredFailure: KeyedArchiveError?

    struct Frame {
        var uid: Int
        var fields: ArchiveObjectReader.DictionaryView
        var hint = 0
        var unkeyed = 0
        var classChain: [String] = []
        /// The class's slot in `requestCaches`, or -1.
        var slot = -1
        /// How many keys were looked up in this object so far.
        var requests = 0
        /// The ``KeyLookupRecord`` this object replays or records (-1: none), and its generation then.
        var lookupRecord = -1
        var lookupGeneration = 0
        /// Whether the lookups are answered from the record (else they are recorded into it).
        var replaying = false
        /// The class's lookups kept across archives that this object's lookups are recorded into too, while
        /// the memo's token is `memoToken` (see ``KeyAnswerMemo``).
        var memo: KeyAnswerMemo?
        var memoToken: UInt64 = 0
    }

    /// The storage the state came from and goes back to, when the decode borrowed it (see ``Scratch``).
    let scratch: Scratch?

    init(reader: ArchiveObjectReader, registry: ClassRegistry, allowedTypes: [Any.Type]?,
         requiresSecureCoding: Bool = false, acceptedArchivers: AcceptedArchivers, maxDepth: Int, maxObjects: Int,
         scratch: Scratch? = nil) throws {
        self.reader = reader
        self.registry = registry
        self.allowedTypes = allowedTypes
        self.requiresSecureCoding = requiresSecureCoding
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
        let header = try ArchiveHeader(reader, acceptedArchivers: acceptedArchivers)
        let (top, objects) = (header.top, header.objects)
        self.archiver = header.archiver
        self.objects = objects
        if let scratch, let kept = scratch.take() {
            self.scratch = scratch
            state = kept
            state.pointee.reuse(top: Frame(uid: -1, fields: top), objectCount: objects.count, uidCount: reader.objectCount)
        } else {
            self.scratch = scratch
            state = UnsafeMutablePointer<DecodingState>.allocate(capacity: 1)
            state.initialize(to: DecodingState(
                frame: Frame(uid: -1, fields: top), instances: InstanceTable(count: objects.count),
                inProgress: UIDBitSet(count: objects.count), registeredKeys: UIDBitSet(count: reader.objectCount)))
        }
    }

    deinit {
        for entry in state.pointee.elementCasts { entry.casts?.deallocate() }
        state.pointee.elementCasts = []
        state.pointee.instances.deallocate()
        state.pointee.instances = InstanceTable(count: 0)
        if let scratch, scratch.give(back: state) { return }
        state.pointee.inProgress.deallocate()
        state.pointee.registeredKeys.deallocate()
        state.pointee.keyPath.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Decoding state kept from one decode to the next, so that a caller that decodes many small archives (a
    /// store's records) does not allocate and free the state's tables for each: a decode borrows it, starts
    /// from a state as new (``DecodingState/reuse(top:objectCount:uidCount:)``, every field made afresh but
    /// the storage of a few tables), and gives it back at its end. One decode at a time uses a scratch
    /// (``take()`` refuses a second); callers keep one per thread or a pool.
    ///
    /// A scratch decodes with one registry, given when it is made: the class dictionaries its decodes resolved
    /// are remembered (``ClassMemo``), so that the next archive of the same classes matches their bytes instead
    /// of reading their names, looking them up and checking their types' conformances again.
    package final class Scratch {
        private var state: UnsafeMutablePointer<DecodingState>?
        private var lent = false
        /// The registry every decode with this scratch uses.
        package let registry: ClassRegistry
        /// Classes resolved by earlier decodes with this scratch (without allowed types). Used by the one decode
        /// the scratch is lent to (``take()``), so no access can overlap another: not checked at run time.
        @exclusivity(unchecked) var classMemo = ClassMemo()

        package init(registry: ClassRegistry) { self.registry = registry }

        /// The kept state, lent to one decode; `nil` when there is none yet or it is lent.
        func take() -> UnsafeMutablePointer<DecodingState>? {
            guard !lent, let state else { return nil }
            lent = true
            return state
        }

        /// Keeps `state` for the next decode; `false` when the scratch already keeps another (the caller frees it).
        func give(back state: UnsafeMutablePointer<DecodingState>) -> Bool {
            if let kept = self.state {
                guard kept == state else { return false }
                lent = false
                return true
            }
            self.state = state
            lent = false
            return true
        }

        deinit {
            guard let state else { return }
            state.pointee.inProgress.deallocate()
            state.pointee.registeredKeys.deallocate()
            state.pointee.keyPath.deallocate()
            state.deinitialize(count: 1)
            state.deallocate()
        }
    }

    // MARK: Keys of the current object

    /// Whether the current object has a value for `key`. Mirrors `containsValue(forKey:)`.
    public func containsValue(forKey key: String) throws -> Bool {
        try checkValid()
        return try position(ofUserKey: key) != nil
    }

    /// The current object's keys, unescaped, `$class` and unkeyed `$n` keys excluded.
    public func allKeys() throws -> [String] {
        try checkValid()
        var keys: [String] = []
        for i in 0..<state.pointee.frame.fields.count {
            guard let k = try reader.string(reader.keyReference(state.pointee.frame.fields, i)) else { continue }
            if k.hasPrefix("$$") { keys.append(String(k.dropFirst())) } else if !k.hasPrefix("$") { keys.append(k) }
        }
        return keys
    }

    /// The `$classes` chain of the object being decoded (empty at the top level).
    public var currentClassChain: [String] { state.pointee.frame.classChain }

    /// Whether objects of mutable Foundation classes (`NSMutableArray`, ...) decode as
    /// `ArchivedMutableObject`s that keep their class and identity, where the unarchiver decides the value
    /// (the top, Foundation collections, objects of unknown classes); a registered type reading its own
    /// fields gets plain values. Off by default; conversion and the inspector turn it on.
    package var keepsMutableClasses: Bool {
        get { state.pointee.keepsMutableClasses }
        set { state.pointee.keepsMutableClasses = newValue }
    }

    // MARK: Scalars

    /// `false` when missing. Mirrors `decodeBool(forKey:)`.
    public func decode(_ type: Bool.Type, forKey key: String) throws -> Bool {
        guard let v = try scalar(forKey: key) else { return false }
        switch v {
        case .bool(let b): return b
        case .integer(let i): return i != PlistInteger(0)
        default: throw mismatch(key, "Bool", v)
        }
    }

    /// `0` when missing. Mirrors `decodeInteger(forKey:)`.
    public func decode(_ type: Int.Type, forKey key: String) throws -> Int {
        Int(try integer(forKey: key, min: Int64(Int.min), max: Int64(Int.max), "Int"))
    }

    /// `0` when missing; a value outside `Int32` throws ``KeyedArchiveError/Code/outOfRange``.
    /// Mirrors `decodeInt32(forKey:)` (which Apple reports as a range error too).
    public func decode(_ type: Int32.Type, forKey key: String) throws -> Int32 {
        Int32(try integer(forKey: key, min: Int64(Int32.min), max: Int64(Int32.max), "Int32"))
    }

    /// `0` when missing. Mirrors `decodeInt64(forKey:)`.
    public func decode(_ type: Int64.Type, forKey key: String) throws -> Int64 {
        try integer(forKey: key, min: Int64.min, max: Int64.max, "Int64")
    }

    /// `0` when missing. Mirrors `decodeDouble(forKey:)`.
    public func decode(_ type: Double.Type, forKey key: String) throws -> Double {
        try checkValid()
        guard let i = try position(ofUserKey: key) else { return 0 }
        if let d = reader.real(state.pointee.frame.fields, valueAt: i) { return d }
        let ref = try reader.valueReference(state.pointee.frame.fields, i)
        guard let v = try scalar(at: ref) else { return 0 }
        switch v {
        case .real(let d): return d
        case .integer(let i):
            if let s = i.int64Value { return Double(s) }
            if let u = i.uint64Value { return Double(u) }
            throw mismatch(key, "Double", v)
        default: throw mismatch(key, "Double", v)
        }
    }

    /// `0` when missing. Mirrors `decodeFloat(forKey:)`.
    public func decode(_ type: Float.Type, forKey key: String) throws -> Float {
        Float(try decode(Double.self, forKey: key))
    }

    /// The inline bytes for `key`, or `nil`. Mirrors `decodeBytes(forKey:returnedLength:)`.
    public func decodeBytes(forKey key: String) throws -> [UInt8]? {
        guard let v = try scalar(forKey: key) else { return nil }
        if case .other(.data(let d)) = v { return d }
        throw mismatch(key, "bytes", v)
    }

    /// The inline bytes for `key` as `Data`, or `nil` (chosen where `Data` is expected:
    /// `let data: Data? = try coder.decodeBytes(forKey: "k")`). Mirrors `decodeBytes(forKey:returnedLength:)`.
    @_disfavoredOverload
    public func decodeBytes(forKey key: String) throws -> Data? {
        try decodeBytes(forKey: key).map { (bytes: [UInt8]) in Data(bytes) }
    }

    // MARK: Objects

    /// The object for `key` as `T`; throws ``KeyedArchiveError/Code/valueNotFound`` when the key is missing
    /// or holds `$null`. Mirrors `decodeObject(of:forKey:)`.
    ///
    /// Inlinable so that a caller's `init(coder:)` asking for a `String`, `Date` or `Data` calls a decode
    /// made for that type: the generic path asks the runtime for `T?`'s metadata and casts each value
    /// (about 1,000 instructions a field), where the answer is the same.
    @inlinable
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        if T.self == String.self, let value = try decodeString(forKey: key) as? T { return value }
        if T.self == Date.self, let value = try decodeDate(forKey: key) as? T { return value }
        if T.self == Data.self, let value = try decodeData(forKey: key) as? T { return value }
        return try decodeAny(T.self, forKey: key)
    }

    /// The object for `key` as `T`, or `nil` when the key is missing or holds `$null`.
    @inlinable
    public func decodeIfPresent<T>(_ type: T.Type, forKey key: String) throws -> T? {
        if T.self == String.self {
            guard let value = try decodeStringIfPresent(forKey: key) else { return nil }
            return value as? T
        }
        if T.self == Date.self {
            guard let value = try decodeDateIfPresent(forKey: key) else { return nil }
            return value as? T
        }
        if T.self == Data.self {
            guard let value = try decodeDataIfPresent(forKey: key) else { return nil }
            return value as? T
        }
        return try decodeAnyIfPresent(T.self, forKey: key)
    }

    /// ``decode(_:forKey:)`` for any `T`.
    @usableFromInline
    func decodeAny<T>(_ type: T.Type, forKey key: String) throws -> T {
        guard let v = try decodeAnyIfPresent(T.self, forKey: key) else { throw missingValue(key) }
        return v
    }

    /// ``decodeIfPresent(_:forKey:)`` for any `T`.
    @usableFromInline
    func decodeAnyIfPresent<T>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let ref = try valueReference(forKey: key) else { return nil }
        if T.self == String.self, let s = directString(ref) { return s as? T }
        if T.self == Date.self, let d = directDate(ref) { return d as? T }
        if requiresSecureCoding { try request(T.self, at: ref, key: key) }
        return try typed(reader.value(ref), T.self, key: key)
    }

    /// ``decodeIfPresent(_:forKey:)`` for a `String`: the same checks and answers, made for the type.
    @usableFromInline
    func decodeStringIfPresent(forKey key: String) throws -> String? {
        guard let ref = try valueReference(forKey: key) else { return nil }
        if let s = directString(ref) { return s }
        if requiresSecureCoding { try request(String.self, at: ref, key: key) }
        return try typed(reader.value(ref), String.self, key: key)
    }

    /// ``decode(_:forKey:)`` for a `String`.
    @usableFromInline
    func decodeString(forKey key: String) throws -> String {
        guard let value = try decodeStringIfPresent(forKey: key) else { throw missingValue(key) }
        return value
    }

    /// ``decodeIfPresent(_:forKey:)`` for a `Date`, as ``decodeStringIfPresent(forKey:)``.
    @usableFromInline
    func decodeDateIfPresent(forKey key: String) throws -> Date? {
        guard let ref = try valueReference(forKey: key) else { return nil }
        if let d = directDate(ref) { return d }
        if requiresSecureCoding { try request(Date.self, at: ref, key: key) }
        return try typed(reader.value(ref), Date.self, key: key)
    }

    /// ``decode(_:forKey:)`` for a `Date`.
    @usableFromInline
    func decodeDate(forKey key: String) throws -> Date {
        guard let value = try decodeDateIfPresent(forKey: key) else { throw missingValue(key) }
        return value
    }

    /// ``decodeIfPresent(_:forKey:)`` for `Data`, as ``decodeStringIfPresent(forKey:)``.
    @usableFromInline
    func decodeDataIfPresent(forKey key: String) throws -> Data? {
        guard let ref = try valueReference(forKey: key) else { return nil }
        if requiresSecureCoding { try request(Data.self, at: ref, key: key) }
        return try typed(reader.value(ref), Data.self, key: key)
    }

    /// ``decode(_:forKey:)`` for `Data`.
    @usableFromInline
    func decodeData(forKey key: String) throws -> Data {
        guard let value = try decodeDataIfPresent(forKey: key) else { throw missingValue(key) }
        return value
    }

    /// The error of ``decode(_:forKey:)`` for a key with no value.
    func missingValue(_ key: String) -> KeyedArchiveError {
        error(.valueNotFound, "no value for key \"\(key)\"", key: key)
    }

    /// The object for `key` as `T`, where only `allowedTypes` (and their subclasses) may be instantiated for
    /// it: the class found is checked against the list before its `init(coder:)` runs, and the elements of
    /// an array, set or dictionary found are checked against the same list. `T` may be `Any`, an existential
    /// or a collection; list concrete types, as Apple lists classes. Throws
    /// ``KeyedArchiveError/Code/valueNotFound`` when the key is missing or holds `$null`.
    ///
    /// ```swift
    /// let shape = try coder.decode((any Shape).self, forKey: "shape", allowedTypes: [Circle.self, Rectangle.self])
    /// ```
    ///
    /// Mirrors `decodeObject(of: [AnyClass], forKey:)` (`decodeObjectOfClasses:forKey:`).
    public func decode<T>(_ type: T.Type, forKey key: String, allowedTypes: [Any.Type]) throws -> T {
        guard let v = try decodeIfPresent(T.self, forKey: key, allowedTypes: allowedTypes) else {
            throw error(.valueNotFound, "no value for key \"\(key)\"", key: key)
        }
        return v
    }

    /// The object for `key` as `T`, or `nil` when the key is missing or holds `$null`; only `allowedTypes`
    /// may be instantiated for it, as in ``decode(_:forKey:allowedTypes:)``.
    ///
    /// ```swift
    /// switch try coder.decodeIfPresent(Any.self, forKey: "shape", allowedTypes: [Circle.self, Rectangle.self]) { ... }
    /// ```
    ///
    /// Mirrors `decodeObject(of: [AnyClass], forKey:)`, which returns `Any?`.
    public func decodeIfPresent<T>(_ type: T.Type, forKey key: String, allowedTypes: [Any.Type]) throws -> T? {
        guard let ref = try valueReference(forKey: key) else { return nil }
        return try withRequestedList(allowedTypes) {
            guard let value = try typed(reader.value(ref), T.self, key: key) else { return nil }
            try checkListed(value, key: key)
            return value
        }
    }

    /// An array whose elements are each checked to be `Element`. Mirrors `decodeArrayOfObjects(ofClass:forKey:)`.
    public func decode<Element>(_ type: [Element].Type, forKey key: String) throws -> [Element] {
        guard let ref = try valueReference(forKey: key) else {
            throw error(.valueNotFound, "no value for key \"\(key)\"", key: key)
        }
        if requiresSecureCoding { try request([Element].self, at: ref, key: key) }
        if state.pointee.hooked {
            // The array itself is an object the didDecode hook must see: the general path.
            guard let array = try typed(reader.value(ref), [Element].self, key: key) else {
                throw error(.valueNotFound, "no value for key \"\(key)\"", key: key)
            }
            return array
        }
        return try typedArray(reader.value(ref), Element.self, key: key)
    }

    /// A dictionary whose keys and values are each checked. Mirrors `decodeDictionary(withKeysOfClass:objectsOfClass:forKey:)`.
    public func decode<Key: Hashable, Value>(_ type: [Key: Value].Type, forKey key: String) throws -> [Key: Value] {
        guard let ref = try valueReference(forKey: key) else {
            throw error(.valueNotFound, "no value for key \"\(key)\"", key: key)
        }
        if Key.self == String.self, Value.self == String.self, let d = directStringDictionary(ref) {
            // The types were just found identical: a reinterpretation, not an element-by-element `as?` copy.
            return unsafeBitCast(d, to: [Key: Value].self)
        }
        if requiresSecureCoding { try request([Key: Value].self, at: ref, key: key) }
        return try typedDictionary(reader.value(ref), Key.self, Value.self, key: key)
    }

    /// The object for a key of `$top` (`root` or another top-level key), untyped; `nil` when the key is
    /// missing or holds `$null`. Secure coding accepts any registered class here, as for `Any` at the top
    /// level; the decodes inside must name their types. Valid at the top level only (not inside
    /// `init(coder:)`): ``KeyedArchiveError/Code/invalidValue`` otherwise.
    /// Mirrors `NSKeyedUnarchiver.decodeTopLevelObject(forKey:)`.
    public func decodeTopLevelObject(forKey key: String) throws -> Any? {
        try decodeTopLevelObject(of: Any.self, forKey: key)
    }

    /// The object for a key of `$top` as `T`, or `nil` when the key is missing or holds `$null`; valid at
    /// the top level only.
    ///
    /// ```swift
    /// let contents = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: true) {
    ///     try $0.decodeTopLevelObject(of: Contents.self, forKey: "root")
    /// }
    /// ```
    ///
    /// Mirrors `NSKeyedUnarchiver.decodeTopLevelObject(of:forKey:)`.
    public func decodeTopLevelObject<T>(of type: T.Type, forKey key: String) throws -> T? {
        try checkTopLevel(key)
        return try decodeIfPresent(T.self, forKey: key)
    }

    /// The object for a key of `$top`, which must be one of `types` (checked before it is instantiated,
    /// and for the elements of a collection); valid at the top level only.
    /// Mirrors `NSKeyedUnarchiver.decodeTopLevelObject(of: [AnyClass], forKey:)`.
    public func decodeTopLevelObject(of types: [Any.Type], forKey key: String) throws -> Any? {
        try checkTopLevel(key)
        return try decodeIfPresent(Any.self, forKey: key, allowedTypes: types)
    }

    func checkTopLevel(_ key: String) throws {
        try checkValid()
        guard state.pointee.frame.uid < 0 else {
            throw error(.invalidValue, "decodeTopLevelObject reads $top; inside init(coder:) use decode(_:forKey:)", key: key)
        }
    }

    /// The next unkeyed value (`$0`, `$1`, ...) of the current object. Mirrors `NSCoder.decodeObject()`.
    public func decodeObject<T>(of type: T.Type) throws -> T? {
        try checkValid()
        let key = "$\(state.pointee.frame.unkeyed)"
        state.pointee.frame.unkeyed += 1
        guard let i = try position(ofRawKey: key) else { return nil }
        let ref = try reader.valueReference(state.pointee.frame.fields, i)
        if requiresSecureCoding { try request(T.self, at: ref, key: key) }
        return try typed(try reader.value(ref), T.self, key: key)
    }

    /// Decodes a reference that may point back to an object whose `init(coder:)` is still running (a
    /// cycle). `assign` runs now if the object is ready, or as soon as its `init(coder:)` returns.
    ///
    /// ```swift
    /// required init(coder: KeyedUnarchiver) throws {
    ///     name = try coder.decode(String.self, forKey: "name")
    ///     try coder.decodeDeferred(Node.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    /// }
    /// ```
    public func decodeDeferred<T: AnyObject>(_ type: T.Type, forKey key: String,
                                             assign: @escaping (T?) -> Void) throws {
        guard let ref = try valueReference(forKey: key) else { return assign(nil) }
        if requiresSecureCoding { try request(T.self, at: ref, key: key) }
        let v = try reader.value(ref)
        if case .uid(let uid) = v, state.pointee.inProgress.contains(uid) {
            let path = (state.pointee.keyPath.keys + [key]).joined(separator: ".")
            state.pointee.pending[uid, default: []].append { [weak self] object in
                if let t = object as? T {
                    assign(t)
                } else if self?.deferredFailure == nil {
                    self?.deferredFailure = KeyedArchiveError(
                        .typeMismatch, "expected \(T.self), found \(Swift.type(of: object))", objectIndex: uid, keyPath: path)
                }
            }
            return
        }
        assign(try typed(v, T.self, key: key))
    }

    // MARK: Internals

    @inline(__always)
    func checkValid() throws {
        guard state.pointee.valid else { throw Self.usedOutsideItsScope() }
    }

    @inline(never)
    static func usedOutsideItsScope() -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "the unarchiver is used outside the scope that created it")
    }

    func error(_ code: KeyedArchiveError.Code, _ reason: String, key: String? = nil, uid: Int? = nil,
               chain: [String]? = nil) -> KeyedArchiveError {
        var path = state.pointee.keyPath.keys
        if let key { path.append(KeyPathStack.name(key, element: element(under: key))) }
        if path.count > 12 { path = Array(path.prefix(4)) + ["…"] + Array(path.suffix(6)) }
        return KeyedArchiveError(code, reason, objectIndex: uid ?? (state.pointee.frame.uid >= 0 ? state.pointee.frame.uid : nil),
                                 keyPath: path.isEmpty ? nil : path.joined(separator: "."),
                                 classChain: chain ?? (state.pointee.frame.classChain.isEmpty ? nil : state.pointee.frame.classChain))
    }

    /// The element index that a value decoded under `key` in the current frame is named with, or -1.
    @inline(__always)
    func element(under key: String) -> Int {
        let index = state.pointee.elements.index
        return index >= 0 && state.pointee.elements.depth == state.pointee.depth && key == state.pointee.elements.key
            ? index : -1
    }

    func mismatch(_ key: String, _ expected: String, _ v: ArchiveObjectReader.Value) -> KeyedArchiveError {
        error(.typeMismatch, "expected \(expected), found \(describe(v))", key: key)
    }

    package func describe(_ v: BinaryPlistObjects.Value) -> String {
        switch v {
        case .uid(let u): "a reference to object \(u)"
        case .integer(let i): "the integer \(i)"
        case .real(let d): "the real \(d)"
        case .bool(let b): "the bool \(b)"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .other(let p): "a \(p.kindName)"
        }
    }

    /// Position of a user key (escaped as Apple does) in the current object. The replayed answer is taken
    /// inline, at each field read; the general path is a call.
    @inline(__always)
    func position(ofUserKey key: String) throws -> Int? {
        if let answer = replayedPosition(ofUserKey: key) { return answer }
        return try searchedPosition(ofUserKey: key)
    }

    /// ``position(ofUserKey:)`` when no recorded answer is replayed.
    @inline(never)
    func searchedPosition(ofUserKey key: String) throws -> Int? {
        if key.utf8.first == UInt8(ascii: "$") { return try position(ofRawKey: "$" + key) }
        return try position(ofRawKey: key)
    }

    /// Position of a raw key, scanning from just after the last key found (keys are usually read in order).
    /// Key strings are uniqued in Apple's archives, so the plist object of a key seen before is looked for
    /// first by number; the string comparison decides otherwise, skipping keys whose objects are known to
    /// hold other names (so a missing key costs one comparison of numbers per key, not of strings).
    ///
    /// An object of a custom class whose key objects are those of a recent object of its class gets that
    /// object's answers back, request by request, while it asks for the same keys (``KeyLookupRecord``).
    func position(ofRawKey key: String) throws -> Int? {
        guard state.pointee.frame.fields.count > 0 else { return nil }
        let request = state.pointee.frame.requests
        state.pointee.frame.requests = request + 1
        guard state.pointee.frame.lookupRecord >= 0 else { return try searchPosition(ofRawKey: key, request: request) }
        if state.pointee.frame.replaying, let answer = replayedPosition(ofRawKey: key, request: request) { return answer }
        let position = try searchPosition(ofRawKey: key, request: request)
        if state.pointee.frame.lookupRecord >= 0 { recordPosition(position, ofRawKey: key, request: request) }
        return position
    }

    /// ``position(ofRawKey:)`` by the general path, `request` being the lookup's number in the current object.
    private func searchPosition(ofRawKey key: String, request: Int) throws -> Int? {
        let fields = state.pointee.frame.fields
        let n = fields.count
        let hint = state.pointee.frame.hint < n ? state.pointee.frame.hint : 0
        let slot = state.pointee.frame.slot
        var known = -1
        if slot >= 0, request < state.pointee.requestCaches[slot].count, state.pointee.requestCaches[slot][request].key == key {
            known = state.pointee.requestCaches[slot][request].object
        } else {
            for entry in state.pointee.keyObjects where entry.key == key {
                known = entry.object
                break
            }
            if slot >= 0, known >= 0 {
                if request < state.pointee.requestCaches[slot].count {
                    state.pointee.requestCaches[slot][request] = (key, known)
                } else if request == state.pointee.requestCaches[slot].count {
                    state.pointee.requestCaches[slot].append((key, known))
                }
            }
        }
        if known >= 0 {
            var i = hint
            for _ in 0..<n {
                if reader.uncheckedKeyReference(fields, i) == known {
                    state.pointee.frame.hint = i + 1
                    return i
                }
                i += 1
                if i == n { i = 0 }
            }
            // Every key object of this dictionary a registered one: each holds another name (the loop below
            // would skip them all), so the key is missing.
            var allRegistered = true
            for j in 0..<n where !state.pointee.registeredKeys.contains(reader.uncheckedKeyReference(fields, j)) {
                allRegistered = false
                break
            }
            if allRegistered { return nil }
        }
        var key = key
        let found: (position: Int, object: Int)? = try key.withUTF8 { utf8 in
            var i = hint
            for _ in 0..<n {
                let ref = try reader.keyReference(fields, i)
                // A first-registered key object other than `known` holds another name.
                if !state.pointee.registeredKeys.contains(ref), try reader.isString(ref, equalTo: utf8) { return (i, ref) }
                i += 1
                if i == n { i = 0 }
            }
            return nil
        }
        guard let found else { return nil }
        state.pointee.frame.hint = found.position + 1
        registerKeyObject(found.object, holding: key)
        return found.position
    }

    /// Records `object` as the plist string object of the raw key `key` when it is the first found for it:
    /// lookups then find the key by number, and skip `object` when they look for another name.
    func registerKeyObject(_ object: Int, holding key: String) {
        if state.pointee.keyObjects.count < 64, !state.pointee.keyObjects.contains(where: { $0.key == key }) {
            state.pointee.keyObjects.append((key, object))
            state.pointee.registeredKeys.insert(object)
        }
    }

    func fieldValue(forKey key: String) throws -> ArchiveObjectReader.Value? {
        try checkValid()
        guard let i = try position(ofUserKey: key) else { return nil }
        return try reader.value(reader.valueReference(state.pointee.frame.fields, i))
    }

    /// A scalar field; a reference to a bare number is followed.
    func scalar(forKey key: String) throws -> ArchiveObjectReader.Value? {
        guard let ref = try valueReference(forKey: key) else { return nil }
        return try scalar(at: ref)
    }

    /// The scalar field value at plist object `ref`; a reference to a bare number is followed.
    func scalar(at ref: Int) throws -> ArchiveObjectReader.Value? {
        let v = try reader.value(ref)
        if case .uid(let uid) = v {
            guard uid > 0 else { return nil }
            return try reader.value(objectReference(uid))
        }
        return v
    }

    func integer(forKey key: String, min: Int64, max: Int64, _ name: String) throws -> Int64 {
        guard let v = try scalar(forKey: key) else { return 0 }
        let value: Int64
        switch v {
        case .integer(let i):
            guard let s = i.int64Value else {
                throw error(.outOfRange, "\(i) does not fit \(name)", key: key)
            }
            value = s
        case .bool(let b): value = b ? 1 : 0
        case .real(let d):
            guard let s = Int64(exactly: d) else { throw mismatch(key, name, v) }
            value = s
        default: throw mismatch(key, name, v)
        }
        guard value >= min && value <= max else {
            throw error(.outOfRange, "\(value) does not fit \(name)", key: key)
        }
        return value
    }

    /// The plist object index of `$objects[uid]` (inline at each object read; the error is a call).
    @inline(__always)
    func objectReference(_ uid: Int, key: String? = nil) throws -> Int {
        guard uid >= 0 && uid < objects.count else { throw referenceError(uid, key: key) }
        return try reader.elementReference(objects, uid)
    }

    @inline(never)
    private func referenceError(_ uid: Int, key: String?) -> KeyedArchiveError {
        error(.invalidReference, "UID \(uid) is not below the \(objects.count) objects", key: key, uid: uid)
    }
}

/// Decoded class instances by UID (one UID, one instance). The table is allocated when the first instance is
/// stored, so decoding value types only (the records of a store, say) never touches a table the size of
/// `$objects`.
///
/// Raw memory owned by the unarchiver's decoding state and freed with it (``deallocate()``), so that a store
/// is one assignment, not an array's uniqueness check and copy-on-write path. UIDs outside `0..<count` hold
/// nothing (storing there does nothing).
struct InstanceTable {
    private var slots: UnsafeMutablePointer<AnyObject?>?
    private let count: Int

    init(count: Int) { self.count = max(count, 0) }

    /// Releases the instances and frees the table; called once, when the decoding state goes.
    func deallocate() {
        guard let slots else { return }
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The instance decoded for `uid`, or `nil`.
    @inline(__always)
    subscript(uid: Int) -> AnyObject? {
        get {
            guard let slots, uid >= 0, uid < count else { return nil }
            return slots[uid]
        }
        set {
            guard uid >= 0, uid < count else { return }
            if let slots {
                slots[uid] = newValue
                return
            }
            guard newValue != nil else { return }
            let table = UnsafeMutablePointer<AnyObject?>.allocate(capacity: count)
            table.initialize(repeating: nil, count: count)
            table[uid] = newValue
            slots = table
        }
    }
}
