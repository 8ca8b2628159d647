/// The objects of a validated ``BinaryPlistDocument``, read one at a time from its borrowed bytes: the
/// package's random access to single objects (the keyed unarchiver and the archive graph read an archive by
/// UID this way), and what ``BinaryPlistDocument/EventReader`` reads each object with. Whole values below an
/// object are read by that reader only: ``materialize(_:)`` builds its tree on the reader's events.
///
/// A value of this type exists only inside ``BinaryPlistDocument/withObjects(_:)``, so everything it reads
/// lies behind a checked header, trailer and offset table. Every size read from an object (a count, a
/// width) is checked against the bytes left in the object area before anything is read or allocated, and
/// every reference against the object count; failures are ``PlistError``s with the object index and the byte
/// offset. Nothing is copied or reference-counted per object: collections are seen as ``ArrayView`` and
/// ``DictionaryView`` (positions in the buffer), and the hot reads are `@inlinable`.
///
/// ```swift
/// let document = try BinaryPlistDocument(bytes)
/// let names: [String] = try document.withObjects { objects in
///     guard let array = try objects.array(objects.topObject) else { return [] }
///     return try (0..<array.count).compactMap { try objects.string(objects.elementReference(array, $0)) }
/// }
/// ```
///
/// Mirrors the object switch of CoreFoundation's `__CFBinaryPlistCreateObjectFiltered` and its
/// `__CFBinaryPlistGetOffsetForValueFromArray2` / `...FromDictionary3` lookups.
@usableFromInline
package struct BinaryPlistObjects {
    /// The events of ``BinaryPlistDocument/EventReader``.
    @usableFromInline package typealias Event = BinaryPlistDocument.Event
    /// A string borrowed from the document.
    @usableFromInline package typealias StringView = BinaryPlistDocument.StringView
    /// The one reader that checks a document's bytes.
    @usableFromInline package typealias EventReader = BinaryPlistDocument.EventReader

    /// The whole file, borrowed for the scope of ``BinaryPlistDocument/withObjects(_:)``.
    @usableFromInline let raw: UnsafeRawBufferPointer
    /// The number of objects in the file.
    @usableFromInline package let objectCount: Int
    /// The index of the top object.
    @usableFromInline package let topObject: Int
    @usableFromInline let offsetWidth: Int
    /// `64 - 8 * offsetWidth`: what an 8-byte big-endian load at an offset table entry is shifted right by.
    @usableFromInline let offsetShift: UInt64
    /// The width in bytes (1...8) of each object reference in a collection.
    @usableFromInline package let referenceWidth: Int
    /// `64 - 8 * referenceWidth`: what an 8-byte big-endian load at a reference is shifted right by.
    @usableFromInline let referenceShift: UInt64
    /// The object area ends where the offset table begins.
    @usableFromInline let table: Int
    @usableFromInline let strict: Bool
    @usableFromInline let maxDepth: Int
    /// The most values one read of an object may produce (``PlistLimits/elementBudget(forInputOf:)``).
    @usableFromInline package let elementBudget: Int

    @usableFromInline
    init(raw: UnsafeRawBufferPointer, document: BinaryPlistDocument) {
        self.raw = raw
        objectCount = document.trailer.objectCount
        topObject = document.trailer.topObject
        offsetWidth = document.trailer.offsetWidth
        offsetShift = UInt64(64 - 8 * document.trailer.offsetWidth)
        referenceWidth = document.trailer.referenceWidth
        referenceShift = UInt64(64 - 8 * document.trailer.referenceWidth)
        table = document.objectAreaEnd
        strict = document.limits.stringPolicy == .strict
        maxDepth = document.limits.maxDepth
        elementBudget = document.limits.elementBudget(forInputOf: raw.count)
    }

    // MARK: Views

    /// An array's (or a set's) references, which start at byte `refs`; each is checked when it is read.
    @usableFromInline package struct ArrayView: Sendable, Hashable {
        /// The byte offset of the first reference.
        @usableFromInline package var refs: Int
        /// The number of references (elements or members).
        @usableFromInline package var count: Int
        /// A view of `count` references starting at byte `refs`.
        @inlinable package init(refs: Int, count: Int) { self.refs = refs; self.count = count }
    }

    /// A dictionary's key references, which start at byte `keys`; its value references follow them.
    @usableFromInline package struct DictionaryView: Sendable, Hashable {
        /// The byte offset of the first key reference.
        @usableFromInline package var keys: Int
        /// The number of entries (each a key reference and a value reference).
        @usableFromInline package var count: Int
        /// A view of `count` entries whose key references start at byte `keys`.
        @inlinable package init(keys: Int, count: Int) { self.keys = keys; self.count = count }
    }

    /// One object as a decoder walks it: the values an archive is made of read at once, collections as views.
    @usableFromInline package enum Value {
        /// A UID, as the index it refers to.
        case uid(Int)
        /// An integer.
        case integer(PlistInteger)
        /// A real, widened to `Double`.
        case real(Double)
        /// A boolean.
        case bool(Bool)
        /// An array, as a view of its references.
        case array(ArrayView)
        /// A dictionary, as a view of its references.
        case dictionary(DictionaryView)
        /// Anything else (strings, data, dates, null, sets), materialized.
        case other(PlistValue)
    }

    // MARK: Numbers and references

    /// A big-endian unsigned number of `width` bytes at `p` (the caller checked the bounds). It is never
    /// truncated into a valid one: on a 32-bit platform a number of 2^31 and more is `Int.max`, which no object
    /// count or offset reaches; on a 64-bit one a number of 2^63 and more comes out negative, which every
    /// caller refuses as it refuses `Int.max` (`reference(at:)` checks `v >= 0`). The 64-bit path is the bare
    /// conversion on purpose: the range check there made the optimizer stop inlining the tree read's scalar
    /// reads, which cost `keyed-bench raw` reads 5%.
    @inlinable @inline(__always)
    func number(at p: Int, width: Int) -> Int {
        switch width {
        case 1: return Int(raw[p])
        case 2: return Int(raw[p]) << 8 | Int(raw[p + 1])
        default:
            let v = readBigEndian(raw, p, width)
            if Int.bitWidth == 64 || v <= UInt64(Int.max) { return Int(truncatingIfNeeded: v) }
            return Int.max
        }
    }

    /// The byte offset of object `index` (a valid index: the offset table was checked when the document was).
    ///
    /// One unaligned 8-byte load: the 32-byte trailer follows the offset table.
    @inlinable @inline(__always)
    package func offset(_ index: Int) -> Int {
        // Checked below the object area's end (an Int) when the document was opened: it fits.
        // `table + index * offsetWidth` lies inside the checked offset table: no overflow.
        Int(truncatingIfNeeded: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: table &+ index &* offsetWidth, as: UInt64.self)) &>> offsetShift)
    }

    /// The reference stored at byte `position`, checked against the object count.
    @inlinable @inline(__always)
    package func reference(at position: Int) throws(PlistError) -> Int {
        let v = number(at: position, width: referenceWidth)
        guard v >= 0 && v < objectCount else { throw referenceError(v, position) }
        return v
    }

    @usableFromInline @inline(never)
    func referenceError(_ v: Int, _ position: Int) -> PlistError {
        PlistError(.invalidReference, "reference \(UInt(bitPattern: v)) is not below the object count \(objectCount)",
                   byteOffset: position)
    }

    /// The reference of key `i` of dictionary `d`, checked against the object count.
    @inlinable @inline(__always)
    package func keyReference(_ d: DictionaryView, _ i: Int) throws(PlistError) -> Int {
        try reference(at: d.keys + i * referenceWidth)
    }
    /// A key reference without the object-count check, for comparing with a known valid object number.
    @inlinable @inline(__always)
    package func uncheckedKeyReference(_ d: DictionaryView, _ i: Int) -> Int {
        number(at: d.keys + i * referenceWidth, width: referenceWidth)
    }
    /// The reference of value `i` of dictionary `d`, checked against the object count.
    @inlinable @inline(__always)
    package func valueReference(_ d: DictionaryView, _ i: Int) throws(PlistError) -> Int {
        try reference(at: d.keys + (d.count + i) * referenceWidth)
    }
    /// The reference of element `i` of array (or set) `a`, checked against the object count.
    @inlinable @inline(__always)
    package func elementReference(_ a: ArrayView, _ i: Int) throws(PlistError) -> Int {
        try reference(at: a.refs + i * referenceWidth)
    }

    @usableFromInline
    func error(_ code: PlistError.Code, _ reason: String, _ index: Int, _ at: Int) -> PlistError {
        PlistError(code, reason, byteOffset: at, objectIndex: index)
    }

    /// Bytes left in the object area from `at`.
    @inlinable @inline(__always)
    func left(_ at: Int) -> Int { table - at }

    /// Reads the count that follows a marker: the low nibble, or for 0xF an integer object after it.
    /// Returns the count and the position of the payload.
    @inlinable @inline(__always)
    func count(_ marker: UInt8, at start: Int, _ index: Int) throws(PlistError) -> (Int, Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, start + 1) }
        return try extendedCount(at: start, index)
    }

    @usableFromInline
    func extendedCount(at start: Int, _ index: Int) throws(PlistError) -> (Int, Int) {
        let p = start + 1
        guard p < table else { throw error(.truncated, "extended count runs past the object area", index, p) }
        let intMarker = raw[p]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw error(.invalidCount, "extended count marker 0x\(hex(intMarker)) is not a 1-, 2-, 4- or 8-byte integer", index, p)
        }
        let width = 1 << Int(intMarker & 0x0F)
        guard width <= left(p + 1) else {
            throw error(.truncated, "extended count of \(width) bytes runs past the object area", index, p)
        }
        let v = readBigEndian(raw, p + 1, width)
        guard v <= UInt64(Int.max) else {
            throw error(.invalidCount, "count \(describeCount(v)) is negative or too large", index, p)
        }
        return (Int(v), p + 1 + width)
    }

    /// Checks that `count` items of `size` bytes fit between `at` and the end of the object area.
    @inlinable @inline(__always)
    func checkFits(_ count: Int, _ size: Int, at: Int, _ index: Int, _ start: Int) throws(PlistError) {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
        if overflow || bytes > left(at) { throw fitError(count, at, index, start) }
    }

    @usableFromInline @inline(never)
    func fitError(_ count: Int, _ at: Int, _ index: Int, _ start: Int) -> PlistError {
        error(.invalidCount, "count \(describeCount(UInt64(count))) exceeds the \(max(0, left(at))) bytes left", index, start)
    }

    /// Checks that `count` references fit in the object area and are each below the object count.
    ///
    /// One pass takes the largest reference (no branch per reference); only when it is out of range does a
    /// second pass find the first bad one, for the error.
    @usableFromInline
    func checkReferences(at p: Int, count: Int, _ index: Int, _ start: Int) throws(PlistError) {
        try checkFits(count, referenceWidth, at: p, index, start)
        // The buffer, width and shift as locals, so that they stay in registers (as properties of `self` they
        // were loaded again for each reference); `end` does not overflow: the references fit in the object area.
        let raw = self.raw, width = referenceWidth, shift = referenceShift
        let end = p &+ count &* width
        var largest: UInt64 = 0
        var q = p
        while q < end {
            largest = max(largest, UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: q, as: UInt64.self)) &>> shift)
            q &+= width
        }
        guard largest >= UInt64(objectCount) else { return }
        q = p
        for _ in 0..<count {
            let r = referenceBits(at: q)
            if r >= UInt64(objectCount) {
                throw error(.invalidReference, "reference \(r) is not below the object count \(objectCount)", index, q)
            }
            q += referenceWidth
        }
    }

    /// The reference of `referenceWidth` bytes at `p`, a position inside the object area, as all its bits.
    ///
    /// One unaligned 8-byte load: the offset table and the 32-byte trailer follow the object area, so the eight
    /// bytes from any position in it lie inside the file.
    @inlinable @inline(__always)
    func referenceBits(at p: Int) -> UInt64 {
        UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt64.self)) &>> referenceShift
    }

    /// A reference that ``checkReferences(at:count:_:_:)`` already checked: below the object count, so an `Int`.
    @inlinable @inline(__always)
    func checkedReference(at p: Int) -> Int {
        Int(truncatingIfNeeded: referenceBits(at: p))
    }

    // MARK: One object

    /// Object `index` (a valid index) as a decoder walks it: UIDs, numbers, booleans and plain ASCII strings
    /// read at once, arrays and dictionaries as views whose references fit in the object area, anything else
    /// materialized.
    @inlinable
    package func value(_ index: Int) throws(PlistError) -> Value {
        let start = offset(index)
        let marker = raw[start]
        switch marker >> 4 {
        case 0x8:
            return .uid(try uidValue(index, start: start, marker: marker))
        case 0x1 where marker & 0x0F <= 3 && 1 << Int(marker & 0x0F) <= left(start + 1):
            let width = 1 << Int(marker & 0x0F)
            let v = readBigEndian(raw, start + 1, width)
            // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
            return .integer(width == 8 ? PlistInteger(Int64(bitPattern: v)) : PlistInteger(v))
        case 0x2 where marker == 0x23 && 8 <= left(start + 1):
            return .real(Double(bitPattern: readBigEndian(raw, start + 1, 8)))
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        case 0xA:
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, referenceWidth, at: p, index, start)
            return .array(ArrayView(refs: p, count: n))
        case 0xD:
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, 2 * referenceWidth, at: p, index, start)
            return .dictionary(DictionaryView(keys: p, count: n))
        case 0x5:
            if let s = plainASCII(start: start, marker: marker) { return .other(.string(s)) }
            return .other(try scalar(index, start: start, marker: marker))
        case 0xC:
            return .other(try materialize(index))
        default:
            switch try scalar(index, start: start, marker: marker) {
            case .integer(let i): return .integer(i)
            case .real(let d): return .real(d)
            case let other: return .other(other)
            }
        }
    }

    /// The dictionary stored in object `index`, or `nil` when it is anything else.
    @inlinable @inline(__always)
    package func dictionary(_ index: Int) throws(PlistError) -> DictionaryView? {
        try collection(index, kind: 0xD, perEntry: 2).map { DictionaryView(keys: $0.start, count: $0.count) }
    }

    /// The array stored in object `index`, or `nil` when it is anything else.
    @inlinable @inline(__always)
    package func array(_ index: Int) throws(PlistError) -> ArrayView? {
        try collection(index, kind: 0xA, perEntry: 1).map { ArrayView(refs: $0.start, count: $0.count) }
    }

    /// Where the references of collection object `index` start and how many entries it has, when its marker
    /// is of `kind`; every reference fits before the offset table.
    @inlinable @inline(__always)
    func collection(_ index: Int, kind: UInt8, perEntry: Int) throws(PlistError) -> (start: Int, count: Int)? {
        let start = offset(index)
        let marker = raw[start]
        guard marker >> 4 == kind else { return nil }
        let (n, p) = try count(marker, at: start, index)
        try checkFits(n, perEntry * referenceWidth, at: p, index, start)
        return (p, n)
    }

    /// The UID stored in object `index`, or `nil` when the object is not a UID.
    @inlinable @inline(__always)
    package func uid(_ index: Int) throws(PlistError) -> Int? {
        let start = offset(index)
        let marker = raw[start]
        guard marker >> 4 == 0x8 else { return nil }
        return try uidValue(index, start: start, marker: marker)
    }

    /// The value of the UID object at `start` (marker `0x8n`, `n + 1` bytes, of which those beyond the last
    /// eight must be zero), refused above `Int.max`.
    @inlinable @inline(__always)
    func uidValue(_ index: Int, start: Int, marker: UInt8) throws(PlistError) -> Int {
        let width = Int(marker & 0x0F) + 1
        guard width <= left(start + 1) else {
            throw error(.truncated, "UID of \(width) bytes runs past the object area", index, start)
        }
        if width > 8, readBigEndian(raw, start + 1, width - 8) != 0 {
            throw error(.unsupportedValue, "UID wider than 64 bits", index, start)
        }
        let v = readBigEndian(raw, start + 1, width)
        guard v <= UInt64(Int.max) else { throw error(.unsupportedValue, "UID \(v) is above \(Int.max)", index, start) }
        return Int(v)
    }

    /// The 8-byte real stored in object `index`, or `nil` when it is anything else.
    @inlinable @inline(__always)
    package func real(_ index: Int) -> Double? {
        let start = offset(index)
        guard raw[start] == 0x23, 8 <= left(start + 1) else { return nil }
        return Double(bitPattern: readBigEndian(raw, start + 1, 8))
    }

    /// The bytes of dictionary `d`'s key references (`d.count` references of the document's reference
    /// width): a view into the document, valid as long as these objects are. Two dictionaries of one document
    /// hold the same key objects in the same order exactly when these bytes are equal.
    @inlinable @inline(__always)
    package func keyReferenceBytes(_ d: DictionaryView) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: raw[d.keys ..< d.keys &+ d.count &* referenceWidth])
    }

    /// The 8-byte real that value `i` of dictionary `d` refers to, or `nil` when `i` is outside the dictionary,
    /// the reference is not below the object count, or the object is anything else (so that a caller's general
    /// path reads it again and reports what is wrong). One unaligned load for the reference: `d`'s references
    /// were checked to fit in the object area when it was read, and the offset table and trailer follow that.
    /// Package-only: it trusts `d` to be a view this document made (``dictionary(_:)``), as its loads are
    /// unchecked.
    @inlinable @inline(__always)
    package func real(_ d: DictionaryView, valueAt i: Int) -> Double? {
        guard i >= 0, i < d.count else { return nil }
        let bits = referenceBits(at: d.keys &+ (d.count &+ i) &* referenceWidth)
        guard bits < UInt64(objectCount) else { return nil }
        // The object's offset lies below the offset table (checked when the document was opened), so the
        // marker and, when 8 bytes follow it before the table, the eight bytes of the real are in the file.
        let start = offset(Int(truncatingIfNeeded: bits))
        guard raw[start] == 0x23, table &- start > 8 else { return nil }
        return Double(bitPattern: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: start &+ 1, as: UInt64.self)))
    }

    /// The string object `index` when it is plain ASCII; `nil` for anything else (including other strings).
    @inlinable @inline(__always)
    package func plainString(_ index: Int) -> String? {
        let start = offset(index)
        let marker = raw[start]
        guard marker >> 4 == 0x5 else { return nil }
        return plainASCII(start: start, marker: marker)
    }

    /// The ASCII string object (marker `0x5n`, which the caller checked) at `start` when it is well formed, its
    /// length is given in the marker or in a 1-, 2- or 4-byte count, and every byte is below 0x80 (what
    /// ``scalar(_:start:marker:)`` returns for it too); `nil` for anything else, which that then reads or
    /// rejects. The accessor's string reads use it.
    @inlinable @inline(__always)
    func plainASCII(start: Int, marker: UInt8) -> String? {
        var n = Int(marker & 0x0F)
        var p = start + 1
        if n == 0x0F {
            guard p < table else { return nil }
            let m = raw[p]
            guard m & 0xF0 == 0x10, m & 0x0F <= 2 else { return nil }
            let width = 1 << Int(m & 0x0F)
            guard width <= left(p + 1), let length = Int(exactly: readBigEndian(raw, p + 1, width)) else { return nil }
            n = length
            p += 1 + width
        }
        guard n <= left(p) else { return nil }
        // Eight bytes at a time, the last eight overlapping the ones before when `n` is not a multiple of 8.
        var high: UInt64 = 0
        if n >= 8 {
            var i = 0
            while i + 8 < n {
                high |= raw.loadUnaligned(fromByteOffset: p + i, as: UInt64.self)
                i += 8
            }
            high |= raw.loadUnaligned(fromByteOffset: p + n - 8, as: UInt64.self)
        } else {
            for i in 0..<n { high |= UInt64(raw[p + i]) }
        }
        guard high & 0x8080_8080_8080_8080 == 0 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[p..<(p + n)]), as: UTF8.self)
    }

    /// The string object `index`, or `nil` when it is not a string.
    @usableFromInline package func string(_ index: Int) throws(PlistError) -> String? {
        let start = offset(index)
        let marker = raw[start]
        guard marker >> 4 == 0x5 || marker >> 4 == 0x6 else { return nil }
        if marker >> 4 == 0x5, let s = plainASCII(start: start, marker: marker) { return s }
        guard case .string(let s) = try scalar(index, start: start, marker: marker) else { return nil }
        return s
    }

    /// Whether object `index` is the string whose UTF-8 bytes are `key`.
    @inlinable @inline(__always)
    package func isString(_ index: Int, equalTo key: UnsafeBufferPointer<UInt8>) throws(PlistError) -> Bool {
        let start = offset(index)
        let marker = raw[start]
        if marker >> 4 == 0x5 && marker & 0x0F != 0x0F {
            let n = Int(marker & 0x0F)
            guard n == key.count else { return false }
            guard n <= left(start + 1) else {
                throw error(.truncated, "string of \(n) bytes runs past the object area", index, start)
            }
            for i in 0..<n where raw[start + 1 + i] != key[i] { return false }
            return true
        }
        if marker == 0x5F, let equal = isLongASCIIString(start, equalTo: key) { return equal }
        guard let s = try string(index) else { return false }
        return s.utf8.elementsEqual(key)
    }

    /// For an ASCII string object of 15 bytes or more at `start` (marker `0x5F`, its length in the integer
    /// after it), whether it holds exactly the bytes `key`, when `key` is ASCII; `nil` when the length is not
    /// a well-formed 1- or 2-byte integer, the bytes run past the object area or `key` is not ASCII (the
    /// general path then reads the object and reports any error).
    @inlinable
    func isLongASCIIString(_ start: Int, equalTo key: UnsafeBufferPointer<UInt8>) -> Bool? {
        let p = start + 1
        guard p < table else { return nil }
        let m = raw[p]
        guard m & 0xF0 == 0x10, m & 0x0F <= 1 else { return nil }
        let width = 1 << Int(m & 0x0F)
        guard width <= left(p + 1) else { return nil }
        let n = Int(truncatingIfNeeded: readBigEndian(raw, p + 1, width))
        let first = p + 1 + width
        guard n <= left(first) else { return nil }
        var high: UInt8 = 0
        for byte in key { high |= byte }
        guard high & 0x80 == 0 else { return nil }
        guard n == key.count else { return false }
        for i in 0..<n where raw[first + i] != key[i] { return false }
        return true
    }

    /// One object with nothing below it read: a scalar fully, a collection as a view of its references.
    @usableFromInline package enum Object {
        /// Any value that is not a collection, read whole.
        case scalar(PlistValue)
        /// An array, as a view of its references.
        case array(ArrayView)
        /// A set, as a view of its references.
        case set(ArrayView)
        /// A dictionary, as a view of its references.
        case dictionary(DictionaryView)
    }

    /// Object `index`: a scalar fully, a collection as its references (each checked).
    @usableFromInline package func object(_ index: Int) throws(PlistError) -> Object {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        let start = offset(index)
        let marker = raw[start]
        let kind = marker >> 4
        switch kind {
        case 0xA, 0xC:
            let (n, p) = try count(marker, at: start, index)
            try checkReferences(at: p, count: n, index, start)
            let view = ArrayView(refs: p, count: n)
            return kind == 0xA ? .array(view) : .set(view)
        case 0xD:
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, 2 * referenceWidth, at: p, index, start)
            try checkReferences(at: p, count: 2 * n, index, start)
            return .dictionary(DictionaryView(keys: p, count: n))
        default:
            return .scalar(try scalar(index, start: start, marker: marker))
        }
    }

    /// Reads a non-collection object at `start`.
    @usableFromInline
    func scalar(_ index: Int, start: Int, marker: UInt8) throws(PlistError) -> PlistValue {
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch low {
            case 0x0: return .null
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            default: throw error(.invalidMarker, "marker 0x\(hex(marker)) is not an object type", index, start)
            }
        case 0x1:
            guard low <= 4 else {
                throw error(.invalidMarker, "integer marker 0x\(hex(marker)) has width 2^\(low)", index, start)
            }
            let width = 1 << low
            guard width <= left(start + 1) else {
                throw error(.truncated, "integer of \(width) bytes runs past the object area", index, start)
            }
            switch width {
            case 16:
                let hi = readBigEndian(raw, start + 1, 8)
                let lo = readBigEndian(raw, start + 9, 8)
                return .integer(PlistInteger(high: Int64(bitPattern: hi), low: lo))
            case 8:
                return .integer(PlistInteger(Int64(bitPattern: readBigEndian(raw, start + 1, 8))))
            default:
                return .integer(PlistInteger(readBigEndian(raw, start + 1, width)))
            }
        case 0x2:
            guard low == 2 || low == 3 else {
                throw error(.invalidMarker, "real marker 0x\(hex(marker)) is neither 4 nor 8 bytes", index, start)
            }
            let width = 1 << low
            guard width <= left(start + 1) else {
                throw error(.truncated, "real of \(width) bytes runs past the object area", index, start)
            }
            let bits = readBigEndian(raw, start + 1, width)
            return .real(width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3:
            guard low == 3 else {
                throw error(.invalidMarker, "date marker 0x\(hex(marker)) is not 0x33", index, start)
            }
            guard 8 <= left(start + 1) else {
                throw error(.truncated, "date runs past the object area", index, start)
            }
            return .date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: readBigEndian(raw, start + 1, 8))))
        case 0x4:
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, 1, at: p, index, start)
            return .data(Array(UnsafeRawBufferPointer(rebasing: raw[p..<(p + n)])))
        case 0x5:
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, 1, at: p, index, start)
            return .string(try asciiString(UnsafeRawBufferPointer(rebasing: raw[p..<(p + n)]), index, start))
        case 0x6:
            return .string(utf16BigEndianString(try utf16Bytes(marker, start, index)))
        case 0x8:
            let width = low + 1
            guard width <= left(start + 1) else {
                throw error(.truncated, "UID of \(width) bytes runs past the object area", index, start)
            }
            if width > 8 {
                let extra = width - 8
                guard readBigEndian(raw, start + 1, extra) == 0 else {
                    throw error(.unsupportedValue, "UID wider than 64 bits", index, start)
                }
                return .uid(PlistUID(readBigEndian(raw, start + 1 + extra, 8)))
            }
            return .uid(PlistUID(readBigEndian(raw, start + 1, width)))
        default:
            throw error(.invalidMarker, "marker 0x\(hex(marker)) is not an object type", index, start)
        }
    }

    func asciiString(_ bytes: UnsafeRawBufferPointer, _ index: Int, _ start: Int) throws(PlistError) -> String {
        StringView(bytes: bytes, encoding: try asciiEncoding(bytes, index, start)).string
    }

    /// How the bytes of an ASCII-marked string are read: as ASCII when every byte is below 0x80; else refused
    /// under the strict policy, and under the lenient one read as UTF-8 when they are valid UTF-8, else as
    /// ISO Latin-1.
    @inlinable @inline(__always)
    func asciiEncoding(_ bytes: UnsafeRawBufferPointer, _ index: Int, _ start: Int) throws(PlistError) -> StringView.Encoding {
        if isASCII(bytes) { return .ascii }
        return try nonASCIIEncoding(bytes, index, start)
    }

    @usableFromInline @inline(never)
    func nonASCIIEncoding(_ bytes: UnsafeRawBufferPointer, _ index: Int, _ start: Int) throws(PlistError) -> StringView.Encoding {
        if strict {
            throw error(.invalidString, "ASCII string holds a byte above 0x7F", index, start)
        }
        return isValidUTF8(bytes) ? .utf8 : .latin1
    }

    /// The big-endian UTF-16 bytes of the string object at `start` (marker 0x6): its count, that the units fit
    /// in the object area, and under the strict policy that no surrogate is alone. The tree read and the event
    /// reader both read UTF-16 strings here.
    func utf16Bytes(_ marker: UInt8, _ start: Int, _ index: Int) throws(PlistError) -> UnsafeRawBufferPointer {
        let (n, p) = try count(marker, at: start, index)
        try checkFits(n, 2, at: p, index, start)
        let bytes = UnsafeRawBufferPointer(rebasing: raw[p..<(p + 2 * n)])
        if strict && !isWellFormedUTF16BigEndian(bytes) {
            throw error(.invalidString, "UTF-16 string holds a lone surrogate", index, start)
        }
        return bytes
    }
}

func isValidUTF8(_ bytes: some Sequence<UInt8>) -> Bool {
    !transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
}

@usableFromInline
func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
}

/// `2^62` for exact powers of two, the number otherwise.
@usableFromInline
func describeCount(_ v: UInt64) -> String {
    if v > 1 && v & (v - 1) == 0 { return "2^\(v.trailingZeroBitCount)" }
    return String(v)
}

/// `bytes` as a `String` when they are valid UTF-8, else `nil`.
///
/// Mirrors `String(validating:as:)`, which needs macOS 15 / iOS 18: decoding is the identity exactly when the
/// bytes are UTF-8 (anything else is replaced by U+FFFD), so the package runs on its older minimums.
package func validUTF8String(_ bytes: [UInt8]) -> String? {
    let string = String(decoding: bytes, as: UTF8.self)
    let utf8 = string.utf8
    guard utf8.count == bytes.count else { return nil }
    let same: Bool? = utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) }
    return (same ?? utf8.elementsEqual(bytes)) ? string : nil
}
