/// Class dictionaries resolved by earlier decodes with one ``KeyedUnarchiver/Scratch``, by the bytes of their
/// names: a store's records are archives of the same few classes, and matching a class dictionary's
/// `$classname` and `$classes` against names seen before costs a few byte compares, where resolving it reads
/// each name into a string, looks it up in the registry and checks the type's conformances.
///
/// Valid for one registry and no allowed types (a scratch has both fixed). Only names of ASCII characters are
/// remembered: for them, a string object holding the same bytes reads back as the same string whatever its
/// encoding in the plist, so a match resolves exactly as a first read would. A dictionary with a key twice, or
/// anything that would fail to read, is not matched: the full read reports it as before.
///
/// No Apple API: part of what `NSKeyedUnarchiver`'s class cache does within one archive, kept across archives.
struct ClassMemo {
    private struct Entry {
        let name: [UInt8]
        /// The `$classes` names, `nil` when the dictionary had no `$classes`.
        let chain: [[UInt8]]?
        let resolved: ResolvedClass
    }

    private var entries: [Entry] = []
    /// How many classes are remembered.
    var count: Int { entries.count }
    /// The most classes remembered; later ones are resolved each time.
    static let capacity = 32

    /// Remembers `resolved`, read from a dictionary whose `$classname` is `name` and whose `$classes` is `chain`.
    mutating func remember(_ resolved: ResolvedClass, named name: String, chain: [String]?) {
        guard entries.count < Self.capacity, Self.isASCII(name), chain?.allSatisfy(Self.isASCII) ?? true else { return }
        let nameBytes = Array(name.utf8)
        let chainBytes = chain.map { $0.map { Array($0.utf8) } }
        // Once each: a dictionary that is never matched (one with a key twice) is resolved, and offered, at every read.
        guard !entries.contains(where: { $0.name == nameBytes && $0.chain == chainBytes }) else { return }
        entries.append(Entry(name: nameBytes, chain: chainBytes, resolved: resolved))
    }

    /// The class remembered for the class dictionary `d`, or `nil` when none matches (or reading it fails: the
    /// full read then says why).
    func match(_ d: ArchiveObjectReader.DictionaryView, _ reader: ArchiveObjectReader) -> ResolvedClass? {
        guard !entries.isEmpty else { return nil }
        do {
            var nameObject = -1
            var classesObject = -1
            for i in 0..<d.count {
                let key = try reader.keyReference(d, i)
                if try reader.isString(key, "$classname") {
                    guard nameObject < 0 else { return nil }
                    nameObject = try reader.valueReference(d, i)
                } else if try reader.isString(key, "$classes") {
                    guard classesObject < 0 else { return nil }
                    classesObject = try reader.valueReference(d, i)
                }
            }
            guard nameObject >= 0 else { return nil }
            var classes: ArchiveObjectReader.ArrayView?
            if classesObject >= 0 {
                guard let a = try reader.array(classesObject) else { return nil }
                classes = a
            }
            // The entries read in place (no copy of each, with its arrays and class retained and released).
            return try entries.withUnsafeBufferPointer { entries throws -> ResolvedClass? in
                for k in entries.indices {
                    guard try entries[k].name.withUnsafeBufferPointer({ try reader.isString(nameObject, equalTo: $0) }) else { continue }
                    if try Self.matches(classes, entries[k].chain, reader) { return entries[k].resolved }
                }
                return nil
            }
        } catch {
            return nil
        }
    }

    private static func matches(_ classes: ArchiveObjectReader.ArrayView?, _ chain: [[UInt8]]?,
                                _ reader: ArchiveObjectReader) throws -> Bool {
        guard let classes, let chain else { return classes == nil && chain == nil }
        guard classes.count == chain.count else { return false }
        for j in 0..<classes.count {
            let element = try reader.elementReference(classes, j)
            guard try chain[j].withUnsafeBufferPointer({ try reader.isString(element, equalTo: $0) }) else { return false }
        }
        return true
    }

    private static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }
}
