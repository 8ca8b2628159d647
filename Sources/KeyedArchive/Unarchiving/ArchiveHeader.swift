import BinaryPlist

/// The validated top level of a keyed archive: `$archiver`, `$version`, `$top`, `$objects` (any key order,
/// extra keys ignored) and `$objects[0] == "$null"`.
struct ArchiveHeader {
    /// The `$archiver` name (one that the reader accepts).
    var archiver: String
    var top: ArchiveObjectReader.DictionaryView
    var objects: ArchiveObjectReader.ArrayView
    /// Positions of the `$top` and `$objects` entries in the root dictionary (the last of each name).
    var topPosition: Int
    var objectsPosition: Int

    private static let archiverKey = Array("$archiver".utf8)
    private static let versionKey = Array("$version".utf8)
    private static let topKey = Array("$top".utf8)
    private static let objectsKey = Array("$objects".utf8)

    /// Validates the top level of the archive `reader` reads.
    /// - Throws: ``KeyedArchiveError`` with ``KeyedArchiveError/Code/invalidHeader``, or
    ///   ``KeyedArchiveError/Code/foreignArchiver`` for an `$archiver` name outside `acceptedArchivers`.
    init(_ reader: ArchiveObjectReader, acceptedArchivers: AcceptedArchivers) throws {
        func bad(_ reason: String) -> KeyedArchiveError { KeyedArchiveError(.invalidHeader, reason) }
        guard case .dictionary(let root) = try reader.value(reader.topObject) else {
            throw bad("the top object is not a dictionary")
        }
        var archiver: ArchiveObjectReader.Value?
        var version: ArchiveObjectReader.Value?
        var top: (value: ArchiveObjectReader.Value, position: Int)?
        var objects: (value: ArchiveObjectReader.Value, position: Int)?
        for i in 0..<root.count {
            // The keys compared as the bytes the document holds: no string is made for them.
            let key = try reader.keyReference(root, i)
            func named(_ name: [UInt8]) throws -> Bool { try name.withUnsafeBufferPointer { try reader.isString(key, equalTo: $0) } }
            if try named(Self.archiverKey) {
                archiver = try reader.value(reader.valueReference(root, i))
            } else if try named(Self.versionKey) {
                version = try reader.value(reader.valueReference(root, i))
            } else if try named(Self.topKey) {
                top = (try reader.value(reader.valueReference(root, i)), i)
            } else if try named(Self.objectsKey) {
                objects = (try reader.value(reader.valueReference(root, i)), i)
            }
        }
        guard let archiver else { throw bad("$archiver is missing") }
        guard case .other(.string(let name)) = archiver else { throw bad("$archiver is not a string") }
        guard acceptedArchivers.accepts(name) else {
            throw KeyedArchiveError(.foreignArchiver, "$archiver is \"\(name)\", \(acceptedArchivers.refusal)",
                                    archiver: name)
        }
        guard let version else { throw bad("$version is missing") }
        guard case .integer(let v) = version, v == PlistInteger(100_000) else {
            throw bad("$version is not 100000")
        }
        guard let top else { throw bad("$top is missing") }
        guard case .dictionary(let topDictionary) = top.value else { throw bad("$top is not a dictionary") }
        guard let objects else { throw bad("$objects is missing") }
        guard case .array(let objectArray) = objects.value, objectArray.count >= 1 else {
            throw bad("$objects is not a non-empty array")
        }
        guard case .other(.string("$null")) = try reader.value(reader.elementReference(objectArray, 0)) else {
            throw bad("$objects[0] is not \"$null\"")
        }
        self.archiver = name
        self.top = topDictionary
        self.objects = objectArray
        self.topPosition = top.position
        self.objectsPosition = objects.position
    }
}
