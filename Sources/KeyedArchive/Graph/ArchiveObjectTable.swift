import BinaryPlist

/// A keyed archive's validated top level with its `$top` and `$objects` entries read one at a time: the lazy
/// form of ``ArchiveGraph``, for walks that must not hold the whole graph.
///
/// It keeps the archive's bytes and offset table and materializes an entry only when asked, within the
/// document's `PlistLimits`, so a walk that reads each entry once costs time linear in the archive and memory
/// for one entry. The table is valid only inside the ``read(_:acceptedArchivers:_:)`` call that made it.
///
/// ```swift
/// try ArchiveObjectTable.read(bytes) { table in
///     for uid in 1..<table.objectCount where try table.isClassDescription(at: uid) {
///         print(uid, try table.object(at: uid))
///     }
/// }
/// ```
///
/// No Apple API corresponds: it is what `NSKeyedUnarchiver` reads before it instantiates anything.
public final class ArchiveObjectTable {
    /// `$archiver`.
    public let archiver: String
    /// The number of `$objects` entries, `$null` included.
    public let objectCount: Int
    /// The number of `$top` entries.
    public let topCount: Int
    /// The size of the archive as read (its binary form for an XML archive).
    public let byteCount: Int
    /// How many plist values the document lets a reader materialize in all (`PlistLimits`: as many as the
    /// archive has bytes, at least 65,536). A walk that counts what it reads against it stays linear even in
    /// a hostile plist that shares one collection between many entries.
    public let elementBudget: Int
    private let reader: ArchiveObjectReader
    private let top: ArchiveObjectReader.DictionaryView
    private let objects: ArchiveObjectReader.ArrayView

    private init(reader: ArchiveObjectReader, header: ArchiveHeader, byteCount: Int) {
        self.reader = reader
        archiver = header.archiver
        top = header.top
        objects = header.objects
        objectCount = header.objects.count
        topCount = header.top.count
        self.byteCount = byteCount
        elementBudget = reader.objects.elementBudget
    }

    /// Reads the top level of the binary or XML keyed archive `bytes` and hands the table to `body`.
    /// - Throws: ``KeyedArchiveError`` for a plist that is not a keyed archive (`invalidPlist`,
    ///   `invalidHeader`, `foreignArchiver` outside `acceptedArchivers`), or whatever `body` throws.
    public static func read<R>(_ bytes: [UInt8], acceptedArchivers: AcceptedArchivers = .nsKeyedArchiver,
                               _ body: (ArchiveObjectTable) throws -> R) throws -> R {
        let document = try KeyedUnarchiver.binaryDocument(bytes)
        return try document.withObjects { objects in
            let reader = ArchiveObjectReader(objects)
            let header = try ArchiveHeader(reader, acceptedArchivers: acceptedArchivers)
            return try body(ArchiveObjectTable(reader: reader, header: header, byteCount: document.bytes.count))
        }
    }

    /// The key of `$top` entry `index` (below ``topCount``), in file order.
    /// - Throws: ``KeyedArchiveError/Code/invalidPlist`` for a malformed plist object.
    public func topKey(at index: Int) throws -> PlistValue {
        try materialize(reader.keyReference(top, index), entry: nil)
    }

    /// The value of `$top` entry `index` (below ``topCount``), in file order.
    /// - Throws: ``KeyedArchiveError/Code/invalidPlist`` for a malformed plist object.
    public func topValue(at index: Int) throws -> PlistValue {
        try materialize(reader.valueReference(top, index), entry: nil)
    }

    /// `$objects[uid]`, materialized.
    /// - Throws: ``KeyedArchiveError/Code/invalidReference`` for an index outside the objects,
    ///   ``KeyedArchiveError/Code/invalidPlist`` (with the object's index) for a malformed plist object.
    public func object(at uid: Int) throws -> PlistValue {
        try materialize(reference(uid), entry: uid)
    }

    /// Whether `$objects[uid]` is a class description: a dictionary with a `$classname` key and no `$class`.
    /// Looks at the entry's keys without reading the entry.
    /// - Throws: as ``object(at:)``.
    public func isClassDescription(at uid: Int) throws -> Bool {
        guard let d = try reader.dictionary(reference(uid)) else { return false }
        var named = false
        var instance = false
        for i in 0..<d.count {
            let key = try reader.keyReference(d, i)
            if try Self.classNameKey.withUnsafeBufferPointer({ try reader.isString(key, equalTo: $0) }) { named = true }
            if try Self.classKey.withUnsafeBufferPointer({ try reader.isString(key, equalTo: $0) }) { instance = true }
        }
        return named && !instance
    }

    private static let classNameKey = Array("$classname".utf8)
    private static let classKey = Array("$class".utf8)

    private func reference(_ uid: Int) throws -> Int {
        guard uid >= 0, uid < objectCount else {
            throw KeyedArchiveError(.invalidReference, "UID \(uid) is not below the \(objectCount) objects")
        }
        return try reader.elementReference(objects, uid)
    }

    private func materialize(_ reference: Int, entry: Int?) throws -> PlistValue {
        do {
            return try reader.objects.materialize(reference)
        } catch {
            throw KeyedArchiveError(.invalidPlist, error.description, objectIndex: entry, underlying: error)
        }
    }
}
