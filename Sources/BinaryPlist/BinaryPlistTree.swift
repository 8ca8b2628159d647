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
        /// The key of the entry whose value comes next (dictionaries).
        var key: PlistValue?

        init(_ kind: Kind, capacity: Int) {
            self.kind = kind
            // `capacity` is a count the reader checked against the bytes left (each element has a reference).
            if kind == .dictionary { entries.reserveCapacity(capacity) } else { items.reserveCapacity(capacity) }
        }

        /// Adds a value read inside this collection: an element, or a dictionary entry's key or value.
        @inline(__always)
        mutating func add(_ value: PlistValue) {
            guard kind == .dictionary else { items.append(value); return }
            if let key {
                entries.append(.init(key: key, value: value))
                self.key = nil
            } else {
                key = value
            }
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

    /// The value that `reader`'s events make.
    mutating func value(_ reader: inout BinaryPlistDocument.EventReader) throws(PlistError) -> PlistValue {
        var current = Frame(.root, capacity: 1)
        var parents: [Frame] = []
        read: while true {
            var keyObject = -1
            if current.kind == .dictionary && current.key == nil, let index = reader.nextKeyObject() {
                let slot = index & 255
                if keyCache.isEmpty {
                    if reader.elements > 32 { keyCache = Array(repeating: (-1, .null), count: 256) }
                } else if keyCache[slot].index == index {
                    try reader.skipKey(index)
                    current.key = keyCache[slot].value
                    continue
                }
                keyObject = index
            }
            guard let event = try reader.next() else { break }
            let value: PlistValue
            switch event {
            case .beginArray(let n):
                parents.append(current)
                current = Frame(.array, capacity: n)
                continue
            case .beginSet(let n):
                parents.append(current)
                current = Frame(.set, capacity: n)
                continue
            case .beginDictionary(let n):
                parents.append(current)
                current = Frame(.dictionary, capacity: n)
                continue
            case .end:
                // The reader ends only collections it began: there is a parent.
                guard let parent = parents.popLast() else { break read }
                value = current.close()
                current = parent
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
            current.add(value)
        }
        return current.close()
    }
}
