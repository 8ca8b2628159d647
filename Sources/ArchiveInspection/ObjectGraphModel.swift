import BinaryPlist
import KeyedArchive

/// A keyed archive's object graph as a picture shows it: one node per object reached from `$top` (an
/// instance, or a container that is an `$objects` entry), its scalar fields inside it, and its references as
/// edges, each a tree edge (first reached there), a shared edge (to an object reached before elsewhere) or a
/// back edge (to an object on its own path: a cycle). `keyedarchive graph` draws it as Graphviz DOT or HTML.
///
/// ```swift
/// let model = try ObjectGraphModel(archive: bytes)
/// for node in model.nodes {
///     print(node.uid, node.title, node.edges.map { "\($0.label) -> \($0.target) (\($0.kind))" })
/// }
/// ```
///
/// Built by one depth-first walk with an explicit stack, each object read once, so time and memory are linear
/// in the archive; the spanning tree of first visits gives each node a parent, so a page can reveal any node.
///
/// No Apple API corresponds: it is the graph `NSKeyedUnarchiver` would instantiate, seen before decoding.
public struct ObjectGraphModel: Sendable {
    /// What an edge is in the walk: complete, since a depth-first walk meets an object either for the first
    /// time, again elsewhere, or again on the path to it (frozen: no case will be added).
    public enum EdgeKind: Hashable, Sendable, CustomStringConvertible {
        /// The edge by which the walk first reached its target.
        case tree
        /// An edge to an object reached before, elsewhere.
        case shared
        /// An edge to an object on the path to it: a cycle.
        case back

        /// The kind's name (`tree`, `shared`, `back`).
        public var description: String {
            switch self {
            case .tree: "tree"
            case .shared: "shared"
            case .back: "back"
            }
        }
    }

    /// A reference from a node (or from `$top`) to an object.
    public struct Edge: Sendable, Hashable {
        /// The steps from the node to the target: `.delegate`, `[3]`, `["name"]`, `.items[2]` (through an
        /// inline collection).
        public internal(set) var label: String
        /// The target's `$objects` index.
        public internal(set) var target: Int
        /// Tree, shared or back.
        public internal(set) var kind: EdgeKind = .tree
    }

    /// A scalar field or element shown inside a node.
    public struct Scalar: Sendable, Hashable {
        /// The steps from the node: `.title`, `[0]`.
        public internal(set) var label: String
        /// The value as plist-JSON, cut at 80 characters.
        public internal(set) var value: String
    }

    /// An object reached from `$top`.
    public struct Node: Sendable, Hashable {
        /// Its `$objects` index.
        public internal(set) var uid: Int
        /// The class name, or the container's kind (`array`).
        public internal(set) var title: String
        /// The `$classes` chain of an instance (empty for a container).
        public internal(set) var chain: [String]
        /// Scalar fields and elements.
        public internal(set) var scalars: [Scalar] = []
        /// References to other objects, in step order.
        public internal(set) var edges: [Edge] = []
        /// The `$objects` index of the node that first reached this one (-1: a root, reached from `$top`); the
        /// edge it came by is the ``EdgeKind/tree`` edge to this node among that node's ``edges`` (or
        /// ``ObjectGraphModel/rootEdges``).
        public internal(set) var parent = -1
        /// The label of the edge that first reached it (the ``EdgeKind/tree`` edge to it, from ``parent``).
        package internal(set) var parentLabel = ""
        /// Whether more than one reference reaches it.
        public internal(set) var shared = false
    }

    /// Values are cut to this many characters.
    package static let valueLimit = 80

    /// `$archiver` (`NSKeyedArchiver`, or a subclass's name).
    public internal(set) var archiver = ""
    /// `$top` keys holding scalars.
    public internal(set) var rootScalars: [Scalar] = []
    /// `$top` keys holding objects, as edges from `$top`.
    public internal(set) var rootEdges: [Edge] = []
    /// Nodes in the order the walk first reached them.
    public internal(set) var nodes: [Node] = []
    /// uid -> position in ``nodes``.
    private var position: [Int: Int] = [:]

    /// The node of the object at `uid`, or `nil` when it is not reached from `$top` (or is a scalar).
    public func node(uid: Int) -> Node? {
        position[uid].map { nodes[$0] }
    }

    /// Walks the binary or XML keyed archive `archive`, of any `$archiver`.
    /// - Throws: `KeyedArchiveError` when it is not a well-formed keyed archive, or
    ///   `KeyedArchiveError/Code/elementLimitExceeded` for a plist that shares collections between entries
    ///   (no archiver writes one).
    public init(archive: [UInt8]) throws {
        self = try ArchiveEntries.read(archive) { try Self.build($0) }
    }

    private init() {}

    private static func build(_ entries: ArchiveEntries) throws -> ObjectGraphModel {
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

    /// A node's children as scalars and edges; inline containers holding UIDs are flattened into edges whose
    /// labels carry the inner steps (`.items[2]`).
    private static func split(_ children: [(step: ArchiveStep, slot: ArchiveSlot)], _ entries: ArchiveEntries) throws
        -> ([Scalar], [Edge]) {
        var scalars: [Scalar] = []
        var edges: [Edge] = []
        var work: [(prefix: String, child: (step: ArchiveStep, slot: ArchiveSlot))] = children.reversed().map { ("", $0) }
        while let (prefix, child) = work.popLast() {
            let label = prefix + child.step.text
            let node = try entries.node(child.slot)
            switch (child.slot, node) {
            case (_, .leaf(let v)):
                scalars.append(Scalar(label: label, value: clipped(ArchiveValueText.json(v))))
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

    private static func clipped(_ s: String) -> String {
        guard s.count > valueLimit else { return s }
        return String(s.prefix(valueLimit - 3)) + "..."
    }
}
