import BinaryPlist
import KeyedArchive

/// The walk behind ``ArchiveAudit/audit(_:)``: the graph from `$top` once, depth first with an explicit
/// stack, reading each object once: linear time, memory within the archive's size (``ArchiveEntries`` keeps
/// what it read) and a few words per object. Never decodes; never traps.
struct ArchiveAuditor {
    private static let listLength = ArchiveAudit.listLength
    private static let notesPerKind = ArchiveAudit.notesPerKind
    private static let maxNesting = ArchiveAudit.maxNesting

    private let entries: ArchiveEntries
    private let nesting: Int
    private var report = ArchiveAudit()
    private var paths = ArchivePathBook()
    private var visited: [Bool]
    private var onPath: [Bool]
    private var references: [Int32]
    private var classCounts: [Int: Int] = [:]
    private var classByUID: [Int: ArchiveClass] = [:]
    private var noteCounts: [String: Int] = [:]
    private var stack: [Frame] = []

    private struct Frame {
        var uid: Int?
        var step: ArchiveStep
        var children: [(step: ArchiveStep, slot: ArchiveSlot)]
        var next = 0
    }

    /// Where something lies: an object's path anchor and the steps after it.
    private struct Place {
        var anchor: Int
        var steps: [ArchiveStep]
    }

    /// A "largest" candidate kept until the end, when its path is written.
    private struct Candidate {
        var size: Int
        var place: Place
        var what: String
    }

    private var collections: [Candidate] = []
    private var strings: [Candidate] = []
    private var datas: [Candidate] = []
    private var cycleCandidates: [Candidate] = []
    private var deepest = Place(anchor: -1, steps: [])
    private var pendingNotes: [(kind: String, place: Place?, text: String)] = []
    private var nestedPending: [(place: Place, bytes: [UInt8])] = []

    /// Audits the binary or XML keyed archive `bytes`, nested `nesting` archives deep.
    /// - Throws: `KeyedArchiveError` when it is not a well-formed keyed archive.
    static func audit(_ bytes: [UInt8], nesting: Int) throws -> ArchiveAudit {
        try ArchiveEntries.read(bytes) { entries in
            var auditor = ArchiveAuditor(entries: entries, nesting: nesting)
            return try auditor.run()
        }
    }

    private init(entries: ArchiveEntries, nesting: Int) {
        self.entries = entries
        self.nesting = nesting
        visited = Array(repeating: false, count: entries.objectCount)
        onPath = Array(repeating: false, count: entries.objectCount)
        references = Array(repeating: 0, count: entries.objectCount)
    }

    private mutating func run() throws -> ArchiveAudit {
        report.archiver = entries.archiver
        report.objectCount = entries.objectCount
        if entries.archiver != "NSKeyedArchiver" {
            note("archiver", nil, "written by archiver \"\(entries.archiver)\", not NSKeyedArchiver")
        }
        stack.append(Frame(uid: nil, step: .top(""), children: try entries.roots()))
        while !stack.isEmpty {
            let top = stack.count - 1
            guard stack[top].next < stack[top].children.count else {
                if let uid = stack[top].uid { onPath[uid] = false }
                stack.removeLast()
                continue
            }
            let child = stack[top].children[stack[top].next]
            stack[top].next += 1
            try visit(child.slot, step: child.step)
        }
        try finish()
        return report
    }

    /// The place of the child at `step` of the frame on top of the stack: its nearest object and the steps.
    private func place(_ step: ArchiveStep) -> Place {
        var steps = [step]
        for frame in stack.dropFirst().reversed() {
            if let uid = frame.uid { return Place(anchor: uid, steps: steps.reversed()) }
            steps.append(frame.step)
        }
        return Place(anchor: -1, steps: steps.reversed())
    }

