import BinaryPlist

/// Validates the top level of a keyed archive: `$archiver`, `$version`, `$top`, `$objects` (any key order,
/// extra keys ignored) and `$objects[0] == "$null"`.
enum ArchiveHeader {
    static func validate(_ reader: BinaryArchiveReader) throws
        -> (top: BinaryArchiveReader.Dictionary, objects: BinaryArchiveReader.Array)
    {
        func bad(_ reason: String) -> KeyedArchiveError { KeyedArchiveError(.invalidHeader, reason) }
        guard case .dictionary(let root) = try reader.value(reader.document.topObject) else {
            throw bad("the top object is not a dictionary")
        }
        var archiver: BinaryArchiveReader.Value?
        var version: BinaryArchiveReader.Value?
        var top: BinaryArchiveReader.Value?
        var objects: BinaryArchiveReader.Value?
        for i in 0..<root.count {
            guard let key = try reader.string(reader.keyReference(root, i)) else { continue }
            switch key {
            case "$archiver": archiver = try reader.value(reader.valueReference(root, i))
            case "$version": version = try reader.value(reader.valueReference(root, i))
            case "$top": top = try reader.value(reader.valueReference(root, i))
            case "$objects": objects = try reader.value(reader.valueReference(root, i))
            default: continue
            }
        }
        guard let archiver else { throw bad("$archiver is missing") }
        guard case .other(.string(let name)) = archiver, name == "NSKeyedArchiver" else {
            throw bad("$archiver is not \"NSKeyedArchiver\"")
        }
        guard let version else { throw bad("$version is missing") }
        guard case .integer(let v) = version, v == PlistInteger(100_000) else {
            throw bad("$version is not 100000")
        }
        guard let top else { throw bad("$top is missing") }
        guard case .dictionary(let topDictionary) = top else { throw bad("$top is not a dictionary") }
        guard let objects else { throw bad("$objects is missing") }
        guard case .array(let objectArray) = objects, objectArray.count >= 1 else {
            throw bad("$objects is not a non-empty array")
        }
        guard case .other(.string("$null")) = try reader.value(reader.elementReference(objectArray, 0)) else {
            throw bad("$objects[0] is not \"$null\"")
        }
        return (topDictionary, objectArray)
    }
}
