extension BinaryPlistObjects {
    /// Materializes object `index` and everything below it, within the document's limits: the ``PlistValue``
    /// tree built on the events of a ``BinaryPlistDocument/EventReader``, the one reader that checks the bytes
    /// (as rust-plist builds its `Value` on its event reader). It throws the reader's ``PlistError``s.
    @usableFromInline package func materialize(_ index: Int) throws(PlistError) -> PlistValue {
        var reader = try events(index)
        var builder = BinaryPlistTreeBuilder()
        return try builder.value(&reader)
    }
}

/// Builds a ``PlistValue`` from a reader's events, checking nothing itself: the reader has checked every
/// object it reports.
///
/// Every value read goes on one stack (``BinaryPlistValueStack``), a dictionary's as its key then its value; a
/// collection's values are the top of the stack from where it began, moved (not copied) into an array of
/// exactly their count when it ends. So a collection costs one allocation, made once its size is known, and
/// its unfinished ancestors are only their kind and where their values begin.
struct BinaryPlistTreeBuilder {
    /// Recently read string keys by object index (direct-mapped): dictionary keys repeat the same objects, and a
    /// key found here is passed over (``BinaryPlistDocument/EventReader/skipKey(_:)``), not read again. Made once
    /// a read has reached a few dozen values, so that materializing many small objects one by one does not pay
    /// for it each time.
    ///
    /// A slot holds the object index and where its value is in `keyValues` (`-1`: empty): only plain numbers,
    /// so that making and dropping the 256 slots is a fill and a free, and only the keys cached are released.
    private var keySlots: [(index: Int, position: Int)] = []
    /// The cached keys' values, at most one per slot.
    private var keyValues: [PlistValue] = []

    /// A collection being filled: its kind and where its values begin on the stack.
    private struct Frame {
        enum Kind { case root, array, set, dictionary }
        let kind: Kind
        let base: Int
    }

    /// Remembers string `value`, read from key object `index`, in its slot (replacing the key there).
    private mutating func cacheKey(_ index: Int, _ value: PlistValue) {
        let slot = index & 255
        let position = keySlots[slot].position
        if position >= 0 {
            keyValues[position] = value
        } else {
            keySlots[slot].position = keyValues.count
            keyValues.append(value)
        }
        keySlots[slot].index = index
    }

    /// The value that `reader`'s events make. The reader is left where it failed when it throws: the caller
    /// drops it.
    mutating func value(_ reader: inout BinaryPlistDocument.EventReader) throws(PlistError) -> PlistValue {
        var stack = BinaryPlistValueStack()
        defer { stack.free() }
        var parents: [Frame] = []
        var current = Frame(kind: .root, base: 0)
        read: while true {
            var keyObject = -1
            // A dictionary's next value is a key when an even number of its values are on the stack.
            if current.kind == .dictionary && (stack.count &- current.base) & 1 == 0,
               let index = reader.nextKeyObject() {
                if keySlots.isEmpty {
                    if reader.elements > 32 { keySlots = Array(repeating: (-1, -1), count: 256) }
                } else if keySlots[index & 255].index == index {
                    try reader.skipKey(index)
                    stack.push(keyValues[keySlots[index & 255].position])
                    continue
                }
                keyObject = index
            }
            // `step()`, not `next()`: nothing reads the reader after an error.
            guard let event = try reader.step() else { break }
            let value: PlistValue
            switch event {
            case .beginArray(let n):
                parents.append(current)
                current = Frame(kind: .array, base: stack.count)
                // `n` is a count the reader checked against the bytes left (each element has a reference).
                stack.reserve(n)
                continue
            case .beginSet(let n):
                parents.append(current)
                current = Frame(kind: .set, base: stack.count)
                stack.reserve(n)
                continue
            case .beginDictionary(let n):
                parents.append(current)
                current = Frame(kind: .dictionary, base: stack.count)
                stack.reserve(2 &* n)
                continue
            case .end:
                // The reader ends only collections it began: there is a parent.
                guard let parent = parents.popLast() else { break read }
                switch current.kind {
                case .array: value = .array(stack.popArray(from: current.base))
                case .set: value = .set(stack.popArray(from: current.base))
                default: value = .dictionary(PlistDictionary(entries: stack.popEntries(from: current.base)))
                }
                current = parent
            case .string(let s):
                value = .string(s.string)
                if keyObject >= 0 && !keySlots.isEmpty { cacheKey(keyObject, value) }
            case .integer(let i): value = .integer(i)
            case .real(let d): value = .real(d)
            case .bool(let b): value = .bool(b)
            case .date(let d): value = .date(d)
            case .data(let d): value = .data(Array(d))
            case .uid(let u): value = .uid(u)
            case .null: value = .null
            }
            stack.push(value)
        }
        return stack.popLast() ?? .null
    }
}

