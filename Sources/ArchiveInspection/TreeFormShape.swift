import BinaryPlist
import KeyedArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// How many objects archive-JSON's tree form prints for a graph, decided before anything is rendered and
/// without allocating for the output: a heavily shared graph is refused whatever budget was asked for.
///
/// The tree form prints an object at the end of every path of references it follows from `$top` that
/// visits no object twice, and `{"ref": name}` (also counted) where a path comes back to an object on it.
/// This type holds the references the renderer follows from each object, in its order, so that:
/// - ``lowerBound(cap:)`` finds in linear time a number the count cannot be below: dropping the back edges
///   of one depth-first search leaves an acyclic graph whose paths from `$top` the renderer all prints,
///   counted in postorder with saturation (plus one for each back edge);
/// - ``measure(limit:)`` walks the paths themselves, as the renderer does, without printing, and stops as
///   soon as the count passes the limit: time in proportion to the smaller of the two, memory linear in the
///   graph.
struct TreeFormShape {
    /// What rendering would meet.
    enum Measure: Equatable {
        /// All printed objects fit the limit and rendering meets no error.
        case fits(Int)
        /// More objects than the limit.
        case exceeds
        /// Rendering throws (a malformed object, a dangling UID, nesting past the depth limit) before the
        /// limit: a dry run of the renderer reports which.
        case fails
    }

    /// The references the renderer follows from object `u`: `children[start[u]..<start[u + 1]]`.
    private var children: [Int32] = []
    private var start: [Int32]
    /// Objects whose rendering throws when reached.
    private var throwing: [Bool]
    private var roots: [Int32] = []
    private var rootsThrow = false
    private let maxDepth: Int

    init(_ graph: ArchiveGraph, maxDepth: Int) {
        let count = graph.objects.count
        self.maxDepth = maxDepth
        start = []
        start.reserveCapacity(count + 1)
        throwing = [Bool](repeating: false, count: count)
        var invalid = false
        for e in graph.top.entries { Self.references(in: e.value, count: count, into: &roots, invalid: &invalid) }
        rootsThrow = invalid
        for uid in 0..<count {
            start.append(Int32(truncatingIfNeeded: children.count))
            throwing[uid] = !followed(graph, uid)
        }
        start.append(Int32(truncatingIfNeeded: children.count))
    }

    /// Appends the references the renderer follows from `uid`; `false` when rendering `uid` throws.
    private mutating func followed(_ graph: ArchiveGraph, _ uid: Int) -> Bool {
        let count = graph.objects.count
        var invalid = false
        func add(_ v: PlistValue) { Self.references(in: v, count: count, into: &children, invalid: &invalid) }
        let entry = graph.objects[uid]
        guard case .dictionary(let d) = entry else { return !entry.isCollection }
        guard let name = graph.classChain(of: uid)?.first else { return false }
        var allFields = false
        switch ArchivedClassKind(className: name) {
        case .string?: if let v = d["NS.string"] { add(v) } else { allFields = true }
        case .data?: if let v = d["NS.data"] { add(v) } else { allFields = true }
        case .array?, .set?:
            switch d["NS.objects"] {
            case nil: break
            case .array(let items)?: for item in items { add(item) }
            case _?: return false
            }
        case .orderedSet?:
            var i = 0
            while let v = d["NS.object.\(i)"] {
                add(v)
                i += 1
            }
        case .dictionary?:
            var lists: [[PlistValue]] = []
            for key in ["NS.keys", "NS.objects"] {
                switch d[key] {
                case nil: lists.append([])
                case .array(let items)?: lists.append(items)
                case _?: return false
                }
            }
            guard lists[0].count == lists[1].count else { return false }
            for v in lists[0] + lists[1] { add(v) }
        case .date?:
            if let t = d["NS.time"], t.realValue != nil || t.integerValue?.int64Value != nil { break }
            allFields = true
        case .uuid?:
            if let b = d["NS.uuidbytes"]?.dataValue, b.count == 16 { break }
            allFields = true
        case .url?:
            allFields = Self.absoluteURL(graph, uid, depth: 0, maxDepth: maxDepth) == nil
        case .null?:
            break
        default:  // every other class, built in or not, as its fields
            allFields = true
        }
        if allFields { for (_, v) in graph.fields(of: uid) { add(v) } }
        return !invalid
    }

