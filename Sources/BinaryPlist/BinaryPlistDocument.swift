/// A binary plist whose header, trailer and offset table have been validated once.
///
/// Creating a document checks, with overflow-checked arithmetic, everything the rest of the reader relies
/// on: the `bplist0?` magic, the trailer fields, and that every entry of the offset table points inside the
/// object area. Its objects are then read as a stream of events, straight from the bytes, by the one reader
/// that checks them (``withEvents(_:)``); ``PropertyList/decode(_:limits:)`` builds a ``PlistValue`` tree on
/// the same events.
///
/// ```swift
/// let document = try BinaryPlistDocument(bytes)
/// let strings = try document.withEvents { reader in
///     var strings = 0
///     while let event = try reader.next() { if case .string = event { strings += 1 } }
///     return strings
/// }
/// ```
///
/// Mirrors `__CFBinaryPlistGetTopLevelInfo` and `__CFBinaryPlistCreateObjectFiltered` in CoreFoundation.
public struct BinaryPlistDocument: Sendable {
    /// The whole file.
    @usableFromInline package let bytes: [UInt8]
    /// The file's trailer, validated: widths, object count, top object and offset table position.
    package let trailer: BinaryPlistTrailer
    /// The limits that materializing objects of the document enforces.
    package let limits: PlistLimits

    /// The object area ends where the offset table begins.
    @usableFromInline let objectAreaEnd: Int

    /// Whether `bytes` begin with the binary plist magic `bplist0`.
    package static func hasMagic(_ bytes: [UInt8]) -> Bool {
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
            // One pass takes the largest `offset - 8` (wrapping, so that an offset below 8 is huge) with one
            // unaligned 8-byte load per entry (the 32-byte trailer follows the table) and no branch per entry;
            // only when it is out of range does a second pass find the first bad entry, for the error.
            let shift = UInt64(64 - 8 * width)
            var largest: UInt64 = 0
            var p = table
            for _ in 0..<count {
                largest = max(largest, (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt64.self)) &>> shift) &- 8)
                p &+= width
            }
            guard largest >= UInt64(table - 8) else { return nil }
            p = table
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
    package var objectCount: Int { trailer.objectCount }
    /// Index of the top object.
    package var topObject: Int { trailer.topObject }

    /// Byte offset of object `index` (validated to lie in the object area).
    package func offset(ofObject index: Int) throws -> Int {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        // Checked below the object area's end (an Int) when the document was opened: it fits.
        return bytes.withUnsafeBytes { Int(clamping: readBigEndian($0, objectAreaEnd + index * trailer.offsetWidth, trailer.offsetWidth)) }
    }

    // MARK: Package access

    /// Runs `body` with the document's objects, read one at a time from its bytes (see ``BinaryPlistObjects``).
    @inlinable
    package func withObjects<R, E: Error>(_ body: (BinaryPlistObjects) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = bytes.withUnsafeBytes { raw in
            do throws(E) { return .success(try body(BinaryPlistObjects(raw: raw, document: self))) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Materializes the top object, enforcing depth, cycle and element limits (what
    /// ``PropertyList/decode(_:limits:)`` returns for a binary plist).
    package func decodeTopObject() throws(PlistError) -> PlistValue {
        try decodeObject(topObject)
    }

    /// Materializes object `index` and everything it references.
    package func decodeObject(_ index: Int) throws(PlistError) -> PlistValue {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        return try withObjects { objects throws(PlistError) in try objects.materialize(index) }
    }
}
