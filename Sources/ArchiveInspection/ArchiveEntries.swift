import BinaryPlist
import KeyedArchive

/// The `$objects` entries of a keyed archive read one at a time, with the meaning the inspector's walks
/// (`keyedarchive diff`, `audit`, `graph`) give them: each object as a leaf value, an instance of a class or
/// a container, and its children labelled by the step a path takes to reach them (a field, an array index, a
/// dictionary key, a set member).
///
/// Like ``GraphFormPrinter``, it keeps the archive's bytes and offset table and materializes an entry only
/// when first asked, then keeps it: an object that a thousand others refer to (a window, a superview, a next
/// key view) is read and counted once, however often a walk meets it. Each entry counts once against the
/// element budget of the document (as many values as the archive has bytes, at least 65,536), which no
/// archiver's output reaches: only a hostile plist that shares one large collection between many entries
/// does, and it is refused instead of making a walk quadratic. What is kept is bounded by the budget.
///
/// ```swift
/// try ArchiveEntries.read(bytes) { archive in
///     for (step, slot) in try archive.roots() { print(step.text, try archive.node(slot)) }
/// }
/// ```
///
/// No Apple API corresponds: it is the structure `NSKeyedUnarchiver` walks, seen from outside.
package final class ArchiveEntries {
    /// `$archiver`.
    package let archiver: String
    /// The number of `$objects` entries, `$null` included.
    package let objectCount: Int
    /// The size of the archive as read (its binary form for an XML archive).
    package let byteCount: Int
    private let table: ArchiveObjectTable
    private let limit: Int
    private var budget: Int
    private var classes: [Int: ArchiveClass] = [:]
    /// Every entry read so far, by index: each is read and counted once.
    private var read: [Int: PlistValue] = [:]

    private init(table: ArchiveObjectTable) {
        self.table = table
        archiver = table.archiver
        objectCount = table.objectCount
        byteCount = table.byteCount
        limit = table.elementBudget
        budget = limit
    }

    /// Reads the binary or XML keyed archive `bytes` and hands its entries to `body`; they are valid only
    /// during the call.
    /// - Throws: `KeyedArchiveError` for a plist that is not a keyed archive (`invalidPlist`,
    ///   `invalidHeader`, `foreignArchiver` outside `acceptedArchivers`), or whatever `body` throws.
    package static func read<R>(_ bytes: [UInt8], acceptedArchivers: AcceptedArchivers = .any,
                                _ body: (ArchiveEntries) throws -> R) throws -> R {
        try ArchiveObjectTable.read(bytes, acceptedArchivers: acceptedArchivers) { table in
            try body(ArchiveEntries(table: table))
        }
    }

    // MARK: Entries

    /// `$top` as steps and slots, sorted by key.
    package func roots() throws -> [(step: ArchiveStep, slot: ArchiveSlot)] {
        var out: [(step: ArchiveStep, slot: ArchiveSlot)] = []
        for i in 0..<table.topCount {
            let key = try counted(table.topKey(at: i), entry: nil)
            guard case .string(let name) = key else {
                throw KeyedArchiveError(.invalidHeader, "$top key \(i) is \(key.kindNameWithArticle), not a string")
            }
            out.append((.top(name), try slot(counted(table.topValue(at: i), entry: nil), in: nil)))
        }
        return out.sorted { $0.step < $1.step }
    }

    /// `$objects[uid]` materialized (a valid index), counted against the budget the first time only: an entry
    /// read again costs nothing more.
    package func entry(_ uid: Int) throws -> PlistValue {
        guard uid >= 0, uid < objectCount else {
            throw KeyedArchiveError(.invalidReference, "UID \(uid) is not below the \(objectCount) objects")
        }
        if let known = read[uid] { return known }
        let value = try counted(table.object(at: uid), entry: uid)
        read[uid] = value
        return value
    }

    /// A value met in a field or a collection as a slot: a UID is the object it names.
    /// - Throws: `KeyedArchiveError/Code/invalidReference` for a UID at or past the object count.
    package func slot(_ value: PlistValue, in uid: Int?) throws -> ArchiveSlot {
        guard case .uid(let u) = value else { return .value(value) }
        guard u.value < UInt64(objectCount) else {
            throw KeyedArchiveError(.invalidReference, "UID \(u.value) is not below the \(objectCount) objects",
                                    objectIndex: uid)
        }
        return .object(Int(u.value))
    }

    /// What a slot holds: `$null` and scalars as leaves, objects with `$class` as instances, arrays,
    /// dictionaries and sets holding UIDs as containers (without UIDs, they are leaves).
    package func node(_ slot: ArchiveSlot) throws -> ArchiveNode {
        switch slot {
        case .value(let v):
            return Self.holdsUIDs(v, depth: 0) ? .container(v) : .leaf(v)
        case .object(0):
            return .leaf(.null)
        case .object(let uid):
            let v = try entry(uid)
            if case .dictionary(let d) = v, let reference = d["$class"] {
                return .instance(try classOf(reference, object: uid), d)
            }
            return Self.holdsUIDs(v, depth: 0) ? .container(v) : .leaf(v)
        }
    }

    /// The class description a `$class` value refers to, validated once.
    package func classOf(_ reference: PlistValue, object uid: Int) throws -> ArchiveClass {
        func bad(_ reason: String) -> KeyedArchiveError { KeyedArchiveError(.invalidClass, reason, objectIndex: uid) }
        guard case .uid(let u) = reference else { throw bad("$class is \(reference.kindNameWithArticle), not a UID") }
        guard u.value > 0, u.value < UInt64(objectCount) else {
            throw bad("$class is UID \(u.value), not a class description below the \(objectCount) objects")
        }
        let classUID = Int(u.value)
        if let known = classes[classUID] { return known }
        let description = try entry(classUID)
        guard let d = description.dictionaryValue, let nameValue = d["$classname"] else {
            throw bad("$class refers to object \(classUID), which is \(description.kindNameWithArticle) without $classname")
        }
        guard let name = nameValue.stringValue else {
            throw bad("$class refers to object \(classUID), whose $classname is \(nameValue.kindNameWithArticle)")
        }
        var chain = [name]
        if let list = d["$classes"] {
            guard let items = list.arrayValue else {
                throw bad("$class refers to object \(classUID), whose $classes is \(list.kindNameWithArticle)")
            }
            let names = items.compactMap(\.stringValue)
            guard names.count == items.count else {
                throw bad("$class refers to object \(classUID), whose $classes holds something else than strings")
            }
            if !names.isEmpty { chain = names }
        }
        let found = ArchiveClass(uid: classUID, name: name, chain: chain)
        classes[classUID] = found
        return found
    }

    /// The class descriptions of the archive (entries with a `$classname` and no `$class`), in index order,
    /// whether or not an object uses them. Looks at every entry's keys without reading the entry (only class
    /// descriptions are read, and they count against the budget), so it costs no more than the archive's size.
    package func classDescriptions() throws -> [(uid: Int, name: String?)] {
        var out: [(uid: Int, name: String?)] = []
        for uid in 1..<max(1, objectCount) {
            guard try table.isClassDescription(at: uid) else { continue }
            out.append((uid, try entry(uid).dictionaryValue?["$classname"]?.stringValue))
        }
        return out
    }

    // MARK: Children

    /// The children of a node, each with the step that reaches it, in a stable order (fields by key,
    /// elements by index, dictionary keys and set members by their label): the order does not depend on
    /// UID numbering or object order, so two archives of one graph list the same children in the same order.
    ///
    /// An instance of a class whose chain holds `NSArray` or `NSOrderedSet`, `NSDictionary`, or `NSSet` and
    /// whose `NS.objects` (and `NS.keys`) are arrays has its elements, entries or members as children,
    /// beside its other fields; any other instance has its fields, `$class` left out. A container has its
    /// elements (array), members (set) or entries (dictionary: string keys as fields).
    package func children(of node: ArchiveNode, uid: Int?) throws -> [(step: ArchiveStep, slot: ArchiveSlot)] {
        var out: [(step: ArchiveStep, slot: ArchiveSlot)] = []
        switch node {
        case .leaf:
            return []
        case .instance(let c, let fields):
            var used: Set<String> = ["$class"]
            let list = { (key: String) -> [PlistValue]? in fields[key]?.arrayValue }
            if c.isKind(of: "NSDictionary"), let keys = list("NS.keys"), let values = list("NS.objects"),
               keys.count == values.count {
                used.formUnion(["NS.keys", "NS.objects"])
                var labels = LabelCounter()
                for (k, v) in zip(keys, values) {
                    let label = labels.unique(try self.label(slot(k, in: uid)))
                    out.append((.key(label), try slot(v, in: uid)))
                }
            } else if c.isKind(of: "NSArray") || c.isKind(of: "NSOrderedSet"), let items = list("NS.objects") {
                used.insert("NS.objects")
                for (i, v) in items.enumerated() { out.append((.index(i), try slot(v, in: uid))) }
            } else if c.isKind(of: "NSSet"), let items = list("NS.objects") {
                used.insert("NS.objects")
                var labels = LabelCounter()
                for v in items {
                    let s = try slot(v, in: uid)
                    out.append((.member(labels.unique(try label(s))), s))
                }
            }
            for e in fields.entries {
                guard let k = e.key.stringValue, !used.contains(k) else { continue }
                out.append((.field(k), try slot(e.value, in: uid)))
            }
        case .container(let v):
            switch v {
            case .array(let items):
                for (i, item) in items.enumerated() { out.append((.index(i), try slot(item, in: uid))) }
            case .set(let items):
                var labels = LabelCounter()
                for item in items {
                    let s = try slot(item, in: uid)
                    out.append((.member(labels.unique(try label(s))), s))
                }
            case .dictionary(let d):
                var labels = LabelCounter()
                for e in d.entries {
                    let step: ArchiveStep = if let k = e.key.stringValue { .field(k) } else {
                        .key(labels.unique(try label(slot(e.key, in: uid))))
                    }
                    out.append((step, try slot(e.value, in: uid)))
                }
            default:
                break
            }
        }
        out.sort { $0.step < $1.step }
        return out
    }

    /// The label of a dictionary key or set member: a scalar as plist-JSON (`"name"`, `42`); an object as
    /// `<Class key=value ...>` with its scalar fields, sorted, cut at 80 characters.
    package func label(_ slot: ArchiveSlot) throws -> String {
        switch try node(slot) {
        case .leaf(let v):
            return Self.clipped(ArchiveValueText.json(v), 80)
        case .container(let v):
            return "<\(v.kindName)>"
        case .instance(let c, let fields):
            var text = "<" + c.name
            for e in fields.entries.sorted(by: { ($0.key.stringValue ?? "") < ($1.key.stringValue ?? "") }) {
                guard let k = e.key.stringValue, k != "$class" else { continue }
                let v: PlistValue
                if case .uid(let u) = e.value {
                    guard u.value < UInt64(objectCount), case .leaf(let scalar) = try node(.object(Int(u.value))) else { continue }
                    v = scalar
                } else if Self.holdsUIDs(e.value, depth: 0) {
                    continue
                } else {
                    v = e.value
                }
                text += " \(k)=" + ArchiveValueText.json(v)
                if text.utf8.count > 80 { break }
            }
            return Self.clipped(text, 79) + ">"
        }
    }

    // MARK: Helpers

    /// `value`, counted against the budget. Every entry is counted once, so the budget runs out only when the
    /// entries hold more values than the archive's bytes could without sharing: the plist shares collections.
    private func counted(_ value: PlistValue, entry: Int?) throws -> PlistValue {
        budget -= Self.count(value)
        guard budget >= 0 else {
            throw KeyedArchiveError(.elementLimitExceeded, "the $objects entries read so far hold more than \(limit) "
                + "plist values, more than the archive's \(byteCount) bytes hold unless its plist shares collections "
                + "between entries (no archiver writes that)", objectIndex: entry)
        }
        return value
    }

    /// The number of plist values in `v`, itself included.
    private static func count(_ v: PlistValue) -> Int {
        switch v {
        case .array(let items), .set(let items): items.reduce(1) { $0 + count($1) }
        case .dictionary(let d): d.entries.reduce(1) { $0 + count($1.key) + count($1.value) }
        default: 1
        }
    }

    /// Whether `v` holds a UID at any depth (within the materializer's depth limit, which bounds it).
    static func holdsUIDs(_ v: PlistValue, depth: Int) -> Bool {
        switch v {
        case .uid: true
        case .array(let items), .set(let items): items.contains { holdsUIDs($0, depth: depth + 1) }
        case .dictionary(let d): d.entries.contains { holdsUIDs($0.key, depth: depth + 1) || holdsUIDs($0.value, depth: depth + 1) }
        default: false
        }
    }

    private static func clipped(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var out = ""
        for c in text {
            if out.utf8.count + c.utf8.count > limit - 3 { break }
            out.append(c)
        }
        return out + "..."
    }
}

