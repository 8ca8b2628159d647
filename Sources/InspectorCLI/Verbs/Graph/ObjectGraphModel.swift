import BinaryPlist
import KeyedArchive
import ArchiveInspection

/// A keyed archive's graph as `keyedarchive graph` draws it: one node per object reached from `$top` (an
/// instance, or a container that is an `$objects` entry), its scalar fields inside it, and its references as
/// edges, each marked as a tree edge (first reached there), a shared edge (to an object reached before
/// elsewhere) or a back edge (to an object on its own path: a cycle). Built by one depth-first walk with an
/// explicit stack; the spanning tree of first visits gives each node a parent, so a page can reveal any node.
struct ObjectGraphModel {
    enum EdgeKind: String { case tree, shared, back }

    struct Edge {
        /// The steps from the node to the target: `.delegate`, `[3]`, `["name"]`.
        var label: String
        var target: Int
        var kind: EdgeKind = .tree
    }

    struct Node {
        var uid: Int
        /// The class name, or the container's kind (`array`).
        var title: String
        var chain: [String]
        /// Scalar fields (and elements) with their values as plist-JSON, cut at ``valueLimit``.
        var scalars: [(label: String, value: String)] = []
        var edges: [Edge] = []
        /// The node that first reached this one (-1: a root) and the edge's label.
        var parent = -1
        var parentLabel = ""
        /// Reached by more than one reference.
        var shared = false
    }

    /// Values are cut to this many characters.
    static let valueLimit = 80

    var archiver = ""
    /// `$top` keys holding values, and those holding objects (as edges from `$top`).
    var rootScalars: [(label: String, value: String)] = []
    var rootEdges: [Edge] = []
    /// Nodes in the order the walk first reached them.
    var nodes: [Node] = []
    /// uid -> position in ``nodes``.
    var position: [Int: Int] = [:]

    /// Walks the binary or XML keyed archive `bytes`.
    /// - Throws: ``KeyedArchiveError`` when it is not a well-formed keyed archive.
    static func build(_ bytes: [UInt8]) throws -> ObjectGraphModel {
        try ArchiveEntries.read(bytes) { entries in
            var model = ObjectGraphModel()
            model.archiver = entries.archiver
            var onPath = Array(repeating: false, count: entries.objectCount)
            let (scalars, edges) = try split(entries.roots(), entries)
            model.rootScalars = scalars
            model.rootEdges = edges
            // Frames: (node position, or -1 for $top; next edge).
            var stack: [(node: Int, next: Int)] = [(-1, 0)]
            while let (node, next) = stack.last {
                let count = node < 0 ? model.rootEdges.count : model.nodes[node].edges.count
                guard next < count else {
                    if node >= 0 { onPath[model.nodes[node].uid] = false }
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let edge = node < 0 ? model.rootEdges[next] : model.nodes[node].edges[next]
                let kind: EdgeKind
                if let seen = model.position[edge.target] {
                    kind = onPath[edge.target] ? .back : .shared
                    model.nodes[seen].shared = true
                } else {
                    kind = .tree
                    let slot = ArchiveSlot.object(edge.target)
                    let found = try entries.node(slot)
                    var n = Node(uid: edge.target, title: title(found), chain: chain(found))
                    (n.scalars, n.edges) = try split(entries.children(of: found, uid: edge.target), entries)
                    n.parent = node < 0 ? -1 : model.nodes[node].uid
                    n.parentLabel = edge.label
                    model.position[edge.target] = model.nodes.count
                    model.nodes.append(n)
                    onPath[edge.target] = true
                    stack.append((model.nodes.count - 1, 0))
                }
                if node < 0 { model.rootEdges[next].kind = kind } else { model.nodes[node].edges[next].kind = kind }
            }
            return model
        }
    }

    /// A node's children as scalars and edges; inline containers holding UIDs are flattened into edges whose
    /// labels carry the inner steps (`.items[2]`).
    private static func split(_ children: [(step: ArchiveStep, slot: ArchiveSlot)], _ entries: ArchiveEntries) throws
        -> ([(label: String, value: String)], [Edge]) {
        var scalars: [(label: String, value: String)] = []
        var edges: [Edge] = []
        var work: [(prefix: String, child: (step: ArchiveStep, slot: ArchiveSlot))] = children.reversed().map { ("", $0) }
        while let (prefix, child) = work.popLast() {
            let label = prefix + child.step.text
            let node = try entries.node(child.slot)
            switch (child.slot, node) {
            case (_, .leaf(let v)):
                scalars.append((label, clipped(ArchiveValueText.json(v))))
            case (.object(let uid), _):
                edges.append(Edge(label: label, target: uid))
            case (.value, _):
                let inner = try entries.children(of: node, uid: nil)
                work.append(contentsOf: inner.reversed().map { (label, $0) })
            }
        }
        return (scalars, edges)
    }

    private static func title(_ node: ArchiveNode) -> String {
        switch node {
        case .instance(let c, _): c.name
        case .container(let v), .leaf(let v): v.kindName
        }
    }

    private static func chain(_ node: ArchiveNode) -> [String] {
        if case .instance(let c, _) = node { return c.chain }
        return []
    }

    static func clipped(_ s: String) -> String {
        guard s.count > valueLimit else { return s }
        return String(s.prefix(valueLimit - 3)) + "..."
    }
}
