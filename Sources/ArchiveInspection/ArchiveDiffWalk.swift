import BinaryPlist
import KeyedArchive

/// The walk behind ``ArchiveDiff/differences(between:and:_:)``: both graphs are walked together from
/// their roots, children matched by their step (field key, array index, dictionary key, set member), never
/// by UID, so UID numbering, object order, string uniquing and binary against XML make no difference.
///
/// Objects (instances, and containers that are `$objects` entries) are paired the first time a path reaches
/// them in both archives, and are compared once: reaching a pair again is sharing (or a cycle) that both
/// archives have; reaching an object already paired with another is a sharing or cycle difference, reported
/// there and not followed. So the walk is linear in the two archives, with an explicit stack (no recursion,
/// however deep the graph), and memory is the archives, a few words per object and the stack.
struct ArchiveDiffWalk {
    private let a: ArchiveEntries
    private let b: ArchiveEntries
    private var sideA: Side
    private var sideB: Side
    private var stack: [Frame] = []
    /// The steps of the frames on the stack but the first, which stands for `$top`.
    private var runs = ArchivePathRuns()
    private let report: (ArchiveDifference) throws -> Void
    private static let valueLimit = ArchiveDiff.valueLimit

    /// Per-archive state: which object each object is paired with, which are on the path, how each was
    /// first reached.
    private struct Side {
        var partner: [Int32]
        var onPath: [Bool]
        /// How each paired object was first reached.
        var paths = ArchivePathBook()

        init(count: Int) {
            partner = Array(repeating: -1, count: count)
            onPath = Array(repeating: false, count: count)
        }
    }

    /// A node whose children are being compared.
    private struct Frame {
        var uidA: Int?
        var uidB: Int?
        var step: ArchiveStep
        var childrenA: [(step: ArchiveStep, slot: ArchiveSlot)]
        var childrenB: [(step: ArchiveStep, slot: ArchiveSlot)]
        var i = 0
        var j = 0
    }

    /// Compares the archives `bytesA` and `bytesB` (binary or XML), handing each difference to `report` in
    /// a stable order (depth first, children in step order).
    /// - Throws: ``ArchiveDiffError`` when either is not a well-formed keyed archive, saying which; or what
    ///   `report` throws.
    static func compare(_ bytesA: [UInt8], _ bytesB: [UInt8], report: (ArchiveDifference) throws -> Void) throws {
        do {
            try ArchiveEntries.read(bytesA) { a in
                do {
                    try ArchiveEntries.read(bytesB) { b in
                        try withoutActuallyEscaping(report) { report in
                            var diff = ArchiveDiffWalk(a: a, b: b, report: report)
                            do { try diff.run() } catch let error as KeyedArchiveError {
                                throw ArchiveDiffError(side: diff.lastSide, underlying: error)
                            }
                        }
                    }
                } catch let error as KeyedArchiveError {
                    throw ArchiveDiffError(side: .b, underlying: error)
                }
            }
        } catch let error as KeyedArchiveError {
            throw ArchiveDiffError(side: .a, underlying: error)
        }
    }

    private init(a: ArchiveEntries, b: ArchiveEntries, report: @escaping (ArchiveDifference) throws -> Void) {
        self.a = a
        self.b = b
        sideA = Side(count: a.objectCount)
        sideB = Side(count: b.objectCount)
        self.report = report
    }

    /// The archive the walk was reading last: the one a ``KeyedArchiveError`` came from.
    private var lastSide: ArchiveDiffError.Side = .a

    private mutating func run() throws {
        if a.archiver != b.archiver {
            try report(ArchiveDifference(path: "$archiver", kind: .changed, a: ArchiveValueText.json(.string(a.archiver)),
                                         b: ArchiveValueText.json(.string(b.archiver))))
        }
        lastSide = .a
        let rootsA = try a.roots()
        lastSide = .b
        let rootsB = try b.roots()
        stack.append(Frame(uidA: nil, uidB: nil, step: .top(""), childrenA: rootsA, childrenB: rootsB))
        while !stack.isEmpty {
            let top = stack.count - 1
            let f = stack[top]
            let childA = f.i < f.childrenA.count ? f.childrenA[f.i] : nil
            let childB = f.j < f.childrenB.count ? f.childrenB[f.j] : nil
            if let childA, let childB, childA.step == childB.step {
                stack[top].i += 1
                stack[top].j += 1
                try compare(childA.slot, childB.slot, step: childA.step)
            } else if let childA, childB.map({ childA.step < $0.step }) ?? true {
                stack[top].i += 1
                lastSide = .a
                try report(ArchiveDifference(path: path(childA.step), kind: .removed, a: try describe(childA.slot, a), b: nil))
            } else if let childB {
                stack[top].j += 1
                lastSide = .b
                try report(ArchiveDifference(path: path(childB.step), kind: .added, a: nil, b: try describe(childB.slot, b)))
            } else {
                if let u = f.uidA { sideA.onPath[u] = false }
                if let u = f.uidB { sideB.onPath[u] = false }
                stack.removeLast()
                if !stack.isEmpty { runs.pop() }
            }
        }
    }