/// Makes labels unique in one collection: the second `"x"` is `"x" #2`.
private struct LabelCounter {
    var seen: [String: Int] = [:]
    mutating func unique(_ label: String) -> String {
        let n = (seen[label] ?? 0) + 1
        seen[label] = n
        return n == 1 ? label : "\(label) #\(n)"
    }
}

/// A class description as the walks see it: its index, `$classname` and `$classes` chain.
package struct ArchiveClass: Hashable, Sendable {
    package var uid: Int
    package var name: String
    package var chain: [String]

    /// Whether `name` is in the chain.
    package func isKind(of name: String) -> Bool { chain.contains(name) }

    /// `NSMutableArray < NSArray < NSObject`.
    package var chainText: String { chain.joined(separator: " < ") }
}

/// Where a child lies: an object in `$objects`, or a value inline in its parent.
package enum ArchiveSlot: Hashable, Sendable {
    case object(Int)
    case value(PlistValue)
}

/// What a slot holds (``ArchiveEntries/node(_:)``).
package enum ArchiveNode {
    /// `$null`, a scalar, or a collection without UIDs: compared by value.
    case leaf(PlistValue)
    /// An object with a `$class`, and its fields.
    case instance(ArchiveClass, PlistDictionary)
    /// An array, dictionary or set (inline, or a bare entry) holding UIDs.
    case container(PlistValue)
}

