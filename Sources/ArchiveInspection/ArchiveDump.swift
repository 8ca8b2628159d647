import BinaryPlist
import KeyedArchive

/// A readable tree of a keyed archive, like `plutil -p` but with references resolved: each object shows its
/// UID and class, each field its raw key. An object already printed shows as `-> [uid] Class` instead of
/// being printed again, so shared references and cycles stay finite; objects nested deeper than 256 levels
/// print as `…`.
///
/// ```
/// $top {
///   root => [1] Contents {
///     shapes => [2] NSArray (
///       0 => [3] Circle {
///         center.x => 0.0
///         style => [5] Style { name => [6] "Default Stroke" ... }
/// ```
///
/// ```swift
/// print(ArchiveDump.render(try ArchiveGraph(bytes: bytes)))   // binary or XML input
/// ```
///
/// No Apple API corresponds; `plutil -p` is the model.
public enum ArchiveDump {
    /// The tree of the archive's `$top` (binary or XML input): the public `render` of its `ArchiveGraph`.
    package static func render(_ archive: [UInt8]) throws -> String {
        render(try ArchiveGraph(bytes: archive))
    }

    /// The tree of the graph's `$top`.
    public static func render(_ graph: ArchiveGraph) -> String {
        var printer = DumpPrinter(graph: graph)
        printer.line(0, "$top {")
        for e in graph.top.entries {
            printer.field(e.key.stringValue ?? "\(e.key)", e.value, level: 1)
        }
        printer.line(0, "}")
        return printer.out
    }
}

private struct DumpPrinter {
    let graph: ArchiveGraph
    var out = ""
    var printed: Set<Int> = []
    static let maxLevel = 256

    mutating func line(_ level: Int, _ text: String) {
        out += String(repeating: "  ", count: level) + text + "\n"
    }

    func scalar(_ v: PlistValue) -> String {
        switch v {
        case .string(let s): "\"\(s)\""
        case .real(let r): r.description
        case .integer(let i): i.description
        case .bool(let b): b ? "true" : "false"
        case .data(let d): "<\(d.count) bytes>"
        case .date(let d): d.description
        case .null: "null"
        case .uid(let u): "UID \(u.value)"
        default: v.kindName
        }
    }

    mutating func field(_ key: String, _ v: PlistValue, level: Int) {
        switch v {
        case .uid(let u): object(Int(truncatingIfNeeded: u.value), prefix: "\(key) => ", level: level)
        case .array(let items):
            line(level, "\(key) => (")
            for (i, item) in items.enumerated() { field(String(i), item, level: level + 1) }
            line(level, ")")
        case .dictionary(let d):
            line(level, "\(key) => {")
            for e in d.entries { field(scalar(e.key), e.value, level: level + 1) }
            line(level, "}")
        default: line(level, "\(key) => \(scalar(v))")
        }
    }

    mutating func object(_ uid: Int, prefix: String, level: Int) {
        guard uid != 0 else { return line(level, prefix + "$null") }
        guard level < DumpPrinter.maxLevel else { return line(level, prefix + "[\(uid)] … (nested deeper than \(DumpPrinter.maxLevel))") }
        guard uid > 0, uid < graph.objects.count else { return line(level, prefix + "[\(uid)] <invalid UID>") }
        let entry = graph.objects[uid]
        guard let chain = graph.classChain(of: uid) else {
            return line(level, prefix + "[\(uid)] " + (entry.isCollection ? "<malformed \(entry.kindName)>" : scalar(entry)))
        }
        let name = chain.first ?? "?"
        if printed.contains(uid) { return line(level, prefix + "-> [\(uid)] \(name)") }
        printed.insert(uid)
        line(level, prefix + "[\(uid)] \(name) {")
        for (key, value) in graph.fields(of: uid) { field(key, value, level: level + 1) }
        line(level, "}")
    }
}
