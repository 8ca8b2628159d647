import ArchiveModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes objects and values as a typedstream, the format `NSArchiver` writes and `NSUnarchiver` reads.
///
/// ```swift
/// let body = ArchivedAttributedString("Hello", attributes: ["__kIMMessagePartAttributeName": 0])
/// let bytes = try TypedStreamArchiver.archivedData(withRootObject: body)
/// ```
///
/// The stream is little-endian, streamer version 4, system version 1000, as every Mac writes it. Values
/// are the ones the reader gives back (`String`, the integer and real types, `Bool`, `Data`, `Date`,
/// `URL`, arrays, dictionaries and sets of them, `ArchivedNull`, `ArchivedValue`,
/// `ArchivedAttributedString`, `ArchivedObject` and ``TypedStreamEncodable`` types). Output is
/// deterministic: dictionaries and sets are written in `deterministicOrder(_:_:)` of their keys, type
/// encodings and class names once each (then by reference), class instances once each (then by
/// reference, so cycles of `ArchivedObject`s are kept) and value types at each use.
///
/// Typedstreams have no boolean `NSNumber`: a `Bool` is written as Apple writes a `BOOL` (type `c`), and
/// reads back as the integer 0 or 1.
///
/// Failures (a value of a type the format cannot express, nesting past ``maxDepth``) are recorded and
/// thrown by ``finishEncoding()``.
///
/// Mirrors `NSArchiver` (`archivedData(withRootObject:)`, `encodeRootObject(_:)`, `encode(_:)`,
/// `encodeValue(ofObjCType:at:)`, `encodeValues(ofObjCTypes:)`, `encodeDataObject(_:)`, `archiverData`).
public final class TypedStreamArchiver {
    /// Deepest nesting of objects written. Default 512.
    public var maxDepth = 512

    var writer = TypedStreamWriter()
    private var sharedStrings: [[UInt8]: Int] = [:]
    private var nextObjectNumber = 0
    /// The number of each class written, by its chain from it to its root (names and versions): a class is
    /// one class only with the same superclasses, so no chain in a stream is lost to another of the same name.
    private var classNumbers: [[String]: Int] = [:]
    private var cStringNumbers: [[UInt8]: Int] = [:]
    private var instanceNumbers: [ObjectIdentifier: Int] = [:]
    /// The instances numbered, kept alive so that their identifiers stay theirs.
    private var instances: [AnyObject] = []
    private var depth = 0
    private var failure: TypedStreamError?

    /// An archiver whose stream holds the header so far.
    public init() {
        writer.byte(4)
        writer.byte(11)
        writer.raw(TypedStreamHeader.littleEndianSignature)
        writer.unsigned(1000)
    }

    /// The stream of `rootObject`: one `@` group. Mirrors `NSArchiver.archivedData(withRootObject:)`.
    public static func archivedData(withRootObject rootObject: Any?) throws -> [UInt8] {
        let archiver = TypedStreamArchiver()
        archiver.encodeRootObject(rootObject)
        return try archiver.finishEncoding()
    }

    /// The stream of `rootObject` as `Data`. Mirrors `NSArchiver.archivedData(withRootObject:)`.
    public static func archivedData(withRootObject rootObject: Any?) throws -> Data {
        Data(try archivedData(withRootObject: rootObject) as [UInt8])
    }

    /// Writes the root object. Mirrors `NSArchiver.encodeRootObject(_:)`.
    public func encodeRootObject(_ rootObject: Any?) { encodeObject(rootObject) }

    /// Writes a group of one object. Mirrors `NSCoder.encode(_:)` (`encodeObject:`).
    public func encodeObject(_ object: Any?) {
        writeGroupHeader("@")
        writeObject(object)
    }

    /// Writes a group of one value of the type `encoding` (`"i"`, `"{CGPoint=dd}"`), given as
    /// ``TypedStreamUnarchiver/decodeValue(ofObjCType:)`` reads it back (any integer or real type converts;
    /// a struct or array as `[Any?]`, a byte array as `Data` or `[UInt8]`).
    ///
    /// Mirrors `NSCoder.encodeValue(ofObjCType:at:)`.
    public func encodeValue(_ value: Any?, ofObjCType encoding: String) {
        encodeValues([value], ofObjCTypes: encoding)
    }