/// One step of a path from an archive's roots: `root.items[2]["name"]{"red"}`.
package enum ArchiveStep: Hashable, Sendable, Comparable {
    /// A `$top` key: `root`.
    case top(String)
    /// A field: `.title`.
    case field(String)
    /// An array or ordered-set element: `[2]`.
    case index(Int)
    /// A dictionary entry, by the label of its key: `["name"]`.
    case key(String)
    /// A set member, by its label: `{"red"}`.
    case member(String)

    /// The step as a path writes it.
    package var text: String {
        switch self {
        case .top(let k): k
        case .field(let k): "." + k
        case .index(let i): "[\(i)]"
        case .key(let k): "[\(k)]"
        case .member(let k): "{\(k)}"
        }
    }

    private var rank: Int {
        switch self {
        case .top: 0
        case .field: 1
        case .index: 2
        case .key: 3
        case .member: 4
        }
    }

    package static func < (a: ArchiveStep, b: ArchiveStep) -> Bool {
        switch (a, b) {
        case (.index(let x), .index(let y)): return x < y
        case (.top(let x), .top(let y)), (.field(let x), .field(let y)), (.key(let x), .key(let y)),
             (.member(let x), .member(let y)):
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        default: return a.rank < b.rank
        }
    }

    /// A path's text: the steps one after another, a run of more than three equal steps written once with its
    /// count (`root(.next)*599.n`), `$top` for no step.
    package static func path(_ steps: some Sequence<ArchiveStep>) -> String {
        var runs = ArchivePathRuns()
        for step in steps { runs.push(step) }
        return runs.text
    }
}

