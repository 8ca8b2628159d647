import BinaryPlist
import KeyedArchive

/// Reads archive-JSON's graph form (``ArchiveJSON`` describes it) into the `$top` entries and `$objects` of
/// an archive: values as plist-JSON, `{"$ref": n}` as the UID `n`.
///
/// Checked before anything is written: the four top-level keys and their values, each entry's `"$id"` equal
/// to its position, entry 0 being `"$null"`, every reference below the object count, no repeated key, and each
/// entry's `"class"` naming the class its `$class` refers to.
struct GraphFormReader {
    private let count: Int

    private init(count: Int) { self.count = count }

    /// The graph of a graph-form document, given its top-level object's entries.
    static func read(_ document: [(String, JSONNode)]) throws
        -> (top: [(key: String, value: PlistValue)], objects: [PlistValue])
    {
        var fields: [String: JSONNode] = [:]
        for (key, value) in document {
            guard ["$archiver", "$version", "$top", "$objects"].contains(key) else {
                throw fail("unexpected key \"\(key)\" (the graph form has $archiver, $version, $top and $objects)")
            }
            guard fields.updateValue(value, forKey: key) == nil else { throw fail("duplicate key \"\(key)\"") }
        }
        guard case .string("NSKeyedArchiver")? = fields["$archiver"] else {
            throw fail("\"$archiver\" must be \"NSKeyedArchiver\"")
        }
        guard case .number("100000")? = fields["$version"] else { throw fail("\"$version\" must be 100000") }
        guard case .array(let entries)? = fields["$objects"] else { throw fail("\"$objects\" must be an array") }
        guard case .object(let topEntries)? = fields["$top"] else { throw fail("\"$top\" must be an object") }
        let reader = GraphFormReader(count: entries.count)

        var objects: [PlistValue] = []
        objects.reserveCapacity(entries.count)
        var named: [(uid: Int, name: String)] = []
        for (position, entry) in entries.enumerated() {
            let (value, name) = try reader.entry(entry, at: position)
            objects.append(value)
            if let name { named.append((position, name)) }
        }
        guard case .string("$null")? = objects.first else {
            throw fail("$objects[0] must be {\"$id\": 0, \"value\": \"$null\"}")
        }
        for (uid, name) in named {
            let found: String?
            if case .uid(let c)? = objects[uid].dictionaryValue?["$class"] {
                found = objects[Int(c.value)].dictionaryValue?["$classname"]?.stringValue
            } else {
                found = nil
            }
            guard found == name else {
                let actual = found.map { "its $class names \"\($0)\"" } ?? "its $class does not name a class"
                throw fail("$objects[\(uid)]: \"class\" is \"\(name)\" but \(actual)")
            }
        }

        var top: [(key: String, value: PlistValue)] = []
        var seen: Set<String> = []
        for (key, node) in topEntries {
            guard seen.insert(key).inserted else { throw fail("$top: duplicate key \"\(key)\"") }
            top.append((key, try reader.value(node, at: "$top.\(key)")))
        }
        return (top, objects)
    }

    /// One `$objects` entry: `{"$id": n, "value": v}` or `{"$id": n, ["class": name,] "fields": {...}}`.
    private func entry(_ node: JSONNode, at position: Int) throws -> (PlistValue, String?) {
        let place = "$objects[\(position)]"
        guard case .object(let members) = node else { throw Self.fail("\(place) must be an object") }
        var id: JSONNode?, value: JSONNode?, fields: JSONNode?, name: JSONNode?
        for (key, member) in members {
            let slot: JSONNode?
            switch key {
            case "$id": slot = id; id = member
            case "value": slot = value; value = member
            case "fields": slot = fields; fields = member
            case "class": slot = name; name = member
            default: throw Self.fail("\(place): unexpected key \"\(key)\" (an entry has $id and value, or $id, class and fields)")
            }
            guard case .none = slot else { throw Self.fail("\(place): duplicate key \"\(key)\"") }
        }
        guard case .number(let text)? = id, Int(text) == position else {
            throw Self.fail("\(place) must have \"$id\": \(position) (entries are listed in index order from 0)")
        }
        switch (value, fields, name) {
        case (let value?, nil, nil):
            return (try self.value(value, at: place), nil)
        case (nil, .object(let pairs)?, _):
            var className: String?
            if let name {
                guard case .string(let s) = name else { throw Self.fail("\(place): \"class\" must be a string") }
                className = s
            }
            var dictionary = PlistDictionary()
            var seen: Set<String> = []
            for (key, member) in pairs {
                guard seen.insert(key).inserted else { throw Self.fail("\(place): duplicate field \"\(key)\"") }
                dictionary.append(key: .string(key), value: try self.value(member, at: "\(place).\(key)"))
            }
            return (.dictionary(dictionary), className)
        case (nil, _?, _):
            throw Self.fail("\(place): \"fields\" must be an object")
        default:
            throw Self.fail("\(place) must have either \"value\" or \"fields\" (with an optional \"class\")")
        }
    }

