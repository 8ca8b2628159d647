/// A ``PlistValue`` rebuilt from ``BinaryPlistObjects/Event``s by a builder that checks their nesting and
/// counts: how the tests and the fuzz target hold the tree that ``BinaryPlistObjects/materialize(_:)`` builds
/// on the same events to what the events say (the same value, or the same error).
package struct BinaryPlistEventTree {
    private enum Kind { case array, set, dictionary }
    private struct Open {
        let kind: Kind
        let count: Int
        var items: [PlistValue] = []
        var pendingKey: PlistValue?
        var entries: [PlistDictionary.Entry] = []
    }

    /// Why a sequence of events is not one value.
    package struct Malformed: Error, Equatable {
        package let reason: String
    }

    private var open: [Open] = []
    private var done: PlistValue?
    private var malformed: String?

    package init() {}

    /// Object `index` of `objects`, read by a walk.
    package static func value(of index: Int, in objects: BinaryPlistObjects) throws -> PlistValue {
        var tree = BinaryPlistEventTree()
        try objects.walk(index) { tree.add($0) }
        return try tree.value()
    }

    /// The value the events added so far make; ``Malformed`` when they are not exactly one value.
    package func value() throws(Malformed) -> PlistValue {
        if let malformed { throw Malformed(reason: malformed) }
        guard open.isEmpty, let done else { throw Malformed(reason: "the events end inside a collection") }
        return done
    }

    package mutating func add(_ event: BinaryPlistObjects.Event) {
        guard malformed == nil else { return }
        guard done == nil else { malformed = "an event after the value ended"; return }
        switch event {
        case .beginArray(let n): open.append(Open(kind: .array, count: n))
        case .beginSet(let n): open.append(Open(kind: .set, count: n))
        case .beginDictionary(let n): open.append(Open(kind: .dictionary, count: n))
        case .end:
            guard let last = open.popLast() else { malformed = "an end outside any collection"; return }
            let made: PlistValue
            switch last.kind {
            case .array, .set:
                guard last.items.count == last.count else { malformed = "\(last.items.count) elements of \(last.count)"; return }
                made = last.kind == .array ? .array(last.items) : .set(last.items)
            case .dictionary:
                guard last.entries.count == last.count, last.pendingKey == nil else {
                    malformed = "\(last.entries.count) entries of \(last.count)"; return
                }
                made = .dictionary(PlistDictionary(entries: last.entries))
            }
            place(made)
        case .null: place(.null)
        case .bool(let b): place(.bool(b))
        case .integer(let i): place(.integer(i))
        case .real(let d): place(.real(d))
        case .date(let d): place(.date(d))
        case .uid(let u): place(.uid(u))
        case .string(let s): place(.string(s.string))
        case .data(let d): place(.data(Array(d)))
        }
    }

    private mutating func place(_ value: PlistValue) {
        guard var top = open.popLast() else { done = value; return }
        switch top.kind {
        case .array, .set:
            top.items.append(value)
        case .dictionary:
            if let key = top.pendingKey {
                top.entries.append(.init(key: key, value: value))
                top.pendingKey = nil
            } else {
                top.pendingKey = value
            }
        }
        open.append(top)
    }
}
