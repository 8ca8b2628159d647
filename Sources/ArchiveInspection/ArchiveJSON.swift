import BinaryPlist
import KeyedArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// archive-JSON: the JSON forms of a keyed archive's object graph that `keyedarchive decode` prints and
/// `keyedarchive encode` reads: the tree form and the graph form.
///
/// **The tree form** (``render(_:pretty:maxObjects:)``) prints the graph from `root` as nested values:
///
/// | archived | JSON |
/// |---|---|
/// | NSString, NSMutableString | string |
/// | NSNumber | integer, `{"real": x}` or `true`/`false` |
/// | NSArray, NSMutableArray | array |
/// | NSDictionary, NSMutableDictionary | `{"dict": {k: v}}`, or `{"dict": [[k, v], ...]}` when a key is not a string |
/// | NSSet, NSMutableSet / NSOrderedSet | `{"set": [...]}` / `{"orderedset": [...]}` |
/// | NSDate / NSData / NSUUID / NSURL | `{"date": s}` / `{"data": base64}` / `{"uuid": "UPPER"}` / `{"url": absolute}` |
/// | NSNull, `$null` | `null` |
/// | any other class | `{"class": "$classname", "fields": {key: value}}`, raw keys in file order, `$class` left out |
/// | a reference back to an object still being printed | `{"ref": "$classname"}` |
/// | an archive whose `$top` is not just `root` | `{"$top": {key: value, ...}}` |
///
/// Inline scalars of fields are plist-JSON. Shared references print in full at each use, within a budget of
/// rendered objects against exponential blowup; the text is streamed, so memory does not grow with it.
/// Writing back (``encode(_:format:)``): standard classes as Apple writes them; other classes as generic
/// objects of that name (`$classes` = [name, NSObject]); in `fields`, integers, reals, booleans and data are
/// stored inline and everything else as a reference; `null` is `$null` in a field and `NSNull` inside a
/// collection; `{"ref": name}` refers to the nearest enclosing object of that class, recreating the cycle.
///
/// **The graph form** (``renderGraph(_:pretty:)``) prints every `$objects` entry once, in index order, each
/// with its index, and references as `{"$ref": n}`; it is linear in the archive however its objects share:
///
/// ```json
/// {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": {"$ref": 1}}, "$objects": [
/// {"$id": 0, "value": "$null"},
/// {"$id": 1, "class": "Note", "fields": {"title": {"$ref": 2}, "count": 3, "self": {"$ref": 1}, "$class": {"$ref": 3}}},
/// {"$id": 2, "value": "Hi"},
/// {"$id": 3, "fields": {"$classes": ["Note", "NSObject"], "$classname": "Note"}}
/// ]}
/// ```
///
/// An entry that is a dictionary with string keys is `{"$id": n, "fields": {...}}` holding all its keys in
/// file order (`$class`, `$classes`, `$classname` included), with `"class": "$classname"` before `fields`
/// when its `$class` names a class; any other entry (a string, number, data...) is `{"$id": n, "value": v}`.
/// Values are plist-JSON, as the tree form writes scalars, with each UID as `{"$ref": n}`. Compact output
/// puts each entry on a line of its own. Reading it back (``encode(_:format:)``, which recognizes the form
/// by its `$objects` key) writes the same `$objects` at the same indexes, so sharing and cycles stay as they
/// were, with plist objects in the order `KeyedArchiver` creates them: an archive it (or `ArchiveEncoder`)
/// wrote comes back byte for byte, but for what the graph does not tell (the graph then comes back, the plist
/// objects in another order): some conditional references (`encodeConditionalObject` of an object never
/// encoded, or met just before its encoding) and `ArchiveEncoder`'s nested containers (enums with
/// associated values).
///
/// ```swift
/// let json = try ArchiveJSON.render(ArchiveGraph(bytes: bytes), pretty: true)
/// let again = try ArchiveJSON.encode(json, format: .binary)
/// let graph = try ArchiveJSON.renderGraph(bytes)
/// assert(try ArchiveJSON.encode(graph) == bytes)   // for bytes written by KeyedArchiver
/// ```
///
/// No Apple API corresponds.
public enum ArchiveJSON {
    /// Renders the archive's `root` object (binary or XML input) as archive-JSON's tree form: the public
    /// `render` of its `ArchiveGraph`.
    package static func render(_ archive: [UInt8], pretty: Bool = false) throws -> String {
        try render(ArchiveGraph(bytes: archive), pretty: pretty)
    }