    private mutating func visit(_ slot: ArchiveSlot, step: ArchiveStep) throws {
        let node: ArchiveNode
        do { node = try entries.node(slot) } catch var error as KeyedArchiveError {
            if error.keyPath == nil { error.keyPath = paths.path(from: place(step).anchor, then: place(step).steps) }
            throw error
        }
        var uid: Int?
        if case .object(let u) = slot, u != 0 {
            references[u] &+= 1
            if visited[u] {
                if references[u] == 2 { report.sharedObjects += 1 }
                report.sharedReferences += 1
                if onPath[u] {
                    report.cycles += 1
                    keep(&cycleCandidates, Candidate(size: report.cycles, place: place(step), what: paths.path(of: u)),
                         byFirst: true)
                }
                return
            }
            visited[u] = true
            report.reached += 1
            let p = place(step)
            paths.record(u, parent: p.anchor, steps: p.steps)
            uid = u
        }
        if case .leaf(let value) = node {
            scalar(value, at: place(step))
            return
        }
        let depth = stack.count  // objects and collections on the way from $top, this one included
        if depth > report.maxDepth {
            report.maxDepth = depth
            deepest = place(step)
        }
        switch node {
        case .leaf:
            return
        case .instance(let c, let fields):
            classCounts[c.uid, default: 0] += 1
            classByUID[c.uid] = c
            try instanceNotes(c, fields, at: place(step))
        case .container:
            break
        }
        let children = try entries.children(of: node, uid: uid)
        if let size = Self.collectionSize(node, children: children) {
            keep(&collections, Candidate(size: size, place: place(step), what: Self.describe(node)))
        }
        if let uid { onPath[uid] = true }
        stack.append(Frame(uid: uid, step: step, children: children))
    }

    /// The element count of a collection: an array, set or dictionary instance or container.
    private static func collectionSize(_ node: ArchiveNode, children: [(step: ArchiveStep, slot: ArchiveSlot)]) -> Int? {
        switch node {
        case .instance(let c, _):
            guard c.isKind(of: "NSArray") || c.isKind(of: "NSDictionary") || c.isKind(of: "NSSet")
                || c.isKind(of: "NSOrderedSet") else { return nil }
            return children.count { if case .field = $0.step { false } else { true } }
        case .container(let v):
            switch v {
            case .array(let a), .set(let a): return a.count
            case .dictionary(let d): return d.count
            default: return nil
            }
        case .leaf:
            return nil
        }
    }

    private static func describe(_ node: ArchiveNode) -> String {
        switch node {
        case .instance(let c, _): c.name
        case .container(let v), .leaf(let v): v.kindName
        }
    }

    /// Strings and data: sizes, nested archives; inline collections' scalars too.
    private mutating func scalar(_ value: PlistValue, at place: Place) {
        switch value {
        case .string(let s):
            keep(&strings, Candidate(size: s.utf8.count, place: place, what: "string"))
        case .data(let d):
            keep(&datas, Candidate(size: d.count, place: place, what: "data"))
            if Self.mayBeArchive(d) { nestedPending.append((place, d)) }
        case .array(let items), .set(let items):
            for (i, item) in items.enumerated() where item.isCollection || item.stringValue != nil || item.dataValue != nil {
                scalar(item, at: Place(anchor: place.anchor, steps: place.steps + [.index(i)]))
            }
        case .dictionary(let d):
            for e in d.entries where e.value.isCollection || e.value.stringValue != nil || e.value.dataValue != nil {
                scalar(e.value, at: Place(anchor: place.anchor, steps: place.steps + [.field(e.key.stringValue ?? "?")]))
            }
        default:
            break
        }
    }

    /// Data that starts as a binary or XML plist does.
    private static func mayBeArchive(_ d: [UInt8]) -> Bool { PropertyList.detectFormat(d) != nil }

    /// Notes on classes that secure coding treats specially or that advisories used.
    private mutating func instanceNotes(_ c: ArchiveClass, _ fields: PlistDictionary, at place: Place) throws {
        if c.isKind(of: "NSPredicate") || c.isKind(of: "NSExpression") {
            note("predicate", place, "\(c.name) (\(c.chainText)): predicates and expressions run code when "
                + "evaluated; secure decoding leaves them disabled until allowEvaluation()")
        }
        if c.isKind(of: "NSSortDescriptor"), let selector = fields["NSSelector"] {
            let name = try resolvedString(selector) ?? ArchiveValueText.json(selector)
            note("selector", place, "\(c.name) compares with selector \(name)")
        }
        if c.isKind(of: "NSURL") {
            let relative = try fields["NS.relative"].flatMap { try resolvedString($0) } ?? ""
            let base = try fields["NS.base"].flatMap { try resolvedString($0) }
            let isFile = relative.lowercased().hasPrefix("file:") || (base?.lowercased().hasPrefix("file:") ?? false)
            note(isFile ? "file-url" : "url", place, (isFile ? "file URL " : "URL ")
                + ArchiveValueText.json(.string(relative)) + (base.map { " relative to " + ArchiveValueText.json(.string($0)) } ?? ""))
        }
    }

