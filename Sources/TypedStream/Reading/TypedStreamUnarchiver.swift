import ArchiveModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the objects and values of a typedstream, the format of `NSArchiver` / `NSUnarchiver`.
///
/// ```swift
/// let body = try TypedStreamUnarchiver.unarchiveObject(with: attributedBody) as? ArchivedAttributedString
/// print(body?.string ?? "", body?.runs.map(\.range) ?? [])
/// ```
///
/// A typedstream has no keys: an object's values follow its class in the order its `encode(with:)` wrote
/// them, each group of values after the type encoding that describes it (`@` an object, `i` an int, `iI`
/// two integers...). Reading mirrors that: ``decodeObject()``, ``decodeValue(ofObjCType:)`` and
/// ``decodeValues(ofObjCTypes:)`` read the next group, checked against the type asked for (integers of any
/// width and signedness are accepted for one another, range-checked, since 32- and 64-bit writers differ).
///
/// Objects decode to the values the keyed reader gives for the same Foundation classes (`String`, `Int`,
/// `Double`, `Data`, `Date`, `[Any]`, `[AnyHashable: Any]`, `Set<AnyHashable>`, `URL`, `ArchivedNull`,
/// `ArchivedValue`, `ArchivedAttributedString`); a class the registry knows and that adopts
/// ``TypedStreamDecodable`` reads itself; any other class is an error or, with
/// `ClassRegistry/allowingUnknownClasses()`, an `ArchivedObject` that keeps its class chain, the
/// class versions, the type encodings and every value (see ``TypedStreamUnarchiver/versionsKey``).
///
/// Limits: objects nest at most ``maxDepth`` deep; at most ``maxObjects`` objects and array elements are
/// decoded; every count and length is checked against the bytes left before anything is allocated.
///
/// Mirrors `NSUnarchiver` (`unarchiveObject(with:)`, `decodeObject()`, `decodeValue(ofObjCType:at:)`,
/// `decodeValues(ofObjCTypes:)`, `decodeDataObject()`, `version(forClassName:)`, `systemVersion`).
public final class TypedStreamUnarchiver {
    /// The stream's header: streamer version, byte order, system version.
    public let header: TypedStreamHeader
    /// The registry that names the classes decoded as Swift types.
    public let registry: ClassRegistry
    /// Deepest nesting of objects accepted. Default 512.
    public let maxDepth: Int
    /// Most objects and array elements decoded in one stream. Default 16,777,216.
    public let maxObjects: Int

    /// The scanner, behind a pointer only this unarchiver holds: a stored property of a class gets a dynamic
    /// exclusivity check at every access, which costs more than reading the byte itself. The unarchiver is not
    /// Sendable and runs on one thread at a time.
    private let scannerStorage: UnsafeMutablePointer<TypedStreamScanner>
    var scanner: TypedStreamScanner {
        unsafeAddress { UnsafePointer(scannerStorage) }
        unsafeMutableAddress { scannerStorage }
    }
    /// Parsed type encodings, by shared-string index.
    var parsedTypes: [[ObjCType]?] = []
    /// The shared-string index of the type encoding of the last group read.
    var lastGroupString = 0
    /// The object table: C strings, classes and objects, numbered in the order they were read.
    var table: [TableEntry] = []
    var classes: [ClassInfo] = []
    var versions: [String: Int] = [:]
    /// The objects being decoded, innermost last: their table number and their class's index in `classes`.
    var frames: [(index: Int, classIndex: Int)] = []
    var decodedCount = 0
    /// How many class names the class chains may still hold in all: each new class stores its whole chain,
    /// so a stream of classes on one deep chain would otherwise hold far more names than it has bytes.
    var classNamesLeft: Int
    var cycles = ArchivedObjectCycles()
    /// Every class name an object was decoded of, first use first (what `audit` reports).
    package internal(set) var instantiatedClassNames: [String] = []
    var instantiatedSet: Set<String> = []
    /// Whether objects of mutable Foundation classes (`NSMutableArray`, ...) decode as
    /// `ArchivedMutableObject`s that keep their class and identity, where the reader decides the value (the
    /// top, Foundation collections, objects of unknown classes); a registered type reading its own values gets
    /// plain values. Off by default; conversion and the inspector turn it on.
    package var keepsMutableClasses = false

    enum TableEntry {
        case cString(Any)
        case objectClass(Int)
        case object(Any?)
        /// An object being decoded; the `ArchivedObject` it will be, if it is one.
        case inProgress(ArchivedObject?)
    }

    struct ClassInfo {
        var name: String
        var version: Int
        /// The names from this class up to its root.
        var chain: [String]
        /// The versions of `chain`.
        var versions: [Int]
    }

