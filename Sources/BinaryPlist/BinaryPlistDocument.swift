/// A binary plist whose header, trailer and offset table have been validated once.
///
/// Creating a document checks, with overflow-checked arithmetic, everything the rest of the reader relies
/// on: the `bplist0?` magic, the trailer fields, and that every entry of the offset table points inside the
/// object area. Objects are then read lazily, by index, straight from the bytes: a keyed unarchiver walks an
/// archive this way without building a ``PlistValue`` tree first.
///
/// ```swift
/// let document = try BinaryPlistDocument(bytes)
/// let root = try document.decodeTopObject()
/// ```
///
/// Mirrors `__CFBinaryPlistGetTopLevelInfo` and `__CFBinaryPlistCreateObjectFiltered` in CoreFoundation.
public struct BinaryPlistDocument: Sendable {
    /// The whole file.
    public let bytes: [UInt8]
    /// The file's trailer, validated: widths, object count, top object and offset table position.
    public let trailer: BinaryPlistTrailer
    /// The limits that materializing objects of the document enforces.
    public let limits: PlistLimits

    /// The object area ends where the offset table begins.
    @usableFromInline let objectAreaEnd: Int

    /// Whether `bytes` begin with the binary plist magic `bplist0`.
    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        // "bplist0", compared in place (no arrays made: a store checks this for every record it reads).
        bytes.count >= 8 && bytes[0] == 0x62 && bytes[1] == 0x70 && bytes[2] == 0x6C && bytes[3] == 0x69
            && bytes[4] == 0x73 && bytes[5] == 0x74 && bytes[6] == 0x30
    }

    /// Validates `bytes` as a binary plist.
    /// - Throws: ``PlistError`` with codes such as `.unknownFormat`, `.truncated`, `.invalidTrailer`,
    ///   `.invalidOffset`.
    public init(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) {
        self.bytes = bytes
        self.limits = limits
        let n = bytes.count
        guard n <= limits.maxInputBytes else {
            throw PlistError(.invalidCount, "input of \(n) bytes exceeds the limit of \(limits.maxInputBytes)")
        }
        guard n >= 8 else {
            throw PlistError(.truncated, "\(n) bytes is shorter than the 8-byte header", byteOffset: 0)
        }
        guard Self.hasMagic(bytes) else {
            throw PlistError(.unknownFormat, "missing 'bplist0' magic", byteOffset: 0)
        }
        // Header (8) + at least one object byte + trailer (32).
        guard n >= 8 + 1 + BinaryPlistTrailer.byteCount else {
            throw PlistError(.truncated, "\(n) bytes cannot hold a header, an object and a 32-byte trailer",
                             byteOffset: n)
        }
        let t = n - BinaryPlistTrailer.byteCount
        let trailer: BinaryPlistTrailer = bytes.withUnsafeBytes { raw in
            BinaryPlistTrailer(
                sortVersion: raw[t + 5],
                offsetWidth: Int(raw[t + 6]),
                referenceWidth: Int(raw[t + 7]),
                objectCount: Int(truncatingIfNeeded: readBigEndian(raw, t + 8, 8)),
                topObject: Int(truncatingIfNeeded: readBigEndian(raw, t + 16, 8)),
                offsetTableOffset: Int(truncatingIfNeeded: readBigEndian(raw, t + 24, 8)))
        }
        let (rawCount, rawTop, rawTable) = bytes.withUnsafeBytes { raw in
            (readBigEndian(raw, t + 8, 8), readBigEndian(raw, t + 16, 8), readBigEndian(raw, t + 24, 8))
        }
        func bad(_ reason: String, _ field: Int) -> PlistError {
            PlistError(.invalidTrailer, reason, byteOffset: t + field)
        }
        guard (1...8).contains(trailer.offsetWidth) else {
            throw bad("offset width \(trailer.offsetWidth) is not 1 to 8 bytes", 6)
        }
        guard (1...8).contains(trailer.referenceWidth) else {
            throw bad("reference width \(trailer.referenceWidth) is not 1 to 8 bytes", 7)
        }
        guard rawCount >= 1 else { throw bad("object count is 0", 8) }
        guard rawCount <= UInt64(n) else {
            throw bad("object count \(rawCount) exceeds the \(n) bytes of the file", 8)
        }
        guard rawTop < rawCount else {
            throw bad("top object \(rawTop) is not below the object count \(rawCount)", 16)
        }
        guard rawTable >= 9 && rawTable < UInt64(t) else {
            throw bad("offset table at \(rawTable) is not between the header and the trailer at \(t)", 24)
        }
        let count = Int(rawCount)
        let table = Int(rawTable)
        // The table must end at or before the trailer: table + count * width <= t, without overflow.
        let (tableBytes, o1) = count.multipliedReportingOverflow(by: trailer.offsetWidth)
        let (tableEnd, o2) = table.addingReportingOverflow(tableBytes)
        guard !o1 && !o2 && tableEnd <= t else {
            throw bad("offset table of \(count) entries of \(trailer.offsetWidth) bytes runs past the trailer", 8)
        }
        // As CoreFoundation requires, the table ends exactly where the trailer begins.
        guard tableEnd == t else {
            throw bad("offset table ends at \(tableEnd), not at the trailer at \(t)", 24)
        }
        // CoreFoundation's rules: the widths must be able to express the count and the table position.
        guard trailer.referenceWidth >= 8 || (UInt64(1) << UInt64(8 * trailer.referenceWidth)) > rawCount else {
            throw bad("reference width \(trailer.referenceWidth) cannot address \(count) objects", 7)
        }
        guard trailer.offsetWidth >= 8 || (UInt64(1) << UInt64(8 * trailer.offsetWidth)) > rawTable else {
            throw bad("offset width \(trailer.offsetWidth) cannot express the table position \(table)", 6)
        }
        self.trailer = trailer
        self.objectAreaEnd = table
        // Every offset must point inside the object area [8, table).
        let width = trailer.offsetWidth
        let badEntry: Int? = bytes.withUnsafeBytes { raw in
            var p = table
            for i in 0..<count {
                let off = readBigEndian(raw, p, width)
                if off < 8 || off >= UInt64(table) { return i }
                p += width
            }
            return nil
        }
        if let i = badEntry {
            let off = bytes.withUnsafeBytes { readBigEndian($0, table + i * width, width) }
            throw PlistError(.invalidOffset, "offset \(off) is outside the object area 8..<\(table)",
                             byteOffset: table + i * width, objectIndex: i)
        }
    }

    /// Number of objects in the file.
    public var objectCount: Int { trailer.objectCount }
    /// Index of the top object.
    public var topObject: Int { trailer.topObject }

    /// Byte offset of object `index` (validated to lie in the object area).
    public func offset(ofObject index: Int) throws -> Int {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        // Checked below the object area's end (an Int) when the document was opened: it fits.
        return bytes.withUnsafeBytes { Int(clamping: readBigEndian($0, objectAreaEnd + index * trailer.offsetWidth, trailer.offsetWidth)) }
    }

    // MARK: Lazy object access

    /// One object seen without materializing its children.
    public enum Object: Sendable {
        /// Any non-collection value.
        case scalar(PlistValue)
        /// An array, as the references of its elements.
        case array(References)
        /// A set, as the references of its members.
        case set(References)
        /// A dictionary, as the references of its keys and of its values, in file order.
        case dictionary(keys: References, values: References)
    }

    /// Object references of a collection, each already checked to be below the object count.
    public struct References: RandomAccessCollection, Sendable {
        let bytes: [UInt8]
        let start: Int
        let width: Int
        /// The number of references.
        public let count: Int
        /// The position of the first reference: 0.
        public var startIndex: Int { 0 }
        /// The position after the last reference: ``count``.
        public var endIndex: Int { count }
        /// The object index that the reference at `position` holds.
        public subscript(position: Int) -> Int {
            // Checked below the object count (an Int) when the collection was read: it fits.
            bytes.withUnsafeBytes { Int(clamping: readBigEndian($0, start + position * width, width)) }
        }
    }

    /// Runs `body` with the document's objects, read one at a time from its bytes (see ``BinaryPlistObjects``).
    @inlinable
    public func withObjects<R, E: Error>(_ body: (BinaryPlistObjects) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = bytes.withUnsafeBytes { raw in
            do throws(E) { return .success(try body(BinaryPlistObjects(raw: raw, document: self))) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads object `index`: a scalar fully, a collection as its references.
    public func object(_ index: Int) throws(PlistError) -> Object {
        try withObjects { objects throws(PlistError) in
            switch try objects.object(index) {
            case .scalar(let value): return .scalar(value)
            case .array(let a): return .array(References(bytes: bytes, start: a.refs, width: objects.referenceWidth, count: a.count))
            case .set(let a): return .set(References(bytes: bytes, start: a.refs, width: objects.referenceWidth, count: a.count))
            case .dictionary(let d):
                let width = objects.referenceWidth
                return .dictionary(keys: References(bytes: bytes, start: d.keys, width: width, count: d.count),
                                   values: References(bytes: bytes, start: d.keys + d.count * width, width: width, count: d.count))
            }
        }
    }

    /// Materializes the top object, enforcing depth, cycle and element limits.
    public func decodeTopObject() throws(PlistError) -> PlistValue {
        try decodeObject(topObject)
    }

    /// Materializes object `index` and everything it references.
    public func decodeObject(_ index: Int) throws(PlistError) -> PlistValue {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        return try withObjects { objects throws(PlistError) in try objects.materialize(index) }
    }
}
