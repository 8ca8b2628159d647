extension BinaryPlistDocument {
    /// Runs `body` with a reader of the document's events, from its top object (see ``EventReader``): the
    /// streaming read, which builds no tree and copies nothing.
    ///
    /// ```swift
    /// let document = try BinaryPlistDocument(bytes)
    /// let names = try document.withEvents { reader in
    ///     var names = 0
    ///     while let event = try reader.next() {
    ///         if case .string(let s) = event, s.isEqual(to: "name") { names += 1 }
    ///     }
    ///     return names
    /// }
    /// ```
    ///
    /// Mirrors rust-plist's `stream::Reader`; ``PropertyList/decode(_:limits:)`` builds its tree on these events.
    ///
    /// - Throws: what `body` throws, unchanged (the reader's ``PlistError``s when `body` passes them on).
    @inlinable
    public func withEvents<R, E: Error>(_ body: (inout EventReader) throws(E) -> R) throws(E) -> R {
        try withObjects { objects throws(E) in
            var reader = EventReader(objects: objects, root: objects.topObject)
            return try body(&reader)
        }
    }

    /// Reports the top object and everything below it to `body`, as ``Event``s: ``withEvents(_:)`` with the
    /// loop written once, for the package's tests and tools.
    ///
    /// - Throws: a ``PlistError`` for bad input, or what `body` throws, unchanged.
    @inlinable
    package func walk(_ body: (Event) throws -> Void) throws {
        try withObjects { objects throws in try objects.walk(objects.topObject, body) }
    }
}

extension BinaryPlistObjects {
    /// Reports object `index` and everything below it to `body` (see ``BinaryPlistDocument/EventReader``).
    ///
    /// - Throws: a ``PlistError`` for bad input, or what `body` throws, unchanged.
    @inlinable
    package func walk(_ index: Int, _ body: (Event) throws -> Void) throws {
        var reader = try events(index)
        while let event = try reader.next() { try body(event) }
    }

    /// A reader that returns the events of object `index` one at a time (see ``BinaryPlistDocument/EventReader``).
    ///
    /// - Throws: `invalidReference` when `index` is not an object of the document.
    @inlinable
    package func events(_ index: Int) throws(PlistError) -> EventReader {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        return EventReader(objects: self, root: index)
    }
}

extension BinaryPlistDocument {
    /// The events of a document, read one at a time: the one reader of binary plists that checks the bytes.
    ///
    /// `next()` returns the next ``Event``, or `nil` once the top object has been reported whole. It checks
    /// every object's marker, count and bytes, every reference, string encodings under the document's
    /// ``PlistLimits/stringPolicy``, dictionary keys that are collections, cycles, the depth limit and the
    /// element budget (a shared object counts each time it is reached, so a small file cannot expand into a
    /// huge read), and throws a ``PlistError`` that names the object and the byte offset; after an error the
    /// reader is at its end. The events before the error have been reported: a caller that needs all or
    /// nothing keeps what it builds until the reader returns `nil`. ``PropertyList/decode(_:limits:)`` builds
    /// its tree on these events, so it accepts and refuses exactly what the reader does.
    ///
    /// A reader is valid only inside the ``BinaryPlistDocument/withEvents(_:)`` that made it:
    ///
    /// ```swift
    /// try document.withEvents { reader in
    ///     while let event = try reader.next() {
    ///         if case .string(let s) = event, s.isEqual(to: "stop") { break }
    ///     }
    /// }
    /// ```
    ///
    /// Iterative, with an explicit stack, so that the depth limit, not the thread's stack size, bounds nesting.
    /// The fast markers are read inline in the caller's loop; collections and rare markers are read out of line.
    /// Mirrors rust-plist's `stream::Reader` and the object switch of `__CFBinaryPlistCreateObjectFiltered`.
    public struct EventReader {
        @usableFromInline let objects: BinaryPlistObjects
        @usableFromInline let maxElements: Int
        /// The values read so far, against the element budget.
        @usableFromInline var elements = 0
        /// The collection being read; at first, and once the object has been read whole, the root pseudo-frame.
        @usableFromInline var current: Frame
        /// The collections open around `current`, outermost first (the root pseudo-frame at the bottom).
        @usableFromInline var parents: [Frame] = []
        /// The collections open on the path (cycle detection).
        @usableFromInline var path = CollectionPath()