    /// Field key of the class versions (one integer per name of the class chain) in an `ArchivedObject`
    /// read from a typedstream.
    public static let versionsKey = "$versions"
    /// Field key of the type encodings (one string per group of values, in order) in an `ArchivedObject`
    /// read from a typedstream; the values themselves are `$0`, `$1`, ... one per scalar, string, object or
    /// byte array, structs and arrays flattened, as `KeyedUnarchiver/decodeObject(of:)` reads them.
    public static let typesKey = "$types"

    /// An unarchiver positioned after the header of `bytes`.
    ///
    /// - Throws: ``TypedStreamError/Code/invalidHeader`` or ``TypedStreamError/Code/unsupportedVersion``.
    ///
    /// Mirrors `NSUnarchiver(forReadingWith:)`.
    public init(forReadingWith bytes: [UInt8], registry: ClassRegistry = .standard, maxDepth: Int = 512,
                maxObjects: Int = 16_777_216) throws {
        let (header, scanner) = try TypedStreamScanner.readHeader(bytes)
        self.header = header
        scannerStorage = UnsafeMutablePointer<TypedStreamScanner>.allocate(capacity: 1)
        scannerStorage.initialize(to: scanner)
        self.registry = registry
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
        classNamesLeft = 4096 + 8 * bytes.count
    }

    deinit {
        scannerStorage.deinitialize(count: 1)
        scannerStorage.deallocate()
    }

    /// An unarchiver positioned after the header of `data`. Mirrors `NSUnarchiver(forReadingWith:)`.
    public convenience init(forReadingWith data: Data, registry: ClassRegistry = .standard) throws {
        try self.init(forReadingWith: [UInt8](data), registry: registry)
    }

    /// The root object of `bytes`: the object of the first group, which must be `@`. Bytes after it are
    /// not read, as `NSUnarchiver` does not read them; ``decodeAllValues()`` reads every group.
    ///
    /// ```swift
    /// let registry = ClassRegistry.standard.allowingUnknownClasses()
    /// let root = try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: registry)
    /// ```
    ///
    /// Mirrors `NSUnarchiver.unarchiveObject(with:)`.
    public static func unarchiveObject(with bytes: [UInt8], registry: ClassRegistry = .standard) throws -> Any? {
        try TypedStreamUnarchiver(forReadingWith: bytes, registry: registry).decodeObject()
    }

    /// The root object of `data`. Mirrors `NSUnarchiver.unarchiveObject(with:)`.
    public static func unarchiveObject(with data: Data, registry: ClassRegistry = .standard) throws -> Any? {
        try unarchiveObject(with: [UInt8](data), registry: registry)
    }

    /// The stream's system version. Mirrors `NSUnarchiver.systemVersion`.
    public var systemVersion: Int { header.systemVersion }

    /// Whether every byte was read. Mirrors `NSUnarchiver.isAtEnd`.
    public var isAtEnd: Bool { scanner.isAtEnd }

    /// The version the stream records for `className`, once a class of that name was read; `nil` before
    /// or when the stream holds no such class. Mirrors `NSUnarchiver.version(forClassName:)` (which
    /// answers `NSNotFound` where this answers `nil`).
    public func version(forClassName className: String) -> Int? { versions[className] }

    /// The next object: the value of a group of type `@`.
    ///
    /// Mirrors `NSCoder.decodeObject()`.
    public func decodeObject() throws -> Any? {
        _ = try expectGroup([.object])
        return try readObject()
    }

    /// The next object, an object of a mutable class as its plain value: what a Foundation class's decoding
    /// reads its parts with.
    package func decodePlainObject() throws -> Any? {
        let value = try decodeObject()
        return keepsMutableClasses ? ArchivedMutableObject.plain(value) : value
    }

    /// The next object, which must be a `T` (or nil).
    public func decodeObject<T>(of type: T.Type) throws -> T? {
        let start = scanner.position
        guard let value = try decodeObject() else { return nil }
        guard let typed = value as? T else {
            throw error(.typeMismatch, "the object is \(Swift.type(of: value)), not \(T.self)", at: start)
        }
        return typed
    }

