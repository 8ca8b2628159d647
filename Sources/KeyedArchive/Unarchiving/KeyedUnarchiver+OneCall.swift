import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The one-call decoding APIs (Apple's class methods `unarchivedObject(ofClass:from:)` and kin), and `Data`
/// overloads of them all. Secure coding is on by default, as in Apple's.
extension KeyedUnarchiver {
    /// Runs `body` with an unarchiver over `bytes` (binary or XML) positioned on the archive's `$top`
    /// dictionary: read `root` or any other top-level key. The unarchiver is valid only inside `body`.
    /// An archive whose `$archiver` is not among `acceptedArchivers` (by default, anything but
    /// "NSKeyedArchiver") fails with ``KeyedArchiveError/Code/foreignArchiver``; ``archiver`` tells the name.
    ///
    /// `allowedTypes`, when given, are the only custom types instantiated anywhere in the graph;
    /// `requiresSecureCoding` makes every decode name its types (see ``requiresSecureCoding``). Apple's
    /// initializer turns secure coding on by default; this one keeps it off unless asked, as before.
    ///
    /// Mirrors `NSKeyedUnarchiver(forReadingFrom:)` ... `finishDecoding()`.
    public static func withUnarchiver<R>(
        for bytes: [UInt8], registry: ClassRegistry = .standard, allowedTypes: [Any.Type]? = nil,
        requiresSecureCoding: Bool = false, acceptedArchivers: AcceptedArchivers = .nsKeyedArchiver,
        maxDepth: Int = 512, maxObjects: Int = 1 << 24,
        _ body: (KeyedUnarchiver) throws -> R
    ) throws -> R {
        try withUnarchiver(for: bytes, registry: registry, allowedTypes: allowedTypes, requiresSecureCoding: requiresSecureCoding,
                           acceptedArchivers: acceptedArchivers, maxDepth: maxDepth, maxObjects: maxObjects, scratch: nil, body)
    }

    /// ``unarchivedObject(ofType:from:registry:requiresSecureCoding:acceptedArchivers:)`` with the decoding
    /// state borrowed from `scratch` (see ``Scratch``): the same result, without allocating the state's tables
    /// again for each of many small archives.
    /// The scratch's ``Scratch/registry`` resolves the classes.
    package static func unarchivedObject<T>(ofType type: T.Type, from bytes: [UInt8], requiresSecureCoding: Bool,
                                            scratch: Scratch) throws -> T? {
        try withUnarchiver(for: bytes, registry: scratch.registry, allowedTypes: nil, requiresSecureCoding: requiresSecureCoding,
                           acceptedArchivers: .nsKeyedArchiver, maxDepth: 512, maxObjects: 1 << 24, scratch: scratch) { u in
            try u.requireRoot()
            return try u.decodeIfPresent(T.self, forKey: "root")
        }
    }

    /// The root object of a store's record archive as `T`, with the decoding state borrowed from `scratch`
    /// and secure coding off: what ``unarchivedObject(ofType:from:requiresSecureCoding:scratch:)`` returns,
    /// and the same errors, but a `$null` root is an error (``KeyedArchiveError/Code/valueNotFound``) and a
    /// root whose class is `T` itself is made by `T.init(coder:)` directly (no `Any` box, no cast, no
    /// `Optional<T>` metadata looked up at run time: a repository's `get` and `forEach` decode this way).
    package static func unarchivedRecord<T: KeyedArchivable>(ofType type: T.Type, from bytes: [UInt8],
                                                           scratch: Scratch) throws -> T {
        try withUnarchiver(for: bytes, registry: scratch.registry, allowedTypes: nil, requiresSecureCoding: false,
                           acceptedArchivers: .nsKeyedArchiver, maxDepth: 512, maxObjects: 1 << 24, scratch: scratch) { u in
            try u.decodeRootRecord(T.self)  // a missing `root` is requireRoot()'s error there
        }
    }

    static func withUnarchiver<R>(
        for bytes: [UInt8], registry: ClassRegistry, allowedTypes: [Any.Type]?, requiresSecureCoding: Bool,
        acceptedArchivers: AcceptedArchivers, maxDepth: Int, maxObjects: Int, scratch: Scratch?,
        _ body: (KeyedUnarchiver) throws -> R
    ) throws -> R {
        let document = try binaryDocument(bytes)
        // The result goes through a slot on the stack, so that no generic `Result<R, any Error>` (whose
        // metadata a caller generic over `R` looks up at run time, twice a decode) carries it out.
        return try withUnsafeTemporaryAllocation(of: R.self, capacity: 1) { slot in
            try document.withObjects { objects -> Void in
                let unarchiver = try KeyedUnarchiver(
                    reader: ArchiveObjectReader(objects), registry: registry,
                    allowedTypes: allowedTypes, requiresSecureCoding: requiresSecureCoding,
                    acceptedArchivers: acceptedArchivers, maxDepth: maxDepth,
                    maxObjects: maxObjects, scratch: scratch)
                defer { unarchiver.state.pointee.valid = false }
                let result = try body(unarchiver)
                if let failure = unarchiver.deferredFailure { throw failure }
                slot.initializeElement(at: 0, to: result)
            }
            return slot.moveElement(from: 0)
        }
    }

    /// Decodes the root object as `T` (`nil` when the root is `$null`; an error when there is no `root`
    /// key). With secure coding (the default) every nested decode must name its types too (see
    /// ``requiresSecureCoding``); `T == Any` accepts any registered class at the root. Only archives whose
    /// `$archiver` is among `acceptedArchivers` are read (by default "NSKeyedArchiver", as Apple).
    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
    public static func unarchivedObject<T>(ofType type: T.Type, from bytes: [UInt8],
                                           registry: ClassRegistry = .standard,
                                           requiresSecureCoding: Bool = true,
                                           acceptedArchivers: AcceptedArchivers = .nsKeyedArchiver) throws -> T? {
        try withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: requiresSecureCoding,
                           acceptedArchivers: acceptedArchivers) { u in
            try u.requireRoot()
            return try u.decodeIfPresent(T.self, forKey: "root")
        }
    }

    /// Secure decoding: decodes the root object, which must be one of `types`; only those types and the
    /// standard Foundation value classes may be instantiated anywhere in the graph. Only archives whose
    /// `$archiver` is among `acceptedArchivers` are read (by default "NSKeyedArchiver", as Apple). For a
    /// result to switch over without casts, see ``unarchivedObject(ofTypes:_:_:from:registry:requiresSecureCoding:)-(_,_,_,[UInt8],_,_)``.
    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`.
    public static func unarchivedObject(ofTypes types: [Any.Type], from bytes: [UInt8],
                                        registry: ClassRegistry = .standard,
                                        requiresSecureCoding: Bool = true,
                                        acceptedArchivers: AcceptedArchivers = .nsKeyedArchiver) throws -> Any? {
        try withUnarchiver(for: bytes, registry: registry, allowedTypes: types,
                           requiresSecureCoding: requiresSecureCoding, acceptedArchivers: acceptedArchivers) { u in
            try u.requireRoot()
            guard let value = try u.decodeIfPresent(Any.self, forKey: "root", allowedTypes: types) else { return nil }
            let valueType = Swift.type(of: value)
            guard types.contains(where: { isType(valueType, kindOf: $0) }) else {
                throw KeyedArchiveError(.classNotAllowed,
                                        "the root is a \(valueType), not one of \(types.map { "\($0)" }.joined(separator: ", "))",
                                        keyPath: "root")
            }
            return value
        }
    }

    /// A missing `root` key is an error for the one-call APIs (a `$null` root is `nil`).
    func requireRoot() throws {
        guard try containsValue(forKey: "root") else { throw missingRoot() }
    }

    /// The error of a `$top` with no `root` key.
    func missingRoot() -> KeyedArchiveError {
        error(.valueNotFound, "$top has no \"root\" key", key: "root")
    }

    static func binaryDocument(_ bytes: [UInt8]) throws -> BinaryPlistDocument {
        do {
            switch PropertyList.detectFormat(bytes) {
            case .binary:
                return try BinaryPlistDocument(bytes)
            case .xml:
                // Read in one pass into the objects of a binary plist: one object accessor for both formats.
                return try XMLPlistReader().binaryDocument(bytes)
            case nil:
                // Not a plist: the same error as PropertyList.decode gives.
                _ = try PropertyList.decode(bytes)
                throw PlistError(.unknownFormat, "neither a binary plist ('bplist0') nor an XML plist", byteOffset: 0, format: "plist")
            }
        } catch let error as PlistError {
            throw KeyedArchiveError(.invalidPlist, error.description, underlying: error)
        }
    }

    /// Decodes the root object as an array whose elements are each `T` (or a subclass); `nil` when the root
    /// is `$null`. With secure coding (the default) each element's class is checked before it is
    /// instantiated, and nested decodes must name their types.
    ///
    /// ```swift
    /// let shapes = try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: bytes, registry: registry)
    /// ```
    ///
    /// Mirrors `NSKeyedUnarchiver.unarchivedArrayOfObjects(ofClass:from:)`.
    public static func unarchivedArrayOfObjects<T>(ofType type: T.Type, from bytes: [UInt8],
                                                   registry: ClassRegistry = .standard,
                                                   requiresSecureCoding: Bool = true) throws -> [T]? {
        try withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: requiresSecureCoding) { u in
            try u.requireRoot()
            guard try u.objectUID(forKey: "root") != nil else { return nil }
            return try u.decode([T].self, forKey: "root")
        }
    }

    /// Decodes the root object as a dictionary whose keys are each `Key` and values each `Value`; `nil` when
    /// the root is `$null`. With secure coding (the default) each key's and value's class is checked against
    /// the two types before it is instantiated.
    ///
    /// ```swift
    /// let styles = try KeyedUnarchiver.unarchivedDictionary(keysOfType: String.self, objectsOfType: Style.self,
    ///                                                       from: bytes, registry: registry)
    /// ```
    ///
    /// Mirrors `NSKeyedUnarchiver.unarchivedDictionary(keysOfClass:objectsOfClass:from:)`.
    public static func unarchivedDictionary<Key: Hashable, Value>(
        keysOfType keyType: Key.Type, objectsOfType valueType: Value.Type, from bytes: [UInt8],
        registry: ClassRegistry = .standard, requiresSecureCoding: Bool = true
    ) throws -> [Key: Value]? {
        try withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: requiresSecureCoding) { u in
            try u.requireRoot()
            guard try u.objectUID(forKey: "root") != nil else { return nil }
            return try u.decode([Key: Value].self, forKey: "root")
        }
    }

    /// Secure decoding of a root that is one of several types (two or more; for one, use
    /// ``unarchivedObject(ofType:from:registry:requiresSecureCoding:acceptedArchivers:)``), typed: one optional
    /// per type, in order, of which the first whose type the root is holds it (so list a subclass before its
    /// superclass) and the others are `nil`; all are `nil` when the root is `$null`. Only the named types
    /// (and the standard Foundation value classes) are instantiated anywhere in the graph, as with the
    /// `[Any.Type]` form.
    ///
    /// ```swift
    /// switch try KeyedUnarchiver.unarchivedObject(ofTypes: Circle.self, Rectangle.self, from: bytes, registry: registry) {
    /// case (let circle?, _): print("a circle of radius", circle.radius)
    /// case (_, let rectangle?): print("a rectangle", rectangle.width, "wide")
    /// case (nil, nil): print("no root object")
    /// }
    /// ```
    ///
    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`, without its `Any?` result.
    public static func unarchivedObject<First, Second, each Rest>(
        ofTypes first: First.Type, _ second: Second.Type, _ rest: repeat (each Rest).Type, from bytes: [UInt8],
        registry: ClassRegistry = .standard, requiresSecureCoding: Bool = true
    ) throws -> (First?, Second?, repeat (each Rest)?) {
        var list: [Any.Type] = [First.self, Second.self]
        for type in repeat each rest { list.append(type) }
        let value = try unarchivedObject(ofTypes: list, from: bytes, registry: registry,
                                         requiresSecureCoding: requiresSecureCoding)
        // Evaluated left to right: the first type that fits takes the value.
        var matched = false
        func take<U>(_: U.Type) -> U? {
            guard !matched, let u = value as? U else { return nil }
            matched = true
            return u
        }
        return (take(First.self), take(Second.self), repeat take((each Rest).self))
    }

    // MARK: Data overloads

    /// ``withUnarchiver(for:registry:allowedTypes:requiresSecureCoding:acceptedArchivers:maxDepth:maxObjects:_:)``
    /// over `Data`. Mirrors `NSKeyedUnarchiver(forReadingFrom:)`, which takes `Data`.
    public static func withUnarchiver<R>(
        for data: Data, registry: ClassRegistry = .standard, allowedTypes: [Any.Type]? = nil,
        requiresSecureCoding: Bool = false, maxDepth: Int = 512, maxObjects: Int = 1 << 24,
        _ body: (KeyedUnarchiver) throws -> R
    ) throws -> R {
        try withUnarchiver(for: [UInt8](data), registry: registry, allowedTypes: allowedTypes,
                           requiresSecureCoding: requiresSecureCoding, maxDepth: maxDepth, maxObjects: maxObjects, body)
    }

    /// ``unarchivedObject(ofType:from:registry:requiresSecureCoding:acceptedArchivers:)`` from `Data`.
    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
    public static func unarchivedObject<T>(ofType type: T.Type, from data: Data, registry: ClassRegistry = .standard,
                                           requiresSecureCoding: Bool = true) throws -> T? {
        try unarchivedObject(ofType: T.self, from: [UInt8](data), registry: registry,
                             requiresSecureCoding: requiresSecureCoding)
    }

    /// ``unarchivedObject(ofTypes:from:registry:requiresSecureCoding:acceptedArchivers:)`` from `Data`.
    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`.
    public static func unarchivedObject(ofTypes types: [Any.Type], from data: Data, registry: ClassRegistry = .standard,
                                        requiresSecureCoding: Bool = true) throws -> Any? {
        try unarchivedObject(ofTypes: types, from: [UInt8](data), registry: registry,
                             requiresSecureCoding: requiresSecureCoding)
    }

    /// The typed ``unarchivedObject(ofTypes:_:_:from:registry:requiresSecureCoding:)-(_,_,_,[UInt8],_,_)``
    /// from `Data`. Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`.
    public static func unarchivedObject<First, Second, each Rest>(
        ofTypes first: First.Type, _ second: Second.Type, _ rest: repeat (each Rest).Type, from data: Data,
        registry: ClassRegistry = .standard, requiresSecureCoding: Bool = true
    ) throws -> (First?, Second?, repeat (each Rest)?) {
        try unarchivedObject(ofTypes: First.self, Second.self, repeat each rest, from: [UInt8](data), registry: registry,
                             requiresSecureCoding: requiresSecureCoding)
    }

    /// ``unarchivedArrayOfObjects(ofType:from:registry:requiresSecureCoding:)-(_,[UInt8],_,_)`` from `Data`.
    /// Mirrors `NSKeyedUnarchiver.unarchivedArrayOfObjects(ofClass:from:)`.
    public static func unarchivedArrayOfObjects<T>(ofType type: T.Type, from data: Data,
                                                   registry: ClassRegistry = .standard,
                                                   requiresSecureCoding: Bool = true) throws -> [T]? {
        try unarchivedArrayOfObjects(ofType: T.self, from: [UInt8](data), registry: registry,
                                     requiresSecureCoding: requiresSecureCoding)
    }

    /// ``unarchivedDictionary(keysOfType:objectsOfType:from:registry:requiresSecureCoding:)-(_,_,[UInt8],_,_)``
    /// from `Data`. Mirrors `NSKeyedUnarchiver.unarchivedDictionary(keysOfClass:objectsOfClass:from:)`.
    public static func unarchivedDictionary<Key: Hashable, Value>(
        keysOfType keyType: Key.Type, objectsOfType valueType: Value.Type, from data: Data,
        registry: ClassRegistry = .standard, requiresSecureCoding: Bool = true
    ) throws -> [Key: Value]? {
        try unarchivedDictionary(keysOfType: Key.self, objectsOfType: Value.self, from: [UInt8](data),
                                 registry: registry, requiresSecureCoding: requiresSecureCoding)
    }
}
