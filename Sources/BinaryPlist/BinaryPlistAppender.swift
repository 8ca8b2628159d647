/// Adds objects to an existing binary plist without encoding it again: new objects go after the existing
/// ones, chosen arrays are written anew, and every other object keeps its bytes and its number, so that every
/// reference to it stays valid.
///
/// ```swift
/// var appender = try BinaryPlistAppender(document)
/// let name = try appender.append(.string("new"))
/// try appender.replaceArray(list, with: oldReferences + [name])
/// let bytes = appender.serialize()  // nil when the references would outgrow their width
/// ```
///
/// This is how one record is added to a large keyed archive in the time it takes to copy the file. The
/// document must be laid out the way CoreFoundation, Foundation, plistlib and ``BinaryPlistWriter`` lay one
/// out: objects in number order, one after the other, none overlapping the next, every reference below the
/// object count. Creating an appender checks all of that in one pass over the objects' headers and throws
/// ``PlistError`` otherwise; the caller then writes the whole plist instead. Old bytes of a replaced array
/// are dropped, so repeated appends leave no garbage, and the result keeps that layout, so it can be appended
/// to in turn.
///
/// No Apple API edits a binary plist in place; this complements `__CFBinaryPlistWrite` (``BinaryPlistWriter``).
package struct BinaryPlistAppender {
    package let document: BinaryPlistDocument
    /// How many references each existing object has, the trailer's to the top object included (saturating at
    /// 255).
    private var referenceCounts: [UInt8]
    /// The new objects' encodings, one after the other, and where each begins in `tail`.
    private var tail = BinaryPlistBuffer()
    private var tailOffsets: [Int] = []
    /// Replaced arrays: whether they keep their old references, and the new ones.
    private var replacements: [Int: (keepingOld: Bool, references: [Int])] = [:]
    /// Objects, new or existing, to use again for a string with the same UTF-8 bytes (not merely equal as
    /// Swift strings, which canonically equivalent strings are) or an equal UID.
    private var strings: [[UInt8]: Int] = [:]
    private var uids: [UInt64: Int] = [:]

    /// Checks the layout of `document` (see the type's description).
    /// - Throws: ``PlistError`` for an object that cannot be read, or `.unsupportedValue` when objects are
    ///   out of number order or overlap.
    package init(_ document: BinaryPlistDocument) throws {
        self.document = document
        let count = document.objectCount
        let width = document.trailer.referenceWidth
        var counts = [UInt8](repeating: 0, count: count)
        var largest: UInt64?
        try document.withObjects { (objects) throws(PlistError) in
            let raw = objects.raw
            var previousEnd = 8
            for index in 0..<count {
                let start = objects.offset(index)
                guard start >= previousEnd else {
                    throw PlistError(
                        .unsupportedValue,
                        "object starts at \(start), inside the object before it (which ends at \(previousEnd))",
                        byteOffset: start, objectIndex: index)
                }
                let (end, references) = try objects.extent(index)
                if raw[start] >> 4 == 0x8 {
                    let size = Int(raw[start] & 0x0F) + 1
                    let wide = size > 8 && readBigEndian(raw, start + 1, size - 8) != 0
                    let uid = wide ? UInt64.max : readBigEndian(raw, start + 1, size)
                    largest = max(largest ?? 0, uid)
                }
                var p = end - references * width
                while p < end {
                    let reference = Int(truncatingIfNeeded: readBigEndian(raw, p, width))
                    guard reference >= 0 && reference < count else {
                        throw PlistError(.invalidReference, "reference \(reference) is not below the object count \(count)",
                                         byteOffset: p, objectIndex: index)
                    }
                    if counts[reference] < .max { counts[reference] += 1 }
                    p += width
                }
                previousEnd = end
            }
        }
        // The trailer refers to the top object.
        if counts[document.topObject] < .max { counts[document.topObject] += 1 }
        referenceCounts = counts
        largestUID = largest
    }

    /// Objects in the document once the new ones are counted.
    package var objectCount: Int { document.objectCount + tailOffsets.count }

    /// How many references the existing object `index` has in the document (the top object's from the
    /// trailer included), up to 255.
    package func referenceCount(of index: Int) -> Int {
        index >= 0 && index < referenceCounts.count ? Int(referenceCounts[index]) : 0
    }

    /// The largest UID value among the existing objects (`nil` when there is none; `UInt64.max` for a UID
    /// wider than 64 bits). A keyed archive whose UIDs all fall below its `$objects` count has no reference
    /// that new objects could capture.
    package private(set) var largestUID: UInt64?

    /// Uses the existing string object `index` for every string with the same bytes appended afterwards. Only
    /// an ASCII string (marker `0x5_`, every byte below 0x80) is used again: any other is written anew, so
    /// that what another reader makes of its bytes never matters.
    package mutating func reuseString(_ index: Int) throws {
        let offset = try document.offset(ofObject: index)
        guard document.bytes[offset] >> 4 == 0x5, case .scalar(.string(let s)) = try document.object(index),
              s.utf8.allSatisfy({ $0 < 0x80 })
        else { return }
        let key = Array(s.utf8)
        if strings[key] == nil { strings[key] = index }
    }

    /// Appends `value` (a collection with everything in it) and returns its object number. Equal strings and
    /// UIDs are written once; collections are always new objects.
    /// - Throws: `.depthLimitExceeded` for nesting deeper than the document's limit, `.invalidKey` for a
    ///   collection used as a dictionary key.
    package mutating func append(_ value: PlistValue) throws -> Int {
        try append(value, depth: 1)
    }

    private mutating func append(_ value: PlistValue, depth: Int) throws -> Int {
        switch value {
        case .array(let items), .set(let items):
            let refs = try children(items, depth: depth)
            return newObject(references: refs) { $0.writeMarker(value.isSet ? 0xC0 : 0xA0, count: refs.count) }
        case .dictionary(let dictionary):
            let entries = dictionary.entries
            if let key = entries.first(where: { $0.key.isCollection })?.key {
                throw PlistError(.invalidKey, "\(key.kindNameWithArticle) cannot be a dictionary key")
            }
            let refs = try children(entries.map(\.key) + entries.map(\.value), depth: depth)
            return newObject(references: refs) { $0.writeMarker(0xD0, count: entries.count) }
        case .string(let s):
            let key = Array(s.utf8)
            if let existing = strings[key] { return existing }
            let index = newObject(references: []) { $0.writeString(s) }
            strings[key] = index
            return index
        case .uid(let u):
            if let existing = uids[u.value] { return existing }
            let index = newObject(references: []) { $0.writeScalar(value) }
            uids[u.value] = index
            return index
        default:
            return newObject(references: []) { $0.writeScalar(value) }
        }
    }

    private mutating func children(_ items: [PlistValue], depth: Int) throws -> [Int] {
        guard depth <= document.limits.maxDepth else {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(document.limits.maxDepth)")
        }
        var refs: [Int] = []
        refs.reserveCapacity(items.count)
        for item in items { refs.append(try append(item, depth: depth + 1)) }
        return refs
    }

    private mutating func newObject(references refs: [Int], _ header: (inout BinaryPlistBuffer) -> Void) -> Int {
        tailOffsets.append(tail.bytes.count)
        header(&tail)
        tail.writeReferences(refs, width: document.trailer.referenceWidth)
        return objectCount - 1
    }

    /// The references of the existing array `index`.
    package func references(ofArray index: Int) throws -> [Int] {
        guard case .array(let refs) = try document.object(index) else {
            throw PlistError(.unsupportedValue, "object \(index) is not an array", objectIndex: index)
        }
        return Array(refs)
    }

    /// Writes the existing array `index` anew with `references` (existing or new objects); its old bytes are
    /// dropped. The array must be referenced exactly once, so that nothing else changes with it.
    package mutating func replaceArray(_ index: Int, with references: [Int]) throws {
        try change(index, keepingOld: false, references)
    }

    /// Writes the existing array `index` anew with its references followed by `references`, the old ones
    /// copied as they are (not read into memory). The array must be referenced exactly once.
    package mutating func extendArray(_ index: Int, with references: [Int]) throws {
        try change(index, keepingOld: true, references)
    }

    private mutating func change(_ index: Int, keepingOld: Bool, _ references: [Int]) throws {
        guard case .array = try document.object(index) else {
            throw PlistError(.unsupportedValue, "object \(index) is not an array", objectIndex: index)
        }
        guard referenceCount(of: index) == 1 else {
            throw PlistError(
                .unsupportedValue, "array \(index) is referenced \(referenceCount(of: index)) times, not once",
                objectIndex: index)
        }
        let count = objectCount
        guard references.allSatisfy({ $0 >= 0 && $0 < count }) else {
            throw PlistError(.invalidReference, "a new reference of array \(index) is not below \(count)", objectIndex: index)
        }
        replacements[index] = (keepingOld, references)
    }

    /// A replaced array: where its old bytes are, and its new encoding.
    private typealias Piece = (index: Int, start: Int, end: Int, bytes: [UInt8])

    /// The replaced arrays in number order, `nil` if one cannot be read (it was read when the appender was
    /// made, so never).
    private func pieces() -> [Piece]? {
        let width = document.trailer.referenceWidth
        var pieces: [Piece] = []
        for (index, change) in replacements.sorted(by: { $0.key < $1.key }) {
            guard case .array(let old) = try? document.object(index), let start = try? document.offset(ofObject: index),
                  let end = try? document.withObjects({ (objects) throws(PlistError) in try objects.extent(index).end })
            else { return nil }
            var piece = BinaryPlistBuffer()
            piece.writeMarker(0xA0, count: (change.keepingOld ? old.count : 0) + change.references.count)
            if change.keepingOld {
                piece.bytes.append(contentsOf: document.bytes[old.start..<(old.start + old.count * width)])
            }
            piece.writeReferences(change.references, width: width)
            pieces.append((index, start, end, piece.bytes))
        }
        return pieces
    }

    /// The new plist: the existing objects with the replaced arrays written anew in their places, the new
    /// objects, a new offset table and trailer. Objects stay in number order, back to back, so the result can
    /// be appended to in turn. The result is checked before it is returned (``keepsExistingObjects(_:)``).
    /// `nil` when the objects have outgrown the reference width (the caller writes the whole plist, with wider
    /// references, instead), or if that check fails.
    package func serialize() -> [UInt8]? {
        let width = document.trailer.referenceWidth
        let total = objectCount
        guard width >= 8 || total < 1 << (8 * width), let pieces = pieces() else { return nil }
        let oldCount = document.objectCount
        let table = document.objectAreaEnd
        let tableOffset = table + tail.bytes.count + pieces.reduce(0) { $0 + $1.bytes.count - ($1.end - $1.start) }
        let trailer = BinaryPlistTrailer(objectCount: total, topObject: document.topObject, offsetTableOffset: tableOffset,
                                         referenceWidth: width, sortVersion: document.trailer.sortVersion)
        let offsetWidth = trailer.offsetWidth
        let size = tableOffset + total * offsetWidth + BinaryPlistTrailer.byteCount
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            var w = 0
            func copy(_ source: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: out[w..<(w + source.count)]).copyMemory(from: source)
                w += source.count
            }
            // An offset-table entry: eight bytes stored, the first `offsetWidth` kept (the rest is overwritten
            // by the next entry, or by the trailer, which always follows).
            var entry = tableOffset
            func putOffset(_ offset: Int) {
                out.storeBytes(of: (UInt64(offset) << UInt64(64 - 8 * offsetWidth)).bigEndian, toByteOffset: entry,
                               as: UInt64.self)
                entry += offsetWidth
            }
            document.bytes.withUnsafeBytes { raw in
                // The object area, each replaced array written in place of its old bytes; every object after
                // it moves by the difference.
                let oldWidth = document.trailer.offsetWidth
                var copied = 0
                var shift = 0
                var next = 0
                for index in 0..<oldCount {
                    let start = Int(truncatingIfNeeded: readBigEndian(raw, table + index * oldWidth, oldWidth))
                    guard next < pieces.count && pieces[next].index == index else {
                        putOffset(start + shift)
                        continue
                    }
                    copy(UnsafeRawBufferPointer(rebasing: raw[copied..<start]))
                    putOffset(w)
                    pieces[next].bytes.withUnsafeBytes { copy($0) }
                    copied = pieces[next].end
                    shift = w - copied
                    next += 1
                }
                copy(UnsafeRawBufferPointer(rebasing: raw[copied..<table]))
            }
            let tailStart = w
            tail.bytes.withUnsafeBytes { copy($0) }
            for offset in tailOffsets { putOffset(tailStart + offset) }
            complete = w == tableOffset && entry == tableOffset + total * offsetWidth
            if complete {
                w = entry
                trailer.encoded.withUnsafeBytes { copy($0) }
            }
            initialized = size
        }
        guard complete, keepsExistingObjects(bytes, pieces) else { return nil }
        return bytes
    }

    /// Whether every existing object that was not replaced is found in `result`, with the bytes up to the
    /// next replaced array, byte for byte where `result`'s offset table says, and each replaced array right
    /// after its run. (What the replaced arrays and the new objects hold is the caller's to read back.)
    func keepsExistingObjects(_ result: [UInt8]) -> Bool {
        pieces().map { keepsExistingObjects(result, $0) } ?? false
    }

    /// The check, with the replaced arrays `serialize()` already encoded (not encoded twice on the hot path).
    private func keepsExistingObjects(_ result: [UInt8], _ pieces: [Piece]) -> Bool {
        guard result.count >= BinaryPlistTrailer.byteCount else { return false }
        return result.withUnsafeBytes { new in
            document.bytes.withUnsafeBytes { old in
                let t = new.count - BinaryPlistTrailer.byteCount
                let offsetWidth = Int(new[t + 6])
                let tableOffset = Int(truncatingIfNeeded: readBigEndian(new, t + 24, 8))
                let count = document.objectCount
                guard (1...8).contains(offsetWidth), tableOffset >= 0,
                      tableOffset <= t - count * offsetWidth
                else { return false }
                let oldWidth = document.trailer.offsetWidth
                let oldTable = document.objectAreaEnd
                func oldOffset(_ i: Int) -> Int { Int(truncatingIfNeeded: readBigEndian(old, oldTable + i * oldWidth, oldWidth)) }
                func newOffset(_ i: Int) -> Int { Int(truncatingIfNeeded: readBigEndian(new, tableOffset + i * offsetWidth, offsetWidth)) }
                // Runs of unchanged objects: from the header (or after a replaced array) up to the next replaced
                // array (or the end of the old object area).
                var first = 0
                var oldStart = 0
                var newStart = 0
                for boundary in pieces + [(count, oldTable, oldTable, [])] {
                    let length = boundary.start - oldStart
                    guard length >= 0, newStart + length <= tableOffset, equalBytes(old, oldStart, new, newStart, length)
                    else { return false }
                    for i in first..<boundary.index where newOffset(i) - newStart != oldOffset(i) - oldStart { return false }
                    guard boundary.index < count else { return true }
                    guard newOffset(boundary.index) == newStart + length,
                          equalBytes(boundary.bytes, new, newStart + length)
                    else { return false }
                    first = boundary.index + 1
                    oldStart = boundary.end
                    newStart += length + boundary.bytes.count
                }
                return true
            }
        }
    }
}

/// Whether `bytes` are found at `b + j`.
private func equalBytes(_ bytes: [UInt8], _ b: UnsafeRawBufferPointer, _ j: Int) -> Bool {
    bytes.withUnsafeBytes { equalBytes($0, 0, b, j, bytes.count) }
}

/// Whether `length` bytes at `a + i` and `b + j` are equal, compared eight at a time.
private func equalBytes(_ a: UnsafeRawBufferPointer, _ i: Int, _ b: UnsafeRawBufferPointer, _ j: Int, _ length: Int) -> Bool {
    guard i >= 0, j >= 0, length >= 0, i + length <= a.count, j + length <= b.count else { return false }
    var k = 0
    while k + 8 <= length {
        if a.loadUnaligned(fromByteOffset: i + k, as: UInt64.self) != b.loadUnaligned(fromByteOffset: j + k, as: UInt64.self) {
            return false
        }
        k += 8
    }
    while k < length {
        if a[i + k] != b[j + k] { return false }
        k += 1
    }
    return true
}
