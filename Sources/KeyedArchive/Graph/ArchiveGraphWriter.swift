import BinaryPlist

/// Writes the keyed archive that a graph describes: `$top` and `$objects` exactly as given (every object keeps
/// its index, every reference its target, every key its place), as a binary plist whose objects come in the
/// order ``KeyedArchiver`` creates them, so that the graph of an archive it wrote gives back the same bytes.
///
/// The archiver numbers objects as it meets them, depth first from `$top`, and creates plist objects as it
/// goes: a field's key, then what its value needs, then the value; an instance's dictionary after its fields;
/// its class dictionary (the class names, `$classes`, `$classname`) before the `$class` key that refers to it;
/// an `NSDictionary`'s `NS.keys` and `NS.objects` keys after both arrays. This writer walks the graph in that
/// order. Numbering tells it when the archiver met an object: a reference to an object not yet numbered,
/// that the archiver would not number next, is one the archiver wrote as a conditional reference (its UID
/// object is created after the graph). Objects nothing reaches, or nested deeper than ``maxDepth``, are
/// written after the walk in index order.
///
/// Archives of other writers (Apple's) keep their graph (the same objects, indexes and sharing); their bytes
/// differ, as plist objects are uniqued and ordered the way this package writes them. What the graph does
/// not tell, so that an archive of ours keeps its graph but may come back with its plist objects in another
/// order: a conditional reference to an object never encoded (it reads as `$null`, as a nil does) or met just
/// before the object's encoding with nothing encoded in between (it reads as that encoding), and the
/// collections of `ArchiveEncoder`'s nested containers (`nestedContainer`, `nestedUnkeyedContainer`,
/// `superEncoder(forKey:)`, as enums with associated values use), which it writes after the value holding them.
struct ArchiveGraphWriter {
    private var builder = ArchivePlistBuilder()
    private let objects: [PlistValue]
    /// The plist object of each `$objects` entry (-1 until written).
    private var nodes: [Int32]
    private var visited: [Bool]
    /// How many objects the archiver would have numbered by now.
    private var numbered = 0
    /// Targets of references written as placeholders, resolved once the graph is written (as the archiver
    /// resolves its conditional references).
    private var deferred: [Int] = []
    /// The archiver's default depth limit: it writes no instance deeper (its strings, numbers and class
    /// dictionaries go one level further), and the walk's recursion stays bounded.
    static let maxDepth = 512

    private init(objects: [PlistValue]) {
        self.objects = objects
        nodes = [Int32](repeating: -1, count: objects.count)
        visited = [Bool](repeating: false, count: objects.count)
    }

    /// The archive of `top` and `objects` (whose entry 0 is `$null` and whose UIDs are below their count, as
    /// ``GraphFormReader`` checks), in `format`.
    static func encode(top: [(key: String, value: PlistValue)], objects: [PlistValue],
                       format: PlistFormat) throws -> [UInt8] {
        var writer = ArchiveGraphWriter(objects: objects)
        return try writer.write(top: top, format: format)
    }

    private mutating func write(top: [(key: String, value: PlistValue)], format: PlistFormat) throws -> [UInt8] {
        if !objects.isEmpty {
            nodes[0] = builder.string("$null")
            visited[0] = true
            numbered = 1
        }
        var pairs: [Int32] = []
        for (key, value) in top {
            pairs.append(builder.string(key))
            pairs.append(field(value, depth: 0))
        }
        for uid in objects.indices where !visited[uid] { visit(uid, depth: 0) }
        // KeyedArchiver.finishEncoding(): conditional references, $top, $objects, then the header.
        if !deferred.isEmpty {
            var resolved: [Int32] = []
            for uid in deferred { resolved.append(builder.uid(uid)) }
            builder.resolvePlaceholders { resolved[Int(-$0) - 1] }
            pairs = pairs.map { $0 < 0 ? resolved[Int(-$0) - 1] : $0 }
        }
        let topNode = builder.dictionary(pairs: pairs[...])
        let objectsNode = builder.collection(.array, nodes)
        let keys = [builder.string("$version"), builder.string("$archiver"), builder.string("$top"),
                    builder.string("$objects")]
        let values = [builder.integer(100_000), builder.string("NSKeyedArchiver"), topNode, objectsNode]
        var root: [Int32] = []
        for i in 0..<4 {
            root.append(keys[i])
            root.append(values[i])
        }
        let rootNode = builder.dictionary(pairs: root[...])
        return try builder.serialize(top: rootNode, format: format)
    }

    // MARK: Values

    /// The plist object of a field's value (or a `$top` value): references reach their objects first.
    private mutating func field(_ value: PlistValue, depth: Int) -> Int32 {
        switch value {
        case .uid(let u):
            let uid = Int(truncatingIfNeeded: u.value)
            reach(uid, depth: depth)
            return reference(uid)
        case .array(let items) where items.contains(where: { $0.uidValue != nil }):
            var refs: [Int32] = []
            refs.reserveCapacity(items.count)
            for item in items { refs.append(field(item, depth: depth)) }
            return builder.collection(.array, refs)
        default:
            return builder.scalar(value)
        }
    }