        /// A collection being read: positions in the borrowed buffer. The root pseudo-frame holds one element,
        /// the object the reader was made for.
        @usableFromInline
        struct Frame {
            @usableFromInline enum Kind { case root, array, dictionary }
            @usableFromInline let kind: Kind
            @usableFromInline let index: Int
            @usableFromInline let start: Int
            /// The position of the first reference (for the root pseudo-frame, the object's index).
            @usableFromInline let refs: Int
            /// The number of entries of a dictionary (its value references follow its `entries` key references).
            @usableFromInline let entries: Int
            /// References to read: elements, or keys and values.
            @usableFromInline let count: Int
            @usableFromInline var position = 0

            @usableFromInline
            init(kind: Kind, index: Int, start: Int, refs: Int, entries: Int, count: Int) {
                self.kind = kind
                self.index = index
                self.start = start
                self.refs = refs
                self.entries = entries
                self.count = count
            }
        }

        @usableFromInline
        init(objects: BinaryPlistObjects, root: Int) {
            self.objects = objects
            self.maxElements = objects.elementBudget
            self.current = Frame(kind: .root, index: root, start: 0, refs: root, entries: 0, count: 1)
        }

        /// The next event, or `nil` when the object has been read whole.
        @inlinable @inline(__always)
        public mutating func next() throws(PlistError) -> Event? {
            do {
                return try step()
            } catch {
                finish()
                throw error
            }
        }

        @inlinable @inline(__always)
        mutating func step() throws(PlistError) -> Event? {
            let i = current.position
            guard i < current.count else { return close() }
            current.position = i + 1
            let width = objects.referenceWidth
            let child: Int
            switch current.kind {
            case .array:
                child = objects.checkedReference(at: current.refs + i * width)
            case .dictionary:
                // Entry k's key, then its value: keys are stored first, then values.
                child = objects.checkedReference(at: current.refs + dictionaryPosition(i) * width)
            case .root:
                child = current.refs
            }
            if let event = try scalar(child) { return event }
            if current.kind == .dictionary && i & 1 == 0 {
                throw PlistError(.invalidKey, "dictionary key is a collection", byteOffset: current.start,
                                 objectIndex: current.index)
            }
            return try open(child)
        }

        /// Where reference `i` of the current dictionary is: entry `i / 2`'s key, then its value (the keys are
        /// stored first, then the values).
        @inlinable @inline(__always)
        func dictionaryPosition(_ i: Int) -> Int {
            i & 1 == 0 ? i >> 1 : current.entries + i >> 1
        }

        @inlinable @inline(__always)
        mutating func count(_ index: Int) throws(PlistError) {
            elements += 1
            if elements > maxElements { throw budgetError(index) }
        }

        @usableFromInline @inline(never)
        mutating func budgetError(_ index: Int) -> PlistError {
            PlistError(.elementLimitExceeded, "more than \(maxElements) values would be materialized", objectIndex: index)
        }