/// The values of the collections a ``BinaryPlistTreeBuilder`` is filling, in one buffer it manages: pushed
/// one by one, then moved out as one collection's array when it ends (no copy, no reference counting), and
/// deinitialized by ``free()`` if the read stops early.
struct BinaryPlistValueStack {
    private var storage = UnsafeMutableBufferPointer<PlistValue>(start: nil, count: 0)
    /// The number of values on the stack: `storage[0..<count]` are initialized.
    private(set) var count = 0

    /// Makes room for `extra` more values at once (a collection's count, known when it begins).
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        let (needed, overflow) = count.addingReportingOverflow(extra)
        if !overflow && needed > storage.count { grow(to: needed) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let capacity = max(needed, 2 &* storage.count, 32)
        let bigger = UnsafeMutableBufferPointer<PlistValue>.allocate(capacity: capacity)
        if count > 0 {
            _ = bigger.moveInitialize(fromContentsOf: storage[0..<count])
        }
        storage.deallocate()
        storage = bigger
    }

    @inline(__always)
    mutating func push(_ value: PlistValue) {
        if count == storage.count { grow(to: count &+ 1) }
        storage.initializeElement(at: count, to: value)
        count &+= 1
    }

    /// The top value, taken off the stack; `nil` when it is empty.
    mutating func popLast() -> PlistValue? {
        guard count > 0 else { return nil }
        count &-= 1
        return storage.moveElement(from: count)
    }

    /// The values from `base` to the top, moved into an array of exactly their count.
    ///
    /// `reserveCapacity` and `append`, not `init(unsafeUninitializedCapacity:initializingWith:)`: that one calls
    /// the standard library's unspecialized buffer allocation, which looks the storage type's metadata up in the
    /// runtime's cache for every array (9% of a nib's read).
    mutating func popArray(from base: Int) -> [PlistValue] {
        var values: [PlistValue] = []
        values.reserveCapacity(count &- base)
        for i in base..<count { values.append(storage.moveElement(from: i)) }
        count = base
        return values
    }

    /// The values from `base` to the top, keys and values in turn, moved into entries (exactly their count).
    mutating func popEntries(from base: Int) -> [PlistDictionary.Entry] {
        // The reader ends a dictionary after its last value: a key without one is not left, but is not leaked.
        if (count &- base) & 1 == 1, let last = popLast() { _ = last }
        var entries: [PlistDictionary.Entry] = []
        entries.reserveCapacity((count &- base) >> 1)
        var from = base
        while from < count {
            entries.append(PlistDictionary.Entry(key: storage.moveElement(from: from), value: storage.moveElement(from: from &+ 1)))
            from &+= 2
        }
        count = base
        return entries
    }

    /// Deinitializes what is left on the stack and frees its buffer.
    mutating func free() {
        if count > 0 { UnsafeMutableBufferPointer(rebasing: storage[0..<count]).deinitialize() }
        storage.deallocate()
        storage = UnsafeMutableBufferPointer(start: nil, count: 0)
        count = 0
    }
}