    /// A plist-JSON value whose UIDs are written `{"$ref": n}`.
    private func value(_ node: JSONNode, at place: String) throws -> PlistValue {
        switch node {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number(let text):
            guard let i = PlistInteger(decimalText: text) else {
                if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                    throw Self.fail("\(place): \(text) is not an integer (write reals as {\"real\": x})")
                }
                throw Self.fail("\(place): integer \(text) is outside the 128-bit range")
            }
            return .integer(i)
        case .array(let items):
            return .array(try items.map { try value($0, at: place) })
        case .plist(let v):
            return v  // only rendering makes these
        case .object(let members):
            guard members.count == 1 else {
                throw Self.fail("\(place): an object must have one key: $ref, real, date, data, dict or set")
            }
            let (key, payload) = members[0]
            switch (key, payload) {
            case ("$ref", .number(let text)):
                guard let n = Int(text), n >= 0, n < count else {
                    throw Self.fail("\(place): {\"$ref\": \(text)} is not an index below the \(count) objects")
                }
                return .uid(PlistUID(UInt64(n)))
            case ("real", _): return .real(try real(payload, at: place))
            case ("date", _): return .date(PlistDate(secondsSinceReferenceDate: try real(payload, at: place)))
            case ("data", .string(let text)):
                guard let bytes = Base64.decode(text) else { throw Self.fail("\(place): \"data\" is not valid base64") }
                return .data(bytes)
            case ("set", .array(let items)):
                return .set(try items.map { try value($0, at: place) })
            case ("dict", .object(let pairs)):
                var d = PlistDictionary()
                var seen: Set<String> = []
                for (k, v) in pairs {
                    guard seen.insert(k).inserted else { throw Self.fail("\(place): duplicate key \"\(k)\"") }
                    d.append(key: .string(k), value: try value(v, at: place))
                }
                return .dictionary(d)
            case ("dict", .array(let pairs)):
                var d = PlistDictionary()
                var seen: Set<PlistValue> = []
                for pair in pairs {
                    guard case .array(let kv) = pair, kv.count == 2 else {
                        throw Self.fail("\(place): dict pairs must be [key, value]")
                    }
                    let k = try value(kv[0], at: place)
                    guard !k.isCollection else { throw Self.fail("\(place): a dict key cannot be \(k.kindNameWithArticle)") }
                    guard seen.insert(k).inserted else { throw Self.fail("\(place): duplicate dict key") }
                    d.append(key: k, value: try value(kv[1], at: place))
                }
                return .dictionary(d)
            default:
                throw Self.fail("\(place): unknown or malformed wrapper {\"\(key)\": ...}")
            }
        }
    }

    /// A real: a number, or `"nan"`, `"inf"`, `"-inf"`.
    private func real(_ node: JSONNode, at place: String) throws -> Double {
        switch node {
        case .number(let text):
            if let d = Double(text), d.isFinite { return d }
        case .string("nan"): return .nan
        case .string("inf"): return .infinity
        case .string("-inf"): return -.infinity
        default: break
        }
        throw Self.fail("\(place): a real is a number or \"nan\", \"inf\", \"-inf\"")
    }

    private static func fail(_ reason: String) -> PlistError {
        PlistError(.invalidJSON, "graph form: \(reason)", format: "archive-json")
    }
}