/// A path kept as runs of equal steps, so that a walk can follow it step by step (``push(_:)``, ``pop()``) and
/// write it in time proportional to its runs, not its length: a chain 200,000 objects deep is `root(.next)*199999`.
package struct ArchivePathRuns {
    private var runs: [(step: ArchiveStep, count: Int)] = []

    package init() {}

    package mutating func push(_ step: ArchiveStep) {
        if let last = runs.last, last.step == step { runs[runs.count - 1].count += 1 } else { runs.append((step, 1)) }
    }

    package mutating func pop() {
        guard let last = runs.last else { return }
        if last.count > 1 { runs[runs.count - 1].count -= 1 } else { runs.removeLast() }
    }

    /// The path (`$top` when empty).
    package var text: String { text(then: nil) }

    /// The path with one more step.
    package func text(then step: ArchiveStep?) -> String {
        var out = ""
        var pending: (step: ArchiveStep, count: Int)?
        func write(_ run: (step: ArchiveStep, count: Int)) {
            let t = run.step.text
            out += run.count > 3 ? "(\(t))*\(run.count)" : String(repeating: t, count: run.count)
        }
        for run in runs {
            if let p = pending { write(p) }
            pending = run
        }
        if let step {
            if let p = pending, p.step == step { pending = (step, p.count + 1) } else {
                if let p = pending { write(p) }
                pending = (step, 1)
            }
        }
        if let p = pending { write(p) }
        return out.isEmpty ? "$top" : out
    }
}

