import BinaryPlist
import FoundationEssentials

/// archive-JSON: the JSON form of a keyed archive's object graph that `keyedarchive decode` prints and
/// `keyedarchive encode` reads (issue 3, "Inspector verbs").
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
/// Inline scalars of fields are plist-JSON. Shared references print in full at each use (with a budget of
/// rendered objects against exponential blowup). Writing back (``encode(_:format:)``): standard classes as
/// Apple writes them; other classes as generic objects of that name (`$classes` = [name, NSObject]); in
/// `fields`, integers, reals, booleans and data are stored inline and everything else as a reference;
/// `null` is `$null` in a field and `NSNull` inside a collection; `{"ref": name}` refers to the nearest
/// enclosing object of that class, recreating the cycle.
///
/// ```swift
/// let json = try ArchiveJSON.render(bytes, pretty: true)
/// let again = try ArchiveJSON.encode(json, format: .binary)
/// ```
///
/// No Apple API corresponds.
public enum ArchiveJSON {
    /// Renders the archive's `root` object (binary or XML input) as archive-JSON.
    public static func render(_ archive: [UInt8], pretty: Bool = false) throws -> String {
        try render(ArchiveGraph(bytes: archive), pretty: pretty)
    }

    /// Renders the graph's `root` object as archive-JSON. An archive whose `$top` is not exactly `root`
    /// (unkeyed `$0`, `$1`..., a nib's `IB.objectdata`) renders as `{"$top": {key: value, ...}}`.
    ///
    /// - Parameter maxObjects: most objects printed, counting a shared object at each use; default
    ///   ``defaultMaxObjects(for:)``. Past it: ``KeyedArchiveError/Code/elementLimitExceeded``.
    public static func render(_ graph: ArchiveGraph, pretty: Bool = false, maxObjects: Int? = nil) throws -> String {
        var renderer = ArchiveJSONRenderer(graph: graph, budget: maxObjects ?? defaultMaxObjects(for: graph))
        if graph.top.count == 1, let root = graph.top["root"] {
            return try renderer.value(root, depth: 0).render(pretty: pretty)
        }
        var entries: [(String, JSONNode)] = []
        for e in graph.top.entries {
            entries.append((e.key.stringValue ?? "", try renderer.value(e.value, depth: 0)))
        }
        return JSONNode.wrapped("$top", .object(entries)).render(pretty: pretty)
    }

    /// The default budget of ``render(_:pretty:maxObjects:)``: `max(100_000, 16 × the archive's object
    /// count)`, room for ordinary sharing while stopping the exponential blowup of heavily shared graphs
    /// (compiled nibs).
    public static func defaultMaxObjects(for graph: ArchiveGraph) -> Int {
        max(100_000, 16 * graph.objects.count)
    }

    /// Writes the archive that archive-JSON text describes.
    public static func encode(_ json: String, format: PlistFormat = .binary) throws -> [UInt8] {
        var parser = JSONNodeParser(Array(json.utf8), maxDepth: 512)
        let node = try parser.parseDocument()
        var builder = ArchiveJSONBuilder()
        let archiver = KeyedArchiver(outputFormat: format)
        if let topEntries = node.topEntries {
            for (key, value) in topEntries {
                switch try builder.field(value, depth: 1) {
                case .value(let v): archiver.encodeRawPlistValue(v, forRawKey: key)
                case .object(let o): archiver.encodeRawObject(o, forRawKey: key)
                case .objects(let list): archiver.encodeRawObjectArray(list, forRawKey: key)
                }
            }
        } else {
            archiver.encodeValue(try builder.object(node, inCollection: false, depth: 0), forKey: "root")
        }
        return try archiver.finishEncoding()
    }
}

/// Walks an ``ArchiveGraph`` into archive-JSON.
struct ArchiveJSONRenderer {
    let graph: ArchiveGraph
    let limit: Int
    var budget: Int
    var onPath: Set<Int> = []
    let maxDepth = 512

    init(graph: ArchiveGraph, budget: Int) {
        self.graph = graph
        self.limit = budget
        self.budget = budget
    }

    func fail(_ code: KeyedArchiveError.Code, _ reason: String, _ uid: Int) -> KeyedArchiveError {
        KeyedArchiveError(code, reason, objectIndex: uid, classChain: graph.classChain(of: uid))
    }

    /// A field or `$top` value: a reference is followed, an inline array of references mapped, a scalar as plist-JSON.
    mutating func value(_ v: PlistValue, depth: Int) throws -> JSONNode {
        switch v {
        case .uid(let u): return try object(Int(truncatingIfNeeded: u.value), depth: depth)
        case .array(let items) where items.contains(where: { $0.uidValue != nil }):
            return .array(try items.map { try value($0, depth: depth) })
        default: return .plist(v)
        }
    }

