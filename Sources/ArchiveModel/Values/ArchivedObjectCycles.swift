/// Finds the cycles among the ``ArchivedObject``s of one decode as they are read (Tarjan's strongly
/// connected components over the depth-first order of decoding), so that each cycle's objects are moved into
/// an ``ArchivedObjectGraph`` once its last object is read, and no strong reference cycle is left behind.
///
/// An edge is a reference from the fields of the innermost object being read (through arrays, dictionaries,
/// sets and registered objects alike) to an object decoded before: a reference to one still on the stack
/// lowers the reader's low link, as in Tarjan's algorithm. Objects reached first are read inside their
/// referrer, so the tree edges are the nesting of ``begin(_:)`` and ``end(_:)``.
package struct ArchivedObjectCycles {
    /// An object on the stack, with its number in the depth-first order and its low link.
    private struct Entry {
        let object: ArchivedObject
        let number: Int
        var low: Int
        var selfReference = false
    }

    /// One array, so that an object going on and off the stack is one append and one removal.
    private var stack: [Entry] = []
    /// Stack positions of the objects whose fields are being read, innermost last.
    private var path: [Int] = []
    private var counter = 0
    /// For a mutable object finished while objects were on the stack: the lowest of them its value refers to.
    /// A later reference to the mutable object (which is shared, not read again) is a reference to that one.
    /// The object is kept by its number (not held: the tracker outlives no decode, but holds no object either).
    private var lowestInside: [ObjectIdentifier: Int] = [:]

    /// No objects yet.
    package init() {}

    /// Whether the fields of an ``ArchivedObject`` are being read.
    package var isActive: Bool { !path.isEmpty }

    package mutating func begin(_ object: ArchivedObject) {
        let p = stack.count
        stack.append(Entry(object: object, number: counter, low: counter))
        counter += 1
        object.cycleStackPosition = p
        path.append(p)
    }

    /// A reference from the object being read to `object`, decoded before.
    package mutating func reference(_ object: ArchivedObject) {
        guard let current = path.last, let p = stackPosition(of: object) else { return }
        if p == current { stack[p].selfReference = true }
        if stack[p].number < stack[current].low { stack[current].low = stack[p].number }
    }

    /// `mutable` has been read, holding `value`: remembers the lowest object on the stack its value refers to
    /// (through collections and other mutable objects), so that a later reference to it counts as one to that.
    package mutating func finished(_ mutable: ArchivedMutableObject, holding value: Any) {
        guard !stack.isEmpty else { return }
        var lowest: Int?
        visit(value, depth: 0) { n in
            if lowest.map({ n < $0 }) ?? true { lowest = n }
        }
        if let lowest { lowestInside[ObjectIdentifier(mutable)] = lowest }
    }

    /// A reference from the object being read to `mutable`, read before: a reference to what it refers to,
    /// if that is still on the stack.
    package mutating func reference(_ mutable: ArchivedMutableObject) {
        guard let n = lowestInside[ObjectIdentifier(mutable)], let current = path.last else { return }
        // Numbers rise along the stack: the object numbered `n` is on it if some position holds `n`.
        var lo = 0
        var hi = stack.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if stack[mid].number < n { lo = mid + 1 } else { hi = mid }
        }
        guard lo < stack.count, stack[lo].number == n else { return }
        if lo == current { stack[lo].selfReference = true }
        if n < stack[current].low { stack[current].low = n }
    }

    /// Calls `found` with the number of each object on the stack `value` refers to, through the collections
    /// decoding makes.
    private func visit(_ value: Any, depth: Int, _ found: (Int) -> Void) {
        guard depth < 10_000 else { return }
        switch value {
        case let object as ArchivedObject:
            if let p = stackPosition(of: object) { found(stack[p].number) }
        case let mutable as ArchivedMutableObject:
            if let n = lowestInside[ObjectIdentifier(mutable)] { found(n) }
        default:
            ArchivedValueTeardown.forEachElement(of: value) { visit($0, depth: depth + 1, found) }
        }
    }

    /// Ends reading `object`'s fields; the members of the cycle it closes, if any (at least two, or one that
    /// refers to itself).
    package mutating func end(_ object: ArchivedObject) -> [ArchivedObject]? {
        let p = path.removeLast()
        let low = stack[p].low
        if let parent = path.last, low < stack[parent].low { stack[parent].low = low }
        guard low == stack[p].number else { return nil }
        if stack.count - p == 1 && !stack[p].selfReference {
            // No cycle (nearly every object): off the stack without gathering members.
            stack.removeLast().object.cycleStackPosition = -1
            return nil
        }
        return pop(from: p)
    }

    /// The position of `object` on this finder's stack, if it is there.
    private func stackPosition(of object: ArchivedObject) -> Int? {
        let p = object.cycleStackPosition
        return p >= 0 && p < stack.count && stack[p].object === object ? p : nil
    }

    /// Reading `object`'s fields failed: it and the objects read inside it that are still on the stack.
    package mutating func abandon(_ object: ArchivedObject) -> [ArchivedObject] {
        let p = path.removeLast()
        return pop(from: p)
    }

    private mutating func pop(from p: Int) -> [ArchivedObject] {
        let members = stack[p...].map(\.object)
        for m in members { m.cycleStackPosition = -1 }
        stack.removeSubrange(p...)
        return members
    }
}
