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
    /// `$archiver`: the name of the archiver that wrote the archive ("NSKeyedArchiver" for Apple's).
    public var archiver: String

    /// A graph of `$top`, `$objects` and `$archiver` as given, unchecked (see ``validate()``).
    public init(top: PlistDictionary, objects: [PlistValue], archiver: String = "NSKeyedArchiver") {
        self.top = top
        self.objects = objects
        self.archiver = archiver
    }

    /// Reads a binary or XML keyed archive, validating its top level as ``KeyedUnarchiver`` does: an
    /// `$archiver` outside `acceptedArchivers` (by default anything but "NSKeyedArchiver") is a
    /// ``KeyedArchiveError/Code/foreignArchiver`` error. Pass ``AcceptedArchivers/any`` and read ``archiver``
    /// to learn which archiver wrote a file.
    public init(bytes: [UInt8], acceptedArchivers: AcceptedArchivers = .nsKeyedArchiver) throws {
        try self.init(document: KeyedUnarchiver.binaryDocument(bytes), root: nil, acceptedArchivers: acceptedArchivers)
    }

    /// Reads the keyed archive in `document`. `root`, when given, is the document's top object already
    /// materialized (``BinaryPlistDocument/decodeTopObject()``): `$top` and `$objects` are then taken from it
    /// instead of being read a second time.
    package init(document: BinaryPlistDocument, root: PlistValue?, acceptedArchivers: AcceptedArchivers) throws {
        let (header, top, objects) = try document.withObjects { objects in
            let reader = ArchiveObjectReader(objects)
            let header = try ArchiveHeader(reader, acceptedArchivers: acceptedArchivers)
            if let entries = root?.dictionaryValue?.entries, header.topPosition < entries.count,
               header.objectsPosition < entries.count,
               entries[header.topPosition].key == "$top", entries[header.objectsPosition].key == "$objects",
               case .dictionary(let top) = entries[header.topPosition].value,
               case .array(let objects) = entries[header.objectsPosition].value {
                return (header, top, objects)
            }
            func materialize(_ index: Int) throws -> PlistValue { try reader.materialize(index) }
            // $top and $objects are the values of the keys ArchiveHeader found; read them whole.
            var topValue = PlistDictionary()
            for i in 0..<header.top.count {
                topValue.append(key: try materialize(reader.keyReference(header.top, i)),
                                value: try materialize(reader.valueReference(header.top, i)))
            }
            var list: [PlistValue] = []
            list.reserveCapacity(header.objects.count)
            for i in 0..<header.objects.count {
                list.append(try materialize(reader.elementReference(header.objects, i)))
            }
            return (header, topValue, list)
        }
        self.init(top: top, objects: objects, archiver: header.archiver)
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

    /// The `$classes` chain (`[$classname]` when `$classes` is absent) of the object at `uid`, or `nil` for
    /// a bare value, `$null` or a malformed object (`$classname` not a string, `$classes` not an array of
    /// strings).
    public func classChain(of uid: Int) -> [String]? {
        guard let d = instance(uid), let c = d["$class"]?.uidValue, c.value < UInt64(objects.count),
              let classDictionary = objects[Int(c.value)].dictionaryValue,
              let name = classDictionary["$classname"]?.stringValue
        else { return nil }
        guard let classes = classDictionary["$classes"] else { return [name] }
        guard let list = classes.arrayValue else { return nil }
        let chain = list.compactMap(\.stringValue)
        guard chain.count == list.count else { return nil }
        return chain.isEmpty ? [name] : chain
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
        .dictionary(["$version": 100_000, "$archiver": .string(archiver), "$top": .dictionary(top),
                     "$objects": .array(objects)])
    }

    /// Writes the graph back as an archive.
    public func encoded(format: PlistFormat = .binary) throws -> [UInt8] {
        do { return try PropertyList.encode(plistValue, format: format) } catch let error as PlistError {
            throw KeyedArchiveError(.invalidPlist, error.description, underlying: error)
        }
    }

    /// Writes the graph back as ``KeyedArchiver`` writes an archive: the same `$top` and `$objects`, with
    /// the plist objects created in the archiver's order, so that the graph of an archive this package wrote
    /// gives back that archive's bytes. (``encoded(format:)`` writes the graph as any property list instead.)
    ///
    /// - Throws: ``KeyedArchiveError`` with ``KeyedArchiveError/Code/invalidHeader`` when `$objects[0]` is not
    ///   `"$null"` or a `$top` key is not a string, ``KeyedArchiveError/Code/invalidReference`` (with the
    ///   object's index) for a UID at or past the object count.
    public func encodedInArchiverOrder(format: PlistFormat = .binary) throws -> [UInt8] {
        guard objects.first == .string("$null") else {
            throw KeyedArchiveError(.invalidHeader, "$objects[0] is not \"$null\"")
        }
        var entries: [(key: String, value: PlistValue)] = []
        entries.reserveCapacity(top.count)
        for (i, entry) in top.entries.enumerated() {
            guard case .string(let key) = entry.key else {
                throw KeyedArchiveError(.invalidHeader, "$top key \(i) is \(entry.key.kindNameWithArticle), not a string")
            }
            entries.append((key, entry.value))
        }
        try Self.requireReferences(in: entries.map(\.value), below: objects.count, object: nil)
        for (uid, object) in objects.enumerated() {
            try Self.requireReferences(in: [object], below: objects.count, object: uid)
        }
        return try ArchiveGraphWriter.encode(top: entries, objects: objects, format: format)
    }

    /// Checks that every UID in `values`, at any depth, is below `count` (without recursion).
    private static func requireReferences(in values: [PlistValue], below count: Int, object: Int?) throws {
        var pending = values
        while let value = pending.popLast() {
            switch value {
            case .uid(let u) where u.value >= UInt64(count):
                throw KeyedArchiveError(.invalidReference, "UID \(u.value) is not below the \(count) objects",
                                        objectIndex: object)
            case .array(let items), .set(let items): pending.append(contentsOf: items)
            case .dictionary(let d): for e in d.entries { pending.append(e.key); pending.append(e.value) }
            default: continue
            }
        }
    }
}