    mutating func object(_ uid: Int, depth: Int) throws -> JSONNode {
        if uid == 0 { return .null }
        guard uid > 0 && uid < graph.objects.count else {
            throw fail(.invalidReference, "UID \(uid) is not below the \(graph.objects.count) objects", uid)
        }
        guard depth < maxDepth else { throw fail(.depthLimitExceeded, "objects nest deeper than \(maxDepth)", uid) }
        budget -= 1
        guard budget >= 0 else { throw fail(.elementLimitExceeded, "more than \(limit) objects to print (shared references print in full at each use)", uid) }
        let entry = graph.objects[uid]
        guard case .dictionary(let d) = entry else {
            if case .dictionary = entry {} else if !entry.isCollection { return .plist(entry) }
            throw fail(.invalidValue, "object \(uid) is a plist \(entry.kindName), not an archived object", uid)
        }
        guard let chain = graph.classChain(of: uid), let name = chain.first else {
            throw fail(.invalidClass, "object \(uid) has no valid $class", uid)
        }
        if onPath.contains(uid) { return .wrapped("ref", .string(name)) }
        onPath.insert(uid)
        defer { onPath.remove(uid) }
        func field(_ key: String) throws -> JSONNode? {
            guard let v = d[key] else { return nil }
            return try value(v, depth: depth + 1)
        }
        func list(_ key: String) throws -> [JSONNode] {
            guard let v = d[key] else { return [] }
            guard case .array(let items) = v else { throw fail(.invalidValue, "\(key) is not an array", uid) }
            return try items.map { try value($0, depth: depth + 1) }
        }
        switch StandardClass(className: name) {
        case .string?, .mutableString?:
            if let s = try field("NS.string") { return s }
        case .data?, .mutableData?:
            if let s = try field("NS.data") { return s }
        case .array?, .mutableArray?:
            return .array(try list("NS.objects"))
        case .set?, .mutableSet?:
            return .wrapped("set", .array(try list("NS.objects")))
        case .orderedSet?, .mutableOrderedSet?:
            var items: [JSONNode] = []
            while let v = try field("NS.object.\(items.count)") { items.append(v) }
            return .wrapped("orderedset", .array(items))
        case .dictionary?, .mutableDictionary?:
            let keys = try list("NS.keys")
            let values = try list("NS.objects")
            guard keys.count == values.count else {
                throw fail(.invalidValue, "NS.keys has \(keys.count) entries but NS.objects has \(values.count)", uid)
            }
            var stringKeys: [(String, JSONNode)] = []
            for (k, v) in zip(keys, values) {
                guard let s = k.stringValue else {
                    return .wrapped("dict", .array(zip(keys, values).map { .array([$0, $1]) }))
                }
                stringKeys.append((s, v))
            }
            return .wrapped("dict", .object(stringKeys))
        case .date?:
            if let t = d["NS.time"], let s = t.realValue ?? t.integerValue?.int64Value.map(Double.init) {
                return .plist(.date(PlistDate(secondsSinceReferenceDate: s)))
            }
        case .uuid?:
            if let b = d["NS.uuidbytes"]?.dataValue, b.count == 16 {
                let u = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                                    b[13], b[14], b[15]))
                return .wrapped("uuid", .string(u.uuidString.uppercased()))
            }
        case .url?:
            if let url = try absoluteURL(uid, depth: depth) { return .wrapped("url", .string(url)) }
        case .null?:
            return .null
        case .number?, .value?, nil:
            break
        }
        var fields: [(String, JSONNode)] = []
        for (key, v) in graph.fields(of: uid) { fields.append((key, try value(v, depth: depth + 1))) }
        return .object([("class", .string(name)), ("fields", .object(fields))])
    }

    /// The absolute string of the NSURL at `uid` (resolving `NS.base`), or `nil` when malformed.
    func absoluteURL(_ uid: Int, depth: Int) throws -> String? {
        guard depth < maxDepth, let d = graph.instance(uid) else { return nil }
        func string(_ v: PlistValue?) -> String? {
            if let s = v?.stringValue { return s }
            if let u = v?.uidValue, u.value < UInt64(graph.objects.count) {
                let target = graph.objects[Int(u.value)]
                if let s = target.stringValue { return s }
                if let inner = target.dictionaryValue?["NS.string"]?.stringValue { return inner }
            }
            return nil
        }
        guard let relative = string(d["NS.relative"]) else { return nil }
        var base: URL?
        if let b = d["NS.base"]?.uidValue, b.value != 0 {
            guard let baseString = try absoluteURL(Int(truncatingIfNeeded: b.value), depth: depth + 1) else { return nil }
            base = URL(string: baseString)
        }
        return URL(string: relative, relativeTo: base)?.absoluteString
    }
}

/// Turns archive-JSON into values the archiver writes.
struct ArchiveJSONBuilder {
    var enclosing: [ArchivedObject] = []

    func fail(_ reason: String) -> KeyedArchiveError { KeyedArchiveError(.invalidJSON, "archive-json: \(reason)") }

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
                enclosing.append(generic)
                defer { enclosing.removeLast() }
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
                return OrderedMembers(members: try items.map { try object($0, inCollection: true, depth: depth + 1) ?? ArchivedNull() })
            case ("orderedset", .array(let items)):
                return ArchivedOrderedSet(try items.map { try hashable(object($0, inCollection: true, depth: depth + 1)) })
            case ("dict", .object(let pairs)):
                var d = OrderedPairs()
                for (k, v) in pairs {
                    d.keys.append(k)
                    d.values.append(try object(v, inCollection: true, depth: depth + 1) ?? ArchivedNull())
                }
                return d
            case ("dict", .array(let pairs)):
                var d = OrderedPairs()
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