    /// The objects a value refers to as the renderer follows them: a UID other than `$null`, or the UIDs of an
    /// array holding one. A UID past the objects is not followed and sets `invalid`.
    private static func references(in v: PlistValue, count: Int, into refs: inout [Int32], invalid: inout Bool) {
        switch v {
        case .uid(let u):
            if u.value >= UInt64(count) {
                invalid = true
            } else if u.value > 0 {
                refs.append(Int32(truncatingIfNeeded: u.value))
            }
        case .array(let items) where items.contains(where: { $0.uidValue != nil }):
            for item in items { references(in: item, count: count, into: &refs, invalid: &invalid) }
        default:
            break
        }
    }

    /// Whether the renderer prints the NSURL at `uid` as `{"url": ...}` (as ``ArchiveJSONRenderer`` decides).
    static func absoluteURL(_ graph: ArchiveGraph, _ uid: Int, depth: Int, maxDepth: Int) -> String? {
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
            guard let baseString = absoluteURL(graph, Int(truncatingIfNeeded: b.value), depth: depth + 1,
                                               maxDepth: maxDepth)
            else { return nil }
            base = URL(string: baseString)
        }
        return URL(string: relative, relativeTo: base)?.absoluteString
    }

    private func references(of u: Int) -> ArraySlice<Int32> { children[Int(start[u])..<Int(start[u + 1])] }

    /// A number of objects the tree form prints at least, or `cap + 1` when that is more than `cap`.
    func lowerBound(cap: Int) -> Int {
        let count = throwing.count
        let ceiling = cap < Int.max ? cap + 1 : cap
        func add(_ a: Int, _ b: Int) -> Int {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? ceiling : min(sum, ceiling)
        }
        enum Color: UInt8 { case white, gray, black }
        var color = [Color](repeating: .white, count: count)
        var size = [Int](repeating: 0, count: count)
        // The search's path: each object with the next of its references to follow.
        var path: [(uid: Int, next: Int32)] = []
        for root in roots where color[Int(root)] == .white {
            color[Int(root)] = .gray
            path.append((Int(root), start[Int(root)]))
            while let top = path.last {
                if top.next < start[top.uid + 1] {
                    path[path.count - 1].next += 1
                    let child = Int(children[Int(top.next)])
                    if color[child] == .white {
                        color[child] = .gray
                        path.append((child, start[child]))
                    }
                    continue
                }
                // Every reference of `top` was followed: one to an object still on the path is a back edge,
                // which prints at least a {"ref"}; the others lead to objects whose count is known.
                var total = 1
                for child in references(of: top.uid) {
                    total = add(total, color[Int(child)] == .black ? size[Int(child)] : 1)
                }
                size[top.uid] = total
                color[top.uid] = .black
                path.removeLast()
            }
        }
        return roots.reduce(0) { add($0, size[Int($1)]) }
    }

    /// Walks the tree form's paths without printing, stopping past `limit` objects.
    func measure(limit: Int) -> Measure {
        if rootsThrow { return .fails }
        var printed = 0
        var onPath = [Bool](repeating: false, count: throwing.count)
        var path: [(uid: Int, next: Int32)] = []
        for root in roots {
            // Enters `uid` at the current depth and counts it; sets `result` when the walk stops there.
            func enter(_ uid: Int, _ result: inout Measure?) {
                guard path.count < maxDepth else { return result = .fails }
                guard printed < limit else { return result = .exceeds }
                printed += 1
                guard !onPath[uid] else { return }  // printed as {"ref": name}
                guard !throwing[uid] else { return result = .fails }
                onPath[uid] = true
                path.append((uid, start[uid]))
            }
            var result: Measure?
            enter(Int(root), &result)
            if let result { return result }
            while let top = path.last {
                if top.next < start[top.uid + 1] {
                    path[path.count - 1].next += 1
                    enter(Int(children[Int(top.next)]), &result)
                    if let result { return result }
                } else {
                    onPath[top.uid] = false
                    path.removeLast()
                }
            }
        }
        return .fits(printed)
    }
}