    /// Writes a group of values of the types of `encoding` (`"iI"`), one value a type.
    /// Mirrors `NSCoder.encodeValues(ofObjCTypes:)`.
    public func encodeValues(_ values: [Any?], ofObjCTypes encoding: String) {
        let types: [ObjCType]
        do throws(TypedStreamError) { types = try ObjCType.parseList(encoding) } catch {
            return record(error)
        }
        guard types.count == values.count else {
            return record(TypedStreamError(.typeMismatch, "\"\(encoding)\" has \(types.count) types for \(values.count) values"))
        }
        writeGroupHeader(encoding)
        for (t, v) in zip(types, values) { writeTyped(v, t) }
    }

    /// Writes bytes as an `i` length and a `[Nc]` array. Mirrors `NSCoder.encodeDataObject(_:)`.
    public func encodeDataObject(_ data: Data) { writeDataObject([UInt8](data)) }

    /// The stream, or the first failure recorded. Mirrors `NSArchiver.archiverData`.
    public func finishEncoding() throws -> [UInt8] {
        if let failure { throw failure }
        return writer.bytes
    }

    // MARK: - Building blocks

    func record(_ error: TypedStreamError) {
        if failure == nil { failure = error }
    }

    /// A shared string: a reference when written before, else new.
    func writeSharedString(_ bytes: [UInt8]) {
        if let i = sharedStrings[bytes] { return writer.signed(Int64(i) + TypedStreamTag.firstReference) }
        sharedStrings[bytes] = sharedStrings.count
        writer.byte(TypedStreamTag.new)
        writer.unsharedString(bytes)
    }

    /// The type encoding of the group that follows.
    func writeGroupHeader(_ encoding: String) { writeSharedString(Array(encoding.utf8)) }

    /// A C string: a reference to the same text written before as a C string, else new (numbered in the
    /// object table, its text a shared string), as Apple writes them.
    func writeCString(_ text: String) { writeCString(bytes: Array(text.utf8)) }

    func writeCString(bytes: [UInt8]) {
        if let n = cStringNumbers[bytes] { return writeReference(n) }
        writer.byte(TypedStreamTag.new)
        writeSharedString(bytes)
        cStringNumbers[bytes] = nextObjectNumber
        nextObjectNumber += 1
    }

    private func writeReference(_ number: Int) { writer.signed(Int64(number) + TypedStreamTag.firstReference) }

    /// A class chain, the class first: each class not written before is new (name, version), and the
    /// chain ends at the first one written before (a reference) or after the root (nil).
    func writeClassChain(_ chain: [(name: String, version: Int)]) {
        let keys = chain.map { $0.name + "\u{0}" + String($0.version) }
        for (i, c) in chain.enumerated() {
            let key = Array(keys[i...])
            if let n = classNumbers[key] { return writeReference(n) }
            writer.byte(TypedStreamTag.new)
            writeSharedString(Array(c.name.utf8))
            writer.signed(Int64(c.version))
            classNumbers[key] = nextObjectNumber
            nextObjectNumber += 1
        }
        writer.byte(TypedStreamTag.nil)
    }

    /// A new object of `chain`: its number, its class chain, `body`'s groups and the end of object.
    func writeNewObject(_ chain: [(name: String, version: Int)], identity: AnyObject? = nil, _ body: () -> Void) {
        guard depth < maxDepth else {
            record(TypedStreamError(.depthLimitExceeded, "objects nest deeper than \(maxDepth)"))
            return writer.byte(TypedStreamTag.nil)
        }
        writer.byte(TypedStreamTag.new)
        if let identity {
            instanceNumbers[ObjectIdentifier(identity)] = nextObjectNumber
            instances.append(identity)
        }
        nextObjectNumber += 1
        writeClassChain(chain)
        depth += 1
        body()
        depth -= 1
        writer.byte(TypedStreamTag.endOfObject)
    }

    /// A new object of a Foundation class that has a typedstream form, with `NSArchiver`'s chain and versions.
    func writeNewObject(_ foundation: StandardClass, identity: AnyObject? = nil, _ body: () -> Void) {
        writeNewObject(foundation.typedStreamChain ?? foundation.classChain.map { (name: $0, version: 0) }, identity: identity, body)
    }

    /// Whether `identity` was written before; if so, writes the reference to it.
    func writeReferenceIfShared(_ identity: AnyObject) -> Bool {
        guard let n = instanceNumbers[ObjectIdentifier(identity)] else { return false }
        writeReference(n)
        return true
    }
}