    /// Writes the object `uid` now if the archiver met it here: it is not written yet and is the next the
    /// archiver numbers (or the graph does not follow the archiver's numbering there).
    private mutating func reach(_ uid: Int, depth: Int) {
        guard uid >= 0, uid < objects.count, !visited[uid], uid <= numbered, depth <= Self.maxDepth else { return }
        visit(uid, depth: depth)
    }

    /// The UID object for a reference to `uid`, or a placeholder when its object is not written yet.
    private mutating func reference(_ uid: Int) -> Int32 {
        if uid >= 0, uid < objects.count, !visited[uid] {
            deferred.append(uid)
            return Int32(truncatingIfNeeded: -deferred.count)
        }
        return builder.uid(uid)
    }

    // MARK: Objects

    private mutating func visit(_ uid: Int, depth: Int) {
        visited[uid] = true
        guard case .dictionary(let d) = objects[uid] else {
            // A bare string, number or data object: numbered once its plist object exists.
            nodes[uid] = builder.scalar(objects[uid])
            numbered += 1
            return
        }
        if d.hasOnlyStringKeys, d["$class"] != nil {
            // An instance: numbered first, then its fields.
            numbered += 1
            nodes[uid] = instance(d, depth: depth)
        } else if let chain = classChain(d) {
            nodes[uid] = classDictionary(chain, name: d["$classname"]?.stringValue ?? "")
            numbered += 1
        } else {
            var pairs: [Int32] = []
            for e in d.entries {
                pairs.append(builder.scalar(e.key))
                pairs.append(field(e.value, depth: depth + 1))
            }
            nodes[uid] = builder.dictionary(pairs: pairs[...])
            numbered += 1
        }
    }

    private mutating func instance(_ d: PlistDictionary, depth: Int) -> Int32 {
        var pairs: [Int32] = []
        pairs.reserveCapacity(2 * d.count)
        if isStandardDictionary(d), let keys = d["NS.keys"], let values = d["NS.objects"],
           let classValue = d["$class"] {
            // NSDictionary: both arrays, then their keys.
            let keysNode = field(keys, depth: depth + 1)
            let valuesNode = field(values, depth: depth + 1)
            pairs += [builder.string("NS.keys"), keysNode, builder.string("NS.objects"), valuesNode]
            pairs += classField(classValue, depth: depth)
            return builder.dictionary(pairs: pairs[...])
        }
        for e in d.entries {
            guard case .string(let key) = e.key else { continue }  // hasOnlyStringKeys was checked
            if key == "$class" {
                pairs += classField(e.value, depth: depth)
            } else {
                pairs.append(builder.string(key))
                pairs.append(field(e.value, depth: depth + 1))
            }
        }
        return builder.dictionary(pairs: pairs[...])
    }

    /// `$class` and its value: the class dictionary is written before the key.
    private mutating func classField(_ value: PlistValue, depth: Int) -> [Int32] {
        guard case .uid(let u) = value else { return [builder.string("$class"), field(value, depth: depth + 1)] }
        let uid = Int(truncatingIfNeeded: u.value)
        reach(uid, depth: depth + 1)
        let key = builder.string("$class")
        return [key, reference(uid)]
    }

    /// `{$classes: [names], $classname: name}` as ``KeyedArchiver/classObject(chain:)`` writes it.
    private mutating func classDictionary(_ chain: [String], name: String) -> Int32 {
        var names: [Int32] = []
        for n in chain { names.append(builder.string(n)) }
        let classes = builder.collection(.array, names)
        let pairs = [builder.string("$classes"), classes, builder.string("$classname"), builder.string(name)]
        return builder.dictionary(pairs: pairs[...])
    }

    /// The `$classes` of a dictionary that is exactly `{$classes: [strings], $classname: string}`, in that order.
    private func classChain(_ d: PlistDictionary) -> [String]? {
        guard d.count == 2, d.entries[0].key == .string("$classes"), d.entries[1].key == .string("$classname"),
              case .array(let list) = d.entries[0].value, case .string = d.entries[1].value
        else { return nil }
        let chain = list.compactMap(\.stringValue)
        return chain.count == list.count ? chain : nil
    }

    /// Whether `d` is `{NS.keys: [...], NS.objects: [...], $class}` of an NSDictionary or NSMutableDictionary.
    private func isStandardDictionary(_ d: PlistDictionary) -> Bool {
        guard d.count == 3, d.entries[0].key == .string("NS.keys"), d.entries[1].key == .string("NS.objects"),
              d.entries[2].key == .string("$class"), d.entries[0].value.arrayValue != nil,
              d.entries[1].value.arrayValue != nil,
              case .uid(let u) = d.entries[2].value, u.value < UInt64(objects.count),
              let name = objects[Int(u.value)].dictionaryValue?["$classname"]?.stringValue
        else { return false }
        return name == "NSDictionary" || name == "NSMutableDictionary"
    }
}
