import BinaryPlist

/// A lossless view of a keyed archive's object graph: the `$objects` entries as plist values, with accessors
/// for each object's class chain and fields. Writing it back gives an archive with the same graph.
///
/// ```swift
/// let graph = try ArchiveGraph(bytes: bytes)
/// for uid in graph.objects.indices { print(uid, graph.classChain(of: uid) ?? [], graph.fields(of: uid).map(\.key)) }
/// ```
///
/// No Apple API corresponds: it is the structure `NSKeyedUnarchiver` walks, for inspectors and tests.
public struct ArchiveGraph: Sendable, Hashable {
    /// `$top`: top-level keys (such as `root`) to UIDs or inline values.
    public var top: PlistDictionary
    /// `$objects`, with `$null` at index 0.
    public var objects: [PlistValue]

    public init(top: PlistDictionary, objects: [PlistValue]) {
        self.top = top
        self.objects = objects
    }

    /// Reads a binary or XML keyed archive, validating its top level as ``KeyedUnarchiver`` does.
    public init(bytes: [UInt8]) throws {
        let document = try KeyedUnarchiver.binaryDocument(bytes)
        let (top, objects) = try document.bytes.withUnsafeBytes { raw in
            let reader = BinaryArchiveReader(document: document, raw: raw)
            let (top, objects) = try ArchiveHeader.validate(reader)
            func materialize(_ index: Int) throws -> PlistValue {
                do { return try document.decodeObject(index) } catch let error as PlistError {
                    throw KeyedArchiveError(.invalidPlist, error.description, underlying: error)
                }
            }
            // $top and $objects are the values of the keys ArchiveHeader found; read them whole.
            var topValue = PlistDictionary()
            for i in 0..<top.count {
                topValue.append(key: try materialize(reader.keyReference(top, i)),
                                value: try materialize(reader.valueReference(top, i)))
            }
            var list: [PlistValue] = []
            list.reserveCapacity(objects.count)
            for i in 0..<objects.count { list.append(try materialize(reader.elementReference(objects, i))) }
            return (topValue, list)
        }
        self.init(top: top, objects: objects)
    }

    /// The UID of the object under a `$top` key (`root` by default), or `nil`.
    public func topObject(forKey key: String = "root") -> Int? {
        top[key]?.uidValue.map { Int(truncatingIfNeeded: $0.value) }
    }

    /// The dictionary of `$objects[uid]` when it is an object with a `$class`.
    public func instance(_ uid: Int) -> PlistDictionary? {
        guard uid > 0, uid < objects.count, let d = objects[uid].dictionaryValue, d["$class"] != nil else { return nil }
        return d
    }

    /// The `$classes` chain (falling back to `[$classname]`) of the object at `uid`, or `nil` for a bare
    /// value, `$null` or a malformed object.
    public func classChain(of uid: Int) -> [String]? {
        guard let d = instance(uid), let c = d["$class"]?.uidValue, c.value < UInt64(objects.count),
              let classDictionary = objects[Int(c.value)].dictionaryValue,
              let name = classDictionary["$classname"]?.stringValue
        else { return nil }
        let chain = classDictionary["$classes"]?.arrayValue?.compactMap(\.stringValue)
        return chain?.isEmpty == false ? chain : [name]
    }

    /// The fields of the object at `uid` in file order, `$class` excluded (raw, escaped keys).
    public func fields(of uid: Int) -> [(key: String, value: PlistValue)] {
        guard let d = instance(uid) else { return [] }
        return d.entries.compactMap { e in
            guard let k = e.key.stringValue, k != "$class" else { return nil }
            return (k, e.value)
        }
    }

    /// The archive as a plist value, top-level keys in Apple's modern order.
    public var plistValue: PlistValue {
        .dictionary(["$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": .dictionary(top),
                     "$objects": .array(objects)])
    }

    /// Writes the graph back as an archive.
    public func encoded(format: PlistFormat = .binary) throws -> [UInt8] {
        do { return try PropertyList.encode(plistValue, format: format) } catch let error as PlistError {
            throw KeyedArchiveError(.invalidPlist, error.description, underlying: error)
        }
    }
}