    /// Renders the graph's `root` object as archive-JSON's tree form. An archive whose `$top` is not exactly
    /// `root` (unkeyed `$0`, `$1`..., a nib's `IB.objectdata`) renders as `{"$top": {key: value, ...}}`.
    ///
    /// - Parameters:
    ///   - graph: the archive to render.
    ///   - pretty: whether to indent the JSON, one level per space (as Python's `json` with `indent=1`).
    ///   - maxObjects: most objects printed, counting a shared object at each use; `nil` (the default) for
    ///     `max(100_000, 16 × the archive's object count)`, room for ordinary sharing while stopping the
    ///     exponential blowup of heavily shared graphs (compiled nibs). Past it:
    ///     `KeyedArchiveError/Code/elementLimitExceeded`.
    public static func render(_ graph: ArchiveGraph, pretty: Bool = false, maxObjects: Int? = nil) throws -> String {
        var text: [UInt8] = []
        try write(graph, pretty: pretty, maxObjects: maxObjects) { text += $0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the tree form of ``render(_:pretty:maxObjects:)`` to `output` in chunks of about 64 KiB, and
    /// nothing when it fails: the objects to print are counted first without printing (``TreeFormShape``),
    /// so memory stays linear in the graph whatever the budget, and a graph whose sharing is plainly past it
    /// is refused at once.
    package static func write(_ graph: ArchiveGraph, pretty: Bool, maxObjects: Int? = nil,
                              to output: ([UInt8]) throws -> Void) throws {
        let limit = maxObjects ?? defaultMaxObjects(for: graph)
        let shape = TreeFormShape(graph, maxDepth: ArchiveJSONRenderer.maxDepth)
        let measure = shape.lowerBound(cap: limit) > limit ? .exceeds : shape.measure(limit: limit)
        switch measure {
        case .exceeds:
            throw KeyedArchiveError(.elementLimitExceeded, ArchiveJSONRenderer.budgetReason(limit),
                                    objectIndex: graph.topObject())
        case .fails:
            // A dry run throws the error where the renderer meets it.
            var dryRun = ArchiveJSONRenderer(graph: graph, budget: limit, out: .discarding(pretty: pretty))
            try dryRun.document()
        case .fits:
            break
        }
        try withoutActuallyEscaping(output) { output in
            var renderer = ArchiveJSONRenderer(graph: graph, budget: limit,
                                               out: JSONOutput(pretty: pretty, sink: output))
            try renderer.document()
        }
    }

    /// The default budget of ``render(_:pretty:maxObjects:)``: `max(100_000, 16 × the archive's object
    /// count)`, room for ordinary sharing while stopping the exponential blowup of heavily shared graphs
    /// (compiled nibs).
    package static func defaultMaxObjects(for graph: ArchiveGraph) -> Int {
        max(100_000, 16 * graph.objects.count)
    }

    /// Renders the archive (binary or XML) as archive-JSON's graph form: `$top`, then every object once with
    /// its index, references as `{"$ref": n}`.
    ///
    /// - Throws: `KeyedArchiveError` for a malformed archive, and `KeyedArchiveError/Code/elementLimitExceeded`
    ///   for one whose plist shares collections or long strings so much that the text would be far longer
    ///   than the archive (no archiver writes such a file).
    public static func renderGraph(_ archive: [UInt8], pretty: Bool = false) throws -> String {
        var text: [UInt8] = []
        try writeGraph(archive, pretty: pretty, acceptedArchivers: .nsKeyedArchiver) { text += $0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the graph form of ``renderGraph(_:pretty:)`` to `output` in chunks of about 64 KiB, and nothing
    /// when it fails, and returns the archive's `$archiver` (one of `acceptedArchivers`; the graph form itself
    /// always names NSKeyedArchiver). Memory stays within a few times the archive.
    @discardableResult
    package static func writeGraph(_ archive: [UInt8], pretty: Bool, acceptedArchivers: AcceptedArchivers,
                                   to output: ([UInt8]) throws -> Void) throws -> String {
        try GraphFormPrinter.print(archive, pretty: pretty, acceptedArchivers: acceptedArchivers, to: output)
    }

    /// Writes the archive that archive-JSON text describes, in either form (the graph form is an object with
    /// an `$objects` key).
    /// - Throws: `PlistError` with code `PlistError/Code/invalidJSON` and format `archive-json` for text that
    ///   is not JSON (with the byte offset) or does not describe an archive (with the place in the document:
    ///   `graph form: $objects[3]: ...`); `KeyedArchiveError` when the archiver cannot write what it describes.
    public static func encode(_ json: String, format: PlistFormat = .binary) throws -> [UInt8] {
        var parser = JSONNodeParser(Array(json.utf8), maxDepth: 512)
        let node = try parser.parseDocument()
        if case .object(let entries) = node, entries.contains(where: { $0.0 == "$objects" }) {
            let (top, objects) = try GraphFormReader.read(entries)
            var dictionary = PlistDictionary()
            for (key, value) in top { dictionary.append(key: .string(key), value: value) }
            return try ArchiveGraph(top: dictionary, objects: objects).encodedInArchiverOrder(format: format)
        }
        var builder = ArchiveJSONBuilder()
        // `{"ref": ...}` makes the objects refer to each other strongly: emptied once written (or on failure).
        defer { for generic in builder.built { generic.fields = [] } }
        let archiver = KeyedArchiver(outputFormat: format)
        if let topEntries = node.topEntries {
            try builder.requireUniqueKeys(topEntries, "$top")
            for (key, value) in topEntries {
                archiver.encode(try builder.field(value, depth: 1), forArchivedKey: key)
            }
        } else {
            archiver.encodeObject(try builder.object(node, inCollection: false, depth: 0), forKey: "root")
        }
        return try archiver.finishEncoding()
    }
}

/// Walks an `ArchiveGraph` into archive-JSON's tree form, writing as it goes.
struct ArchiveJSONRenderer {
    let graph: ArchiveGraph
    let limit: Int
    var budget: Int
    var onPath: Set<Int> = []
    var out: JSONOutput
    static let maxDepth = 512
    var maxDepth: Int { Self.maxDepth }

    init(graph: ArchiveGraph, budget: Int, out: JSONOutput) {
        self.graph = graph
        self.limit = budget
        self.budget = budget
        self.out = out
    }

    static func budgetReason(_ limit: Int) -> String {
        "more than \(limit) objects to print (shared references print in full at each use)"
    }

    func fail(_ code: KeyedArchiveError.Code, _ reason: String, _ uid: Int) -> KeyedArchiveError {
        KeyedArchiveError(code, reason, objectIndex: uid, classChain: graph.classChain(of: uid))
    }

    /// The `root` object, or `{"$top": {...}}` when `$top` holds more than `root`.
    mutating func document() throws {
        if graph.top.count == 1, let root = graph.top["root"] {
            try value(root, depth: 0)
        } else {
            out.w.open(.object)
            out.w.item(first: true)
            out.w.key("$top")
            out.w.open(.object)
            for (i, e) in graph.top.entries.enumerated() {
                out.w.item(first: i == 0)
                out.w.key(e.key.stringValue ?? "")
                try value(e.value, depth: 0)
            }
            out.w.close(.object, empty: graph.top.isEmpty)
            out.w.close(.object, empty: false)
        }
        try out.flush()
    }

    /// A field or `$top` value: a reference is followed, an inline array of references mapped, a scalar as plist-JSON.
    mutating func value(_ v: PlistValue, depth: Int) throws {
        switch v {
        case .uid(let u): try object(Int(truncatingIfNeeded: u.value), depth: depth)
        case .array(let items) where items.contains(where: { $0.uidValue != nil }):
            try list(items, depth: depth)
        default: out.w.plist(v)
        }
    }

    mutating func list(_ items: [PlistValue], depth: Int) throws {
        out.w.open(.array)
        for (i, item) in items.enumerated() {
            out.w.item(first: i == 0)
            try value(item, depth: depth)
        }
        out.w.close(.array, empty: items.isEmpty)
    }

    mutating func object(_ uid: Int, depth: Int) throws {
        if uid == 0 { return out.w.raw("null") }
        guard uid > 0 && uid < graph.objects.count else {
            throw fail(.invalidReference, "UID \(uid) is not below the \(graph.objects.count) objects", uid)
        }
        guard depth < maxDepth else { throw fail(.depthLimitExceeded, "objects nest deeper than \(maxDepth)", uid) }
        budget -= 1
        guard budget >= 0 else { throw fail(.elementLimitExceeded, Self.budgetReason(limit), uid) }
        let entry = graph.objects[uid]
        guard case .dictionary(let d) = entry else {
            guard !entry.isCollection else {
                throw fail(.invalidValue, "object \(uid) is a plist \(entry.kindName), not an archived object", uid)
            }
            return out.w.plist(entry)
        }
        guard let chain = graph.classChain(of: uid), let name = chain.first else {
            throw fail(.invalidClass, "object \(uid) has no valid $class", uid)
        }
        if onPath.contains(uid) { return out.w.wrapped("ref") { $0.string(name) } }
        onPath.insert(uid)
        defer { onPath.remove(uid) }
        try standardObject(uid, d, name, depth: depth)
        try out.flushIfFull()
    }

    /// `{"key": [...]}`.
    mutating func wrappedList(_ key: String, _ items: [PlistValue], depth: Int) throws {
        out.w.open(.object)
        out.w.item(first: true)
        out.w.key(key)
        try list(items, depth: depth)
        out.w.close(.object, empty: false)
    }

    /// A list-valued field (`NS.keys`, `NS.objects`): absent is empty.
    func items(_ d: PlistDictionary, _ key: String, _ uid: Int) throws -> [PlistValue] {
        guard let v = d[key] else { return [] }
        guard case .array(let items) = v else { throw fail(.invalidValue, "\(key) is not an array", uid) }
        return items
    }

    mutating func standardObject(_ uid: Int, _ d: PlistDictionary, _ name: String, depth: Int) throws {
        switch ArchivedClassKind(className: name) {
        case .string?:
            if let s = d["NS.string"] { return try value(s, depth: depth + 1) }
        case .data?:
            if let s = d["NS.data"] { return try value(s, depth: depth + 1) }
        case .array?:
            return try list(items(d, "NS.objects", uid), depth: depth + 1)
        case .set?:
            let members = try items(d, "NS.objects", uid)
            return try wrappedList("set", members, depth: depth + 1)
        case .orderedSet?:
            var members: [PlistValue] = []
            while let v = d["NS.object.\(members.count)"] { members.append(v) }
            return try wrappedList("orderedset", members, depth: depth + 1)
        case .dictionary?:
            return try dictionary(uid, d, depth: depth)
        case .date?:
            if let t = d["NS.time"], let s = t.realValue ?? t.integerValue?.int64Value.map(Double.init) {
                return out.w.plist(.date(PlistDate(secondsSinceReferenceDate: s)))
            }
        case .uuid?:
            if let b = d["NS.uuidbytes"]?.dataValue, b.count == 16 {
                let u = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                                    b[13], b[14], b[15]))
                return out.w.wrapped("uuid") { $0.string(u.uuidString.uppercased()) }
            }
        case .url?:
            if let url = absoluteURL(uid, depth: depth) { return out.w.wrapped("url") { $0.string(url) } }
        case .null?:
            return out.w.raw("null")
        default:  // every other class, built in or not, as its fields
            break
        }
        let fields = graph.fields(of: uid)
        out.w.open(.object)
        out.w.item(first: true)
        out.w.key("class")
        out.w.string(name)
        out.w.item(first: false)
        out.w.key("fields")
        out.w.open(.object)
        for (i, (key, v)) in fields.enumerated() {
            out.w.item(first: i == 0)
            out.w.key(key)
            try value(v, depth: depth + 1)
        }
        out.w.close(.object, empty: fields.isEmpty)
        out.w.close(.object, empty: false)
    }

    /// `{"dict": {k: v}}` when every key renders as a string, else `{"dict": [[k, v], ...]}`. As when keys
    /// were rendered before values: the budget pays for all keys first.
    mutating func dictionary(_ uid: Int, _ d: PlistDictionary, depth: Int) throws {
        let keys = try items(d, "NS.keys", uid)
        let values = try items(d, "NS.objects", uid)
        guard keys.count == values.count else {
            throw fail(.invalidValue, "NS.keys has \(keys.count) entries but NS.objects has \(values.count)", uid)
        }
        var texts: [String] = []
        var cost = 0
        for k in keys {
            guard let t = keyText(k, depth: depth + 1, path: []) else { break }
            texts.append(t.text)
            cost += t.objects
        }
        out.w.open(.object)
        out.w.item(first: true)
        out.w.key("dict")
        if texts.count == keys.count {
            budget -= cost
            guard budget >= 0 else { throw fail(.elementLimitExceeded, Self.budgetReason(limit), uid) }
            out.w.open(.object)
            for i in keys.indices {
                out.w.item(first: i == 0)
                out.w.key(texts[i])
                try value(values[i], depth: depth + 1)
            }
            out.w.close(.object, empty: keys.isEmpty)
        } else {
            out.w.open(.array)
            for i in keys.indices {
                out.w.item(first: i == 0)
                out.w.open(.array)
                out.w.item(first: true)
                try value(keys[i], depth: depth + 1)
                out.w.item(first: false)
                try value(values[i], depth: depth + 1)
                out.w.close(.array, empty: false)
            }
            out.w.close(.array, empty: keys.isEmpty)
        }
        out.w.close(.object, empty: false)
    }

    /// The text of a dictionary key that renders as a JSON string, with the number of objects rendering it
    /// visits (each paid from the budget, as ``object(_:depth:)`` pays); `nil` when it renders as anything else.
    func keyText(_ v: PlistValue, depth: Int, path: [Int]) -> (text: String, objects: Int)? {
        switch v {
        case .string(let s):
            return (s, 0)
        case .uid(let u):
            let uid = Int(truncatingIfNeeded: u.value)
            guard uid > 0, uid < graph.objects.count, depth < maxDepth else { return nil }
            let entry = graph.objects[uid]
            guard case .dictionary(let d) = entry else { return entry.stringValue.map { ($0, 1) } }
            guard let name = graph.classChain(of: uid)?.first, !onPath.contains(uid), !path.contains(uid) else {
                return nil
            }
            let inner: PlistValue?
            switch ArchivedClassKind(className: name) {
            case .string?: inner = d["NS.string"]
            case .data?: inner = d["NS.data"]
            default: inner = nil
            }
            guard let inner, let found = keyText(inner, depth: depth + 1, path: path + [uid]) else { return nil }
            return (found.text, found.objects + 1)
        default:
            return nil
        }
    }

    /// The absolute string of the NSURL at `uid` (resolving `NS.base`), or `nil` when malformed.
    func absoluteURL(_ uid: Int, depth: Int) -> String? {
        TreeFormShape.absoluteURL(graph, uid, depth: depth, maxDepth: maxDepth)
    }
}

/// Turns archive-JSON into values the archiver writes.
struct ArchiveJSONBuilder {
    var enclosing: [ArchivedObject] = []
    /// Every generic object made, so that the caller can break the cycles that refs made.
    var built: [ArchivedObject] = []

    func fail(_ reason: String) -> PlistError { PlistError(.invalidJSON, reason, format: "archive-json") }

    /// An archived object's keys, like a dictionary's, are unique (the graph form refuses repeats too).
    func requireUniqueKeys(_ entries: [(String, JSONNode)], _ place: String) throws {
        var seen = Set<String>()
        for (key, _) in entries where !seen.insert(key).inserted { throw fail("\(place): duplicate key \"\(key)\"") }
    }

    mutating func object(_ node: JSONNode, inCollection: Bool, depth: Int) throws -> Any? {
        guard depth < 512 else { throw fail("nesting deeper than 512") }
        switch node {
        case .null: return inCollection ? ArchivedNull() : nil
        case .bool(let b): return b
        case .string(let s): return s
        case .number(let n): return try integer(n)
        case .plist(let v): throw fail("unexpected inline \(v.kindName)")  // parsing never makes these
        case .array(let items): return try items.map { try object($0, inCollection: true, depth: depth + 1) ?? ArchivedNull() }
        case .object(let entries):
            if entries.count == 2, entries[0].0 == "class", case .string(let name) = entries[0].1,
               entries[1].0 == "fields", case .object(let fields) = entries[1].1 {
                let generic = ArchivedObject(classChain: [name, "NSObject"])
                built.append(generic)
                enclosing.append(generic)
                defer { enclosing.removeLast() }
                try requireUniqueKeys(fields, "fields of \"\(name)\"")
                // The archiver writes `$class` itself; a field of that name would be a second one.
                if fields.contains(where: { $0.0 == "$class" }) { throw fail("fields of \"\(name)\": \"$class\" is not a field") }
                for (key, v) in fields { generic.fields.append((key, try field(v, depth: depth + 1))) }
                return generic
            }
            guard entries.count == 1 else { throw fail("an object must be a one-key wrapper or {class, fields}") }
            let (key, payload) = entries[0]
            switch (key, payload) {
            case ("real", _): return try real(payload)
            case ("date", _): return Date(timeIntervalSinceReferenceDate: try real(payload))
            case ("data", .string(let b64)):
                guard let d = Base64.decode(b64) else { throw fail("invalid base64") }
                return Data(d)
            case ("uuid", .string(let s)):
                guard let u = UUID(uuidString: s) else { throw fail("invalid UUID \"\(s)\"") }
                return u
            case ("url", .string(let s)):
                guard let u = URL(string: s) else { throw fail("invalid URL \"\(s)\"") }
                return u
            case ("set", .array(let items)):
                return OrderedArchiveSet(members: try items.map { try object($0, inCollection: true, depth: depth + 1) ?? ArchivedNull() })
            case ("orderedset", .array(let items)):
                return ArchivedOrderedSet(try items.map { try hashable(object($0, inCollection: true, depth: depth + 1)) })
            case ("dict", .object(let pairs)):
                try requireUniqueKeys(pairs, "dict")
                var d = OrderedArchiveDictionary()
                for (k, v) in pairs {
                    d.keys.append(k)
                    d.values.append(try object(v, inCollection: true, depth: depth + 1) ?? ArchivedNull())
                }
                return d
            case ("dict", .array(let pairs)):
                var d = OrderedArchiveDictionary()
                for pair in pairs {
                    guard case .array(let kv) = pair, kv.count == 2 else { throw fail("dict pairs must be [key, value]") }
                    d.keys.append(try object(kv[0], inCollection: true, depth: depth + 1) ?? ArchivedNull())
                    d.values.append(try object(kv[1], inCollection: true, depth: depth + 1) ?? ArchivedNull())
                }
                return d
            case ("ref", .string(let name)):
                guard let target = enclosing.last(where: { $0.className == name }) else {
                    throw fail("{\"ref\": \"\(name)\"} has no enclosing object of that class")
                }
                return target
            default:
                throw fail("unknown wrapper {\"\(key)\": ...}")
            }
        }
    }

    /// A field of a generic object: numbers, booleans and data inline; the rest as references.
    mutating func field(_ node: JSONNode, depth: Int) throws -> ArchivedObject.Field {
        switch node {
        case .bool(let b): return .value(.bool(b))
        case .number(let n):
            let v = try integer(n)
            if let i = v as? Int { return .value(.integer(PlistInteger(i))) }
            if let u = v as? UInt64 { return .value(.integer(PlistInteger(u))) }
            return .value(.real(try real(node)))
        case .object(let e) where e.count == 1 && e[0].0 == "real": return .value(.real(try real(e[0].1)))
        case .object(let e) where e.count == 1 && e[0].0 == "data":
            guard case .string(let b64) = e[0].1, let d = Base64.decode(b64) else { throw fail("invalid base64") }
            return .value(.data(d))
        default: return .object(try object(node, inCollection: false, depth: depth))
        }
    }

    func integer(_ text: String) throws -> Any {
        if let i = Int(text) { return i }
        if let u = UInt64(text) { return u }
        throw fail("\(text) is not an integer (write reals as {\"real\": x})")
    }

    func real(_ node: JSONNode) throws -> Double {
        switch node {
        case .number(let n): if let d = Double(n) { return d }
        case .string("nan"): return .nan
        case .string("inf"): return .infinity
        case .string("-inf"): return -.infinity
        default: break
        }
        throw fail("not a real number")
    }

    func hashable(_ v: Any?) throws -> AnyHashable {
        guard let v else { return AnyHashable(ArchivedNull()) }
        guard let h = v as? AnyHashable else { throw fail("a \(type(of: v)) cannot be a key or set member") }
        return h
    }
}