    /// Compares the children reached by `step` in both archives.
    private mutating func compare(_ slotA: ArchiveSlot, _ slotB: ArchiveSlot, step: ArchiveStep) throws {
        lastSide = .a
        let nodeA = try a.node(slotA)
        lastSide = .b
        let nodeB = try b.node(slotB)
        let uidA = Self.tracked(slotA, nodeA)
        let uidB = Self.tracked(slotB, nodeB)
        if uidA != nil || uidB != nil {
            let pairedA = uidA.map { Int(sideA.partner[$0]) } ?? -1
            let pairedB = uidB.map { Int(sideB.partner[$0]) } ?? -1
            if uidA != nil, let uidB, pairedA == uidB { return }  // reached again in both: sharing (or a cycle) both have
            if pairedA != -1 || pairedB != -1 {
                let inCycle = (uidA.map { sideA.onPath[$0] } ?? false) || (uidB.map { sideB.onPath[$0] } ?? false)
                try report(ArchiveDifference(path: path(step), kind: inCycle ? .cycle : .sharing,
                                             a: reach(uidA, pairedA, sideA), b: reach(uidB, pairedB, sideB)))
                return
            }
            if let uidA {
                sideA.partner[uidA] = Int32(truncatingIfNeeded: uidB ?? -2)
                let o = origin(\.uidA, step)
                sideA.paths.record(uidA, parent: o.parent, steps: o.steps)
            }
            if let uidB {
                sideB.partner[uidB] = Int32(truncatingIfNeeded: uidA ?? -2)
                let o = origin(\.uidB, step)
                sideB.paths.record(uidB, parent: o.parent, steps: o.steps)
            }
        }
        switch (nodeA, nodeB) {
        case (.leaf(let x), .leaf(let y)):
            if !Self.same(x, y) {
                try report(ArchiveDifference(path: path(step), kind: .changed, a: Self.text(x), b: Self.text(y)))
            }
            return
        case (.instance(let ca, _), .instance(let cb, _)):
            if ca.chain != cb.chain {
                let (x, y) = ca.name != cb.name ? (ca.name, cb.name) : (ca.chainText, cb.chainText)
                try report(ArchiveDifference(path: path(step), kind: .class, a: x, b: y))
            }
        case (.container(let x), .container(let y)) where x.kindName == y.kindName:
            break
        default:
            try report(ArchiveDifference(path: path(step), kind: .changed, a: Self.describe(nodeA), b: Self.describe(nodeB)))
            return
        }
        lastSide = .a
        let childrenA = try a.children(of: nodeA, uid: uidA)
        lastSide = .b
        let childrenB = try b.children(of: nodeB, uid: uidB)
        if let uidA { sideA.onPath[uidA] = true }
        if let uidB { sideB.onPath[uidB] = true }
        stack.append(Frame(uidA: uidA, uidB: uidB, step: step, childrenA: childrenA, childrenB: childrenB))
        runs.push(step)
    }

    /// Whether two leaves are the same value: equal plist values, where every NaN is the same NaN (its payload
    /// means nothing, and plist-JSON and XML keep none).
    static func same(_ x: PlistValue, _ y: PlistValue) -> Bool {
        x == y || canonicalNaNs(x) == canonicalNaNs(y)
    }

    private static func canonicalNaNs(_ v: PlistValue) -> PlistValue {
        switch v {
        case .real(let r) where r.isNaN: .real(.nan)
        case .date(let d) where d.secondsSinceReferenceDate.isNaN: .date(PlistDate(secondsSinceReferenceDate: .nan))
        case .array(let items): .array(items.map(canonicalNaNs))
        case .set(let items): .set(items.map(canonicalNaNs))
        case .dictionary(let d):
            .dictionary(PlistDictionary(entries: d.entries.map { .init(key: canonicalNaNs($0.key), value: canonicalNaNs($0.value)) }))
        default: v
        }
    }

    /// The object index of a slot whose identity counts: an instance or a container that is an entry.
    private static func tracked(_ slot: ArchiveSlot, _ node: ArchiveNode) -> Int? {
        guard case .object(let uid) = slot else { return nil }
        if case .leaf = node { return nil }
        return uid
    }

    /// How the nearest paired ancestor on the stack (by `side`) reaches the child at `step`.
    private func origin(_ side: KeyPath<Frame, Int?>, _ step: ArchiveStep) -> (parent: Int, steps: [ArchiveStep]) {
        var steps = [step]
        for frame in stack.dropFirst().reversed() {  // stack[0] stands for $top
            if let uid = frame[keyPath: side] { return (uid, steps.reversed()) }
            steps.append(frame.step)
        }
        return (-1, steps.reversed())
    }

    /// "the object at root.a", "a cycle back to root", "a separate object".
    private func reach(_ uid: Int?, _ paired: Int, _ side: Side) -> String {
        guard let uid else { return "a value" }
        guard paired != -1 else { return "a separate object" }
        let at = side.paths.path(of: uid)
        return side.onPath[uid] ? "a cycle back to \(at)" : "the object at \(at)"
    }

    /// The path of the child at `step` of the frame on top of the stack, in time proportional to its runs.
    private func path(_ step: ArchiveStep) -> String { runs.text(then: step) }

    private func describe(_ slot: ArchiveSlot, _ entries: ArchiveEntries) throws -> String {
        Self.describe(try entries.node(slot))
    }

    /// A node in a line: a value as plist-JSON, an object as `<Class>`, a container as `<array of 3>`.
    private static func describe(_ node: ArchiveNode) -> String {
        switch node {
        case .leaf(let v): text(v)
        case .instance(let c, _): "<\(c.name)>"
        case .container(let v): "<\(v.kindName)>"
        }
    }

    private static func text(_ v: PlistValue) -> String {
        let s = ArchiveValueText.json(v)
        guard s.count > valueLimit else { return s }
        return String(s.prefix(valueLimit - 3)) + "... (\(s.utf8.count) bytes as JSON)"
    }
}
