import ArchiveInspection

/// The DOT form of ``ObjectGraphModel`` for Graphviz (`keyedarchive graph --format dot`).
///
/// ```
/// digraph archive {
///   top [shape=plaintext, label="$top"];
///   o1 [label="Note\ntitle = \"Hi\"\l", peripheries=2];
///   top -> o1 [label="root"];
///   o1 -> o1 [label=".self", style=bold, color=red, constraint=false];
/// }
/// ```
///
/// Nodes are `o<index>` labelled with the class name over the scalar fields; a shared object has a double
/// border; shared edges are dashed and blue, back (cycle) edges bold and red.
enum GraphDOT {
    static func render(_ model: ObjectGraphModel) -> String {
        var out = "digraph archive {\n"
        out += "  graph [rankdir=LR, fontname=\"Helvetica\"];\n"
        out += "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        var topLabel = "$top\\n"
        for s in model.rootScalars { topLabel += escape("\(s.label) = \(s.value)") + "\\l" }
        out += "  top [shape=plaintext, label=\"\(topLabel)\"];\n"
        for node in model.nodes {
            var label = escape(node.title) + " #\(node.uid)\\n"
            for s in node.scalars { label += escape("\(s.label) = \(s.value)") + "\\l" }
            out += "  o\(node.uid) [label=\"\(label)\"" + (node.shared ? ", peripheries=2" : "") + "];\n"
        }
        for edge in model.rootEdges { out += line("top", edge) }
        for node in model.nodes {
            for edge in node.edges { out += line("o\(node.uid)", edge) }
        }
        return out + "}\n"
    }

    private static func line(_ from: String, _ edge: ObjectGraphModel.Edge) -> String {
        var attributes = "label=\"\(escape(edge.label))\""
        switch edge.kind {
        case .shared: attributes += ", style=dashed, color=blue, fontcolor=blue"
        case .back: attributes += ", style=bold, color=red, fontcolor=red, constraint=false"
        default: break
        }
        return "  \(from) -> o\(edge.target) [\(attributes)];\n"
    }

    /// Text for a DOT double-quoted string: `"` and `\` escaped, line breaks and other controls shown as
    /// escapes, so no value can end the string or the statement.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\\\n"
            case "\r": out += "\\\\r"
            default:
                if c.value < 0x20 || c.value == 0x7F { out += "\\\\u{\(String(c.value, radix: 16))}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