/// Short renderings of values for one-line messages.
package enum ArchiveValueText {
    /// The value as compact plist-JSON (UIDs as `{"uid": n}`).
    package static func json(_ v: PlistValue) -> String {
        var w = JSONWriter(pretty: false)
        w.plist(v)
        return w.text
    }
}

/// How a walk first reached each object: the nearest object above it (or a root) and the steps from there,
/// so that the path of any object can be written at the end without keeping a path per object.
///
/// ```swift
/// var book = ArchivePathBook()
/// book.record(5, parent: -1, steps: [.top("root")])
/// book.record(9, parent: 5, steps: [.field("items"), .index(2)])
/// book.path(of: 9)   // root.items[2]
/// ```
package struct ArchivePathBook {
    private var origin: [Int: (parent: Int, steps: [ArchiveStep])] = [:]

    package init() {}

    /// Records, once, that object `uid` was reached from object `parent` (-1: from `$top`) by `steps`.
    package mutating func record(_ uid: Int, parent: Int, steps: [ArchiveStep]) {
        if origin[uid] == nil { origin[uid] = (parent, steps) }
    }

    /// The path of a recorded object (`$top` for one never recorded).
    package func path(of uid: Int) -> String { path(from: uid, then: []) }

    /// The path of object `anchor` (-1: `$top`) followed by `steps`.
    package func path(from anchor: Int, then steps: [ArchiveStep]) -> String {
        var chunks: [[ArchiveStep]] = [steps]
        var current = anchor
        var left = origin.count  // a parent chain is at most every recorded object long
        while current >= 0, left > 0, let o = origin[current] {
            chunks.append(o.steps)
            current = o.parent
            left -= 1
        }
        return ArchiveStep.path(chunks.reversed().joined())
    }
}
