import BinaryPlist
/// A JSON value with object members in their order, written through ``JSONWriter`` (so with its escaping,
/// number formatting and Python `json` separators): the tree archive-JSON is parsed into, and the one way
/// the command-line tools render a record or an entry as JSON.
///
/// ```swift
/// let node = JSONNode.object([("key", .string("a")), ("bytes", .integer(120)), ("expires", .null)])
/// node.render(pretty: false)   // {"key": "a", "bytes": 120, "expires": null}
/// ```
///
/// No Apple API corresponds.
package indirect enum JSONNode: Sendable {
    case null
    case bool(Bool)
    /// A number, kept as its (validated) text.
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(String, JSONNode)])
    /// An inline plist value, written as plist-JSON. Parsing never makes these.
    case plist(PlistValue)

    /// A whole number.
    package static func integer(_ value: Int) -> JSONNode { .number(String(value)) }

    /// The JSON text, on one line unless `pretty` (no trailing newline).
    package func render(pretty: Bool) -> String {
        var writer = JSONWriter(pretty: pretty)
        write(to: &writer)
        return writer.text
    }

    /// Writes the value at the writer's current position.
    package func write(to w: inout JSONWriter) {
        switch self {
        case .null: w.raw("null")
        case .bool(let b): w.raw(b ? "true" : "false")
        case .number(let n): w.raw(n)
        case .string(let s): w.string(s)
        case .plist(let v): w.plist(v)
        case .array(let items):
            w.open(.array)
            for (i, item) in items.enumerated() {
                w.item(first: i == 0)
                item.write(to: &w)
            }
            w.close(.array, empty: items.isEmpty)
        case .object(let entries):
            w.open(.object)
            for (i, (key, value)) in entries.enumerated() {
                w.item(first: i == 0)
                w.key(key)
                value.write(to: &w)
            }
            w.close(.object, empty: entries.isEmpty)
        }
    }
}
