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

    /// Validates the top level of the archive `reader` reads.
    /// - Throws: ``KeyedArchiveError`` with ``KeyedArchiveError/Code/invalidHeader``, or
    ///   ``KeyedArchiveError/Code/foreignArchiver`` for an `$archiver` name outside `acceptedArchivers`.
    init(_ reader: ArchiveObjectReader, acceptedArchivers: AcceptedArchivers) throws {
        func bad(_ reason: String) -> KeyedArchiveError { KeyedArchiveError(.invalidHeader, reason) }
        guard case .dictionary(let root) = try reader.value(reader.topObject) else {
            throw bad("the top object is not a dictionary")
        }
        // Each value is read (and a malformed one reported) as its key is met, in the dictionary's order; what
        // is kept of it is only what the checks below need (no `Value` copied out of the loop).
        var archiverSeen = false
        var archiverName: String?  // nil when seen: not a string
        var versionSeen = false
        var versionIsCurrent = false
        var top: (dictionary: ArchiveObjectReader.DictionaryView?, position: Int)?
        var objects: (array: ArchiveObjectReader.ArrayView?, position: Int)?
        for i in 0..<root.count {
            // The keys compared as the bytes the document holds: no string is made for them.
            let key = try reader.keyReference(root, i)
            if try reader.isString(key, "$archiver") {
                let ref = try reader.valueReference(root, i)
                archiverSeen = true
                if try reader.isString(ref, "NSKeyedArchiver") {
                    archiverName = "NSKeyedArchiver"
                } else if case .other(.string(let name)) = try reader.value(ref) {
                    archiverName = name
                } else {
                    archiverName = nil
                }
            } else if try reader.isString(key, "$version") {
                versionSeen = true
                if case .integer(let v) = try reader.value(reader.valueReference(root, i)) {
                    versionIsCurrent = v == PlistInteger(100_000)
                } else {
                    versionIsCurrent = false
                }
            } else if try reader.isString(key, "$top") {
                if case .dictionary(let d) = try reader.value(reader.valueReference(root, i)) { top = (d, i) } else { top = (nil, i) }
            } else if try reader.isString(key, "$objects") {
                if case .array(let a) = try reader.value(reader.valueReference(root, i)) { objects = (a, i) } else { objects = (nil, i) }
            }
        }
        guard archiverSeen else { throw bad("$archiver is missing") }
        guard let name = archiverName else { throw bad("$archiver is not a string") }
        guard acceptedArchivers.accepts(name) else {
            throw KeyedArchiveError(.foreignArchiver, "$archiver is \"\(name)\", \(acceptedArchivers.refusal)",
                                    archiver: name)
        }
        guard versionSeen else { throw bad("$version is missing") }
        guard versionIsCurrent else { throw bad("$version is not 100000") }
        guard let top else { throw bad("$top is missing") }
        guard let topDictionary = top.dictionary else { throw bad("$top is not a dictionary") }
        guard let objects else { throw bad("$objects is missing") }
        guard let objectArray = objects.array, objectArray.count >= 1 else {
            throw bad("$objects is not a non-empty array")
        }
        let first = try reader.elementReference(objectArray, 0)
        if try !reader.isString(first, "$null") {
            // Read whole for the error a malformed object gets; any other string is not "$null".
            guard case .other(.string("$null")) = try reader.value(first) else {
                throw bad("$objects[0] is not \"$null\"")
            }
        }
        self.archiver = name
        self.top = topDictionary
        self.objects = objectArray
        self.topPosition = top.position
        self.objectsPosition = objects.position
    }
}