    /// The next value, which must be of the one type `encoding` (`"i"`, `"{CGPoint=dd}"`, `"@"`).
    ///
    /// Values come as: `c` `Int8`, `C` `UInt8`, `s` `Int16`, `S` `UInt16`, `i`/`l` `Int32`, `I`/`L`
    /// `UInt32`, `q` `Int64`, `Q` `UInt64`, `f` `Float`, `d` `Double`, `B` `Bool`; `*`, `%` and `:` a
    /// `String` (`Data` for bytes that are not UTF-8) or `nil`; `#` the class name or `nil`; `+` `Data`;
    /// `@` the decoded object or `nil`; `[Nc]`/`[NC]` `Data`; other arrays and structs `[Any?]`; `v`
    /// and `!` `nil`.
    ///
    /// Mirrors `NSCoder.decodeValue(ofObjCType:at:size:)`.
    public func decodeValue(ofObjCType encoding: String) throws -> Any? {
        let values = try decodeValues(ofObjCTypes: encoding)
        guard values.count == 1 else {
            throw error(.typeMismatch, "\"\(encoding)\" is \(values.count) types; decodeValues(ofObjCTypes:) reads them")
        }
        return values[0]
    }

    /// The next group of values, whose types must be those of `encoding` (`"iI"`), in order.
    ///
    /// Mirrors `NSCoder.decodeValues(ofObjCTypes:)`.
    public func decodeValues(ofObjCTypes encoding: String) throws -> [Any?] {
        let requested: [ObjCType]
        do { requested = try ObjCType.parseList(encoding) } catch { throw located(error) }
        let stream = try expectGroup(requested)
        var values: [Any?] = []
        values.reserveCapacity(stream.count)
        for (s, r) in zip(stream, requested) { values.append(try readValue(s, as: r)) }
        return values
    }

    /// The next bytes written by `encodeDataObject(_:)`: an `i` length and a `[Nc]` array.
    /// Mirrors `NSCoder.decodeDataObject()`.
    public func decodeDataObject() throws -> Data {
        Data(try readDataObject())
    }

    /// Every top-level group's values, in order, to the end of the stream: a stream `NSArchiver` wrote
    /// holds one `@` group, other writers wrote several.
    public func decodeAllValues() throws -> [Any?] {
        var values: [Any?] = []
        while !scanner.isAtEnd {
            let start = scanner.position
            let types = try readGroupTypes()
            for t in types {
                guard values.count < maxObjects else {
                    throw error(.elementLimitExceeded, "more than \(maxObjects) top-level values", at: start)
                }
                values.append(try readValue(t, as: t))
            }
        }
        return values
    }

    // MARK: - Errors with context

    func error(_ code: TypedStreamError.Code, _ reason: String, at offset: Int? = nil) -> TypedStreamError {
        TypedStreamError(code, reason, offset: offset ?? scanner.position, objectIndex: frames.last?.index,
                         className: frames.last.map { classes[$0.classIndex].name })
    }

    /// `error` with the innermost object and, if it has none, the current offset.
    func located(_ error: any Error) -> any Error {
        guard var e = error as? TypedStreamError else { return error }
        if e.offset == nil { e.offset = scanner.position }
        if e.objectIndex == nil, let frame = frames.last {
            e.objectIndex = frame.index
            e.className = classes[frame.classIndex].name
        }
        return e
    }

    // MARK: - Groups

    /// The types of the next group (its type-encoding string, parsed once per shared string).
    func readGroupTypes() throws -> [ObjCType] {
        let start = scanner.position
        let head = try scanner.peekByte()
        if head == TypedStreamTag.endOfObject {
            throw error(frames.isEmpty ? .invalidTag : .typeMismatch,
                        frames.isEmpty ? "an end of object outside any object" : "the object has no more values", at: start)
        }
        let index: Int?
        do { index = try scanner.sharedString() } catch { throw located(error) }
        guard let index else { throw error(.invalidTag, "a group of values without a type encoding (nil)", at: start) }
        lastGroupString = index
        if index < parsedTypes.count, let cached = parsedTypes[index] { return cached }
        let types: [ObjCType]
        do throws(TypedStreamError) { types = try ObjCType.parseList(scanner.sharedStrings[index]) } catch {
            var e = error
            e.offset = start
            throw located(e)
        }
        if parsedTypes.count < scanner.sharedStrings.count {
            parsedTypes.append(contentsOf: repeatElement(nil, count: scanner.sharedStrings.count - parsedTypes.count))
        }
        parsedTypes[index] = types
        return types
    }

    /// The next group's types, checked against `requested`.
    package func expectGroup(_ requested: [ObjCType]) throws -> [ObjCType] {
        let start = scanner.position
        let types = try readGroupTypes()
        guard types.count == requested.count, zip(types, requested).allSatisfy({ $0.isCompatible(with: $1) }) else {
            let found = types.map(\.encoding).joined()
            let asked = requested.map(\.encoding).joined()
            throw error(.typeMismatch, "the stream holds \"\(found)\" where \"\(asked)\" was asked for", at: start)
        }
        return types
    }

    /// Whether the next byte ends the current object.
    package func atEndOfObject() throws -> Bool {
        do { return try scanner.peekByte() == TypedStreamTag.endOfObject } catch { throw located(error) }
    }
}