    /// The string a field holds, inline or through a UID.
    private func resolvedString(_ value: PlistValue) throws -> String? {
        if case .uid(let u) = value, u.value > 0, u.value < UInt64(entries.objectCount) {
            return try entries.entry(Int(u.value)).stringValue
        }
        return value.stringValue
    }

    private mutating func note(_ kind: String, _ place: Place?, _ text: String) {
        noteCounts[kind, default: 0] += 1
        guard noteCounts[kind, default: 0] <= Self.notesPerKind else { return }
        pendingNotes.append((kind, place, text))
    }

    /// Keeps the `listLength` largest candidates (the first found among equals); `byFirst` keeps the first ones.
    private func keep(_ list: inout [Candidate], _ candidate: Candidate, byFirst: Bool = false) {
        if byFirst {
            if list.count < Self.listLength { list.append(candidate) }
            return
        }
        guard list.count < Self.listLength || candidate.size > (list.last?.size ?? 0) else { return }
        let at = list.firstIndex { $0.size < candidate.size } ?? list.count
        list.insert(candidate, at: at)
        if list.count > Self.listLength { list.removeLast() }
    }

    private func path(_ place: Place) -> String { paths.path(from: place.anchor, then: place.steps) }

    private mutating func finish() throws {
        for (uid, count) in classCounts {
            guard let c = classByUID[uid] else { continue }
            if let i = report.classes.firstIndex(where: { $0.name == c.name && $0.chain == c.chain }) {
                report.classes[i].count += count
            } else {
                report.classes.append(ArchiveAudit.ClassUse(name: c.name, chain: c.chain, count: count))
            }
        }
        report.classes.sort { ($0.count, $1.name) > ($1.count, $0.name) }
        for description in try entries.classDescriptions() {
            guard let name = description.name else { continue }
            report.classNames.insert(name)
            if classCounts[description.uid] == nil {
                note("unused-class", nil, "class \"\(name)\" (object \(description.uid)) is named, but no object "
                    + "reached from $top is of it")
            }
            if let c = try? entries.classOf(.uid(PlistUID(UInt64(description.uid))), object: description.uid),
               c.chain.first != name {
                note("class-chain", nil, "class description \(description.uid) names \"\(name)\", but its $classes "
                    + "chain is \(c.chainText)")
            }
        }
        report.deepestPath = path(deepest)
        report.largestCollections = collections.map { .init(size: $0.size, path: path($0.place), what: $0.what) }
        report.largestStrings = strings.map { .init(size: $0.size, path: path($0.place), what: $0.what) }
        report.largestData = datas.map { .init(size: $0.size, path: path($0.place), what: $0.what) }
        report.cycleExamples = cycleCandidates.map { .init(size: $0.size, path: path($0.place), what: $0.what) }
        var shared: [Candidate] = []
        for uid in references.indices where references[uid] > 1 {
            keep(&shared, Candidate(size: Int(references[uid]), place: Place(anchor: uid, steps: []), what: ""))
        }
        report.mostShared = try shared.map { c in
            let node = try entries.node(.object(c.place.anchor))
            return .init(size: c.size, path: path(c.place), what: Self.describe(node))
        }
        for (kind, count) in noteCounts.sorted(by: { $0.key < $1.key }) where count > Self.notesPerKind {
            pendingNotes.append((kind, nil, "... and \(count - Self.notesPerKind) more \(kind) notes"))
        }
        report.notes = pendingNotes.map { .init(kind: $0.kind, path: $0.place.map(path), text: $0.text) }
        for (place, bytes) in nestedPending {
            let at = path(place)
            guard nesting < Self.maxNesting else {
                report.notes.append(.init(kind: "nesting", path: at, text: "a plist nested more than "
                    + "\(Self.maxNesting) archives deep: not audited"))
                continue
            }
            do {
                let inner = try Self.audit(bytes, nesting: nesting + 1)
                report.classNames.formUnion(inner.classNames)
                report.nested.append(.init(path: at, audit: .success(inner)))
            } catch let error as KeyedArchiveError {
                // A plist that is not a keyed archive is just data; a damaged one, or a damaged archive, is named.
                if let value = try? PropertyList.decode(bytes), !value.looksLikeKeyedArchive { continue }
                report.nested.append(.init(path: at, audit: .failure(error)))
            }
        }
    }
}
