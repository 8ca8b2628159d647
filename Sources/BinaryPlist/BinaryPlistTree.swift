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
/// The collection being filled is a local value (`current`), its unfinished ancestors on `parents`: each value
/// is appended to an array the loop owns, and a frame moves only when a collection opens or closes.
struct BinaryPlistTreeBuilder {
    /// Recently read string keys by object index (direct-mapped): dictionary keys repeat the same objects, and a
    /// key found here is passed over (``BinaryPlistDocument/EventReader/skipKey(_:)``), not read again. Made once
    /// a read has reached a few dozen values, so that materializing many small objects one by one does not pay
    /// for it each time.
    private var keyCache: [(index: Int, value: PlistValue)] = []

    /// A collection being filled; the root pseudo-frame holds the one value read.
    private struct Frame {
        enum Kind { case root, array, set, dictionary }
        let kind: Kind
        var items: [PlistValue] = []
        var entries: [PlistDictionary.Entry] = []
        /// While a collection inside this dictionary is being filled: the key it goes under.
        var key: PlistValue?

        init(_ kind: Kind, capacity: Int) {
            self.kind = kind
            // `capacity` is a count the reader checked against the bytes left (each element has a reference).
            if kind == .dictionary { entries.reserveCapacity(capacity) } else { items.reserveCapacity(capacity) }
        }

        func close() -> PlistValue {
            switch kind {
            case .array: .array(items)
            case .set: .set(items)
            case .dictionary: .dictionary(PlistDictionary(entries: entries))
            case .root: items.first ?? .null
            }
        }
    }

    /// Opens a collection of `kind` inside `current`, which waits on `parents` with the pending `key`.
    @inline(__always)
    private static func open(_ kind: Frame.Kind, _ count: Int, _ current: inout Frame, _ parents: inout [Frame],
                             _ key: inout PlistValue?) {
        current.key = key
        key = nil
        parents.append(current)
        current = Frame(kind, capacity: count)
    }

    /// The value that `reader`'s events make. The reader is left where it failed when it throws: the caller
    /// drops it.
    ///
    /// The collection being filled is `current`, and `key` the key read for its next entry (a dictionary's):
    /// locals, so that a value moves into its collection without a copy.
    mutating func value(_ reader: inout BinaryPlistDocument.EventReader) throws(PlistError) -> PlistValue {
        var current = Frame(.root, capacity: 1)
        var parents: [Frame] = []
        var key: PlistValue?
        read: while true {
            var keyObject = -1
            if current.kind == .dictionary && key == nil, let index = reader.nextKeyObject() {
                let slot = index & 255
                if keyCache.isEmpty {
                    if reader.elements > 32 { keyCache = Array(repeating: (-1, .null), count: 256) }
                } else if keyCache[slot].index == index {
                    try reader.skipKey(index)
                    key = keyCache[slot].value
                    continue
                }
                keyObject = index
            }
            // `step()`, not `next()`: nothing reads the reader after an error.
            guard let event = try reader.step() else { break }
            let value: PlistValue
            switch event {
            case .beginArray(let n):
                Self.open(.array, n, &current, &parents, &key)
                continue
            case .beginSet(let n):
                Self.open(.set, n, &current, &parents, &key)
                continue
            case .beginDictionary(let n):
                Self.open(.dictionary, n, &current, &parents, &key)
                continue
            case .end:
                // The reader ends only collections it began: there is a parent.
                guard !parents.isEmpty else { break read }
                value = current.close()
                current = parents.removeLast()
                key = current.key
                current.key = nil
            case .string(let s):
                value = .string(s.string)
                if keyObject >= 0 && !keyCache.isEmpty { keyCache[keyObject & 255] = (keyObject, value) }
            case .integer(let i): value = .integer(i)
            case .real(let d): value = .real(d)
            case .bool(let b): value = .bool(b)
            case .date(let d): value = .date(d)
            case .data(let d): value = .data(Array(d))
            case .uid(let u): value = .uid(u)
            case .null: value = .null
            }
            if current.kind != .dictionary {
                current.items.append(value)
            } else if let k = key {
                key = nil
                current.entries.append(.init(key: k, value: value))
            } else {
                key = value
            }
        }
        return current.close()
    }
}