        /// Object `index` as an event when it is a scalar (counted against the budget first), or `nil` for a collection (left for `open(_:)`).
        ///
        /// The common markers are read here, inline in the caller's loop, and everything that fails or is rare
        /// goes through the reader's out-of-line methods: no copy of `objects` on the fast path. The helpers it
        /// calls are `mutating` although they change nothing: a non-mutating call from here made the compiler
        /// copy the whole reader (192 bytes, a `memcpy`) for each call, twice per string or data value.
        @inlinable @inline(__always)
        mutating func scalar(_ index: Int) throws(PlistError) -> Event? {
            try count(index)
            let raw = objects.raw
            let start = objects.offset(index)
            let marker = raw[start]
            switch marker >> 4 {
            case 0xA, 0xC, 0xD:
                return nil
            case 0x5:
                let (n, p) = try length(marker, start, index)
                try fits(n, 1, p, index, start)
                let bytes = UnsafeRawBufferPointer(rebasing: raw[p..<(p &+ n)])
                return .string(StringView(bytes: bytes, encoding: isASCII(bytes) ? .ascii : try nonASCII(bytes, index, start)))
            case 0x1 where marker & 0x0F <= 3 && 1 &<< Int(marker & 0x0F) <= objects.left(start &+ 1):
                let width = 1 &<< Int(marker & 0x0F)
                let v = readBigEndian(raw, start &+ 1, width)
                // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
                return .integer(PlistInteger(high: width == 8 && Int64(bitPattern: v) < 0 ? -1 : 0, low: v))
            case 0x4:
                let (n, p) = try length(marker, start, index)
                try fits(n, 1, p, index, start)
                return .data(UnsafeRawBufferPointer(rebasing: raw[p..<(p &+ n)]))
            case 0x2 where marker == 0x23 && 8 <= objects.left(start &+ 1):
                return .real(Double(bitPattern: readBigEndian(raw, start &+ 1, 8)))
            case 0x3 where marker == 0x33 && 8 <= objects.left(start &+ 1):
                return .date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: readBigEndian(raw, start &+ 1, 8))))
            case 0x0 where marker == 0x08 || marker == 0x09:
                return .bool(marker == 0x09)
            case 0x8 where marker & 0x0F < 8 && Int(marker & 0x0F) &+ 1 <= objects.left(start &+ 1):
                // A UID of 1 to 8 bytes (a keyed archive's references, most of a nib's values); wider ones and
                // truncated ones are read, or refused, by `rare`.
                return .uid(PlistUID(readBigEndian(raw, start &+ 1, Int(marker & 0x0F) &+ 1)))
            default:
                return try rare(index, start, marker)
            }
        }

        /// The count after a marker and where the payload starts (``BinaryPlistObjects/count(_:at:_:)``), with
        /// the 1-byte extended count of a 15- to 255-item string or data read inline.
        @inlinable @inline(__always)
        mutating func length(_ marker: UInt8, _ start: Int, _ index: Int) throws(PlistError) -> (Int, Int) {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return (low, start &+ 1) }
            if objects.left(start &+ 1) >= 2 && objects.raw[start &+ 1] == 0x10 {
                return (Int(objects.raw[start &+ 2]), start &+ 3)
            }
            return try extendedLength(start, index)
        }

        @usableFromInline @inline(never)
        mutating func extendedLength(_ start: Int, _ index: Int) throws(PlistError) -> (Int, Int) {
            try objects.extendedCount(at: start, index)
        }

        /// ``BinaryPlistObjects/checkFits(_:_:at:_:_:)``, failing out of line.
        @inlinable @inline(__always)
        mutating func fits(_ count: Int, _ size: Int, _ at: Int, _ index: Int, _ start: Int) throws(PlistError) {
            let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
            if overflow || bytes > objects.left(at) { throw fitFailure(count, at, index, start) }
        }

        @usableFromInline @inline(never)
        mutating func fitFailure(_ count: Int, _ at: Int, _ index: Int, _ start: Int) -> PlistError {
            objects.fitError(count, at, index, start)
        }

        @usableFromInline @inline(never)
        mutating func nonASCII(_ bytes: UnsafeRawBufferPointer, _ index: Int, _ start: Int) throws(PlistError) -> StringView.Encoding {
            try objects.nonASCIIEncoding(bytes, index, start)
        }

        @usableFromInline @inline(never)
        mutating func rare(_ index: Int, _ start: Int, _ marker: UInt8) throws(PlistError) -> Event {
            try objects.rareWalkScalar(index, start, marker)
        }

        /// Opens collection `index` (already counted), checking depth, cycles and references, and reports its
        /// start.
        @usableFromInline @inline(never)
        mutating func open(_ index: Int) throws(PlistError) -> Event {
            let start = objects.offset(index)
            let marker = objects.raw[start]
            let kind = marker >> 4
            // The root pseudo-frame is at the bottom of `parents` once anything is open.
            let depth = parents.count + 1
            if depth > objects.maxDepth {
                throw PlistError(.depthLimitExceeded, "nesting deeper than \(objects.maxDepth)", byteOffset: start,
                                 objectIndex: index)
            }
            if path.contains(index) {
                throw PlistError(.cycle, "collection contains itself", byteOffset: start, objectIndex: index)
            }
            let (n, p) = try objects.count(marker, at: start, index)
            let refCount = kind == 0xD ? n.multipliedReportingOverflow(by: 2) : (partialValue: n, overflow: false)
            if refCount.overflow {
                throw PlistError(.invalidCount, "count \(describeCount(UInt64(n))) is too large", byteOffset: start,
                                 objectIndex: index)
            }
            try objects.checkReferences(at: p, count: refCount.partialValue, index, start)
            path.enter(index)
            parents.append(current)
            current = Frame(kind: kind == 0xD ? .dictionary : .array, index: index, start: start, refs: p,
                            entries: n, count: refCount.partialValue)
            switch kind {
            case 0xA: return .beginArray(count: n)
            case 0xC: return .beginSet(count: n)
            default: return .beginDictionary(count: n)
            }
        }

        /// Closes the current collection (`.end`), or returns `nil` at the root pseudo-frame: the object is read.
        @usableFromInline @inline(never)
        mutating func close() -> Event? {
            guard let parent = parents.popLast() else { return nil }
            path.leave()
            current = parent
            return .end
        }

        /// The object that the next event reads when it is a dictionary key, else `nil`: the tree builder
        /// passes over a key it read before (``skipKey(_:)``) instead of reading it again.
        @inlinable @inline(__always)
        func nextKeyObject() -> Int? {
            let i = current.position
            guard current.kind == .dictionary, i < current.count, i & 1 == 0 else { return nil }
            return objects.checkedReference(at: current.refs &+ (i >> 1) &* objects.referenceWidth)
        }

        /// Passes over the key ``nextKeyObject()`` named, which this reader reported before (and so checked):
        /// counted against the element budget as reading it counts it.
        @inlinable @inline(__always)
        mutating func skipKey(_ index: Int) throws(PlistError) {
            current.position &+= 1
            do {
                try count(index)
            } catch {
                finish()
                throw error
            }
        }

        /// Puts the reader at its end, after an error.
        @usableFromInline @inline(never)
        mutating func finish() {
            current = parents.first ?? current
            current.position = current.count
            parents = []
            path = CollectionPath()
        }
    }
}

extension BinaryPlistObjects {
    /// UTF-16 strings, null, other widths, UIDs wider than 8 bytes or truncated, and every malformed marker, read by ``scalar(_:start:marker:)``.
    @usableFromInline @inline(never)
    func rareWalkScalar(_ index: Int, _ start: Int, _ marker: UInt8) throws(PlistError) -> Event {
        if marker >> 4 == 0x6 {
            return .string(StringView(bytes: try utf16Bytes(marker, start, index), encoding: .utf16BigEndian))
        }
        switch try scalar(index, start: start, marker: marker) {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .date(let d): return .date(d)
        case .uid(let u): return .uid(u)
        case .string, .data, .array, .set, .dictionary:
            // `scalar(_:start:marker:)` reads these markers (0x4-0x6) only, which are handled above.
            throw error(.invalidMarker, "marker 0x\(hex(marker)) was not walked", index, start)
        }
    }
}
