/// Writes a ``PlistValue`` as a `bplist00` binary property list.
///
/// Output is deterministic: objects are numbered depth-first from the top (a dictionary's keys, then its
/// values), scalars are uniqued by value (`1`, `1.0` and `true` are never merged; reals and dates by bit
/// pattern), collections are never uniqued, and the offset and reference widths are the smallest that
/// CoreFoundation accepts. ASCII strings are written as `0x5n`, all others as UTF-16 (`0x6n`).
///
/// Mirrors `__CFBinaryPlistWrite` in CoreFoundation.
public struct BinaryPlistWriter {
    /// The limits writing enforces (the depth limit).
    public var limits: PlistLimits

    /// A writer that enforces `limits`.
    public init(limits: PlistLimits = .default) {
        self.limits = limits
    }

    /// Encodes `value` to binary plist bytes.
    /// - Throws: ``PlistError`` `.depthLimitExceeded` for nesting deeper than the limit, `.invalidKey` for
    ///   a collection used as a dictionary key.
    public func encode(_ value: PlistValue) throws -> [UInt8] {
        var flat = Flattener(maxDepth: limits.maxDepth)
        _ = try flat.add(value, depth: 1)
        return flat.serialize()
    }
}

/// Flattened object table: one record per object in object-number order, references in one shared pool,
/// each scalar's bytes written once into one buffer as it comes (and taken back when an equal scalar already
/// has an object), then the file assembled in one buffer of the size it needs.
private struct Flattener {
    var nodes: [WrittenObject] = []
    var pool: [Int] = []
    var scalars = BinaryPlistBuffer()
    var table = EncodedScalarTable()
    /// Strings that are not ASCII, compared as Swift strings, as they were always uniqued.
    var otherStrings: [String: Int] = [:]
    /// Whether `otherStrings` holds a string equal to an ASCII one ("\u{212A}", equal to "K").
    var hasASCIIEquivalents = false
    var recentStrings = RecentStrings()

    let maxDepth: Int

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    /// Adds `value` and its children depth-first (a dictionary's keys, then its values); returns its index.
    /// Recursion is bounded by `maxDepth`.
    mutating func add(_ value: PlistValue, depth: Int) throws -> Int {
        switch value {
        case .array(let items), .set(let items):
            try checkDepth(depth)
            let me = nodes.count
            nodes.append(WrittenObject(kind: value.isSet ? 0xC0 : 0xA0, start: pool.count, count: items.count))
            let slot = pool.count
            pool.append(contentsOf: repeatElement(0, count: items.count))
            for i in items.indices { pool[slot + i] = try add(items[i], depth: depth + 1) }
            return me
        case .dictionary(let dict):
            try checkDepth(depth)
            let n = dict.count
            let me = nodes.count
            nodes.append(WrittenObject(kind: 0xD0, start: pool.count, count: n))
            let slot = pool.count
            pool.append(contentsOf: repeatElement(0, count: 2 * n))
            let entries = dict.entries
            for i in 0..<n {
                if entries[i].key.isCollection {
                    throw PlistError(.invalidKey, "\(entries[i].key.kindNameWithArticle) cannot be a dictionary key")
                }
                pool[slot + i] = try key(entries[i].key, depth: depth + 1)
            }
            for i in 0..<n { pool[slot + n + i] = try add(entries[i].value, depth: depth + 1) }
            return me
        case .string(let s):
            return string(s)
        default:
            let mark = scalars.bytes.count
            scalars.writeScalar(value)
            return unique(from: mark)
        }
    }

    /// A dictionary key: the keys of a plist's many dictionaries repeat, so a string key is first looked up
    /// among the strings recently seen, by identity.
    @inline(__always)
    private mutating func key(_ value: PlistValue, depth: Int) throws -> Int {
        guard case .string(let s) = value, let bits = RecentStrings.bits(of: s) else { return try add(value, depth: depth) }
        if let object = recentStrings[bits] { return object }
        let object = string(s)
        recentStrings.insert(s, bits, object)
        return object
    }

    /// The object of the scalar whose bytes were just written from `mark` on: an earlier object with the same
    /// bytes (the new bytes are taken back), or a new one.
    @inline(__always)
    private mutating func unique(from mark: Int) -> Int {
        let candidate = nodes.count
        let end = scalars.bytes.count
        let object = scalars.bytes.withUnsafeBytes { buffer in
            nodes.withUnsafeBufferPointer { table.object(for: buffer, mark, end, objects: $0, candidate: candidate) }
        }
        if object == candidate {
            nodes.append(WrittenObject(kind: 0, start: mark, count: end - mark))
        } else {
            scalars.bytes.removeSubrange(mark..<end)
        }
        return object
    }

    private mutating func string(_ string: String) -> Int {
        var s = string
        if s.utf8.withContiguousStorageIfAvailable({ _ in true }) == nil { s.makeContiguousUTF8() }
        let asASCII: Int?? = s.utf8.withContiguousStorageIfAvailable { utf8 -> Int? in
            guard isASCII(utf8) else { return nil }
            // The bytes in order are the string; `==` on two ASCII strings compares those bytes.
            if hasASCIIEquivalents, let object = otherStrings[s] { return object }
            let mark = scalars.bytes.count
            scalars.writeMarker(0x50, count: utf8.count)
            scalars.bytes.append(contentsOf: utf8)
            return unique(from: mark)
        }
        if case .some(.some(let object)) = asASCII { return object }
        if let object = otherStrings[s] { return object }
        if let ascii = asciiEquivalent(of: s) {
            // Equal to an ASCII string: that string's object, when it was written first.
            let mark = scalars.bytes.count
            scalars.writeMarker(0x50, count: ascii.count)
            scalars.bytes.append(contentsOf: ascii)
            let end = scalars.bytes.count
            let earlier = scalars.bytes.withUnsafeBytes { buffer in
                nodes.withUnsafeBufferPointer { table.existingObject(for: buffer, mark, end, objects: $0) }
            }
            scalars.bytes.removeSubrange(mark...)
            if let earlier { return earlier }
            hasASCIIEquivalents = true
        }
        let object = nodes.count
        let mark = scalars.bytes.count
        scalars.writeString(s)
        nodes.append(WrittenObject(kind: 0, start: mark, count: scalars.bytes.count - mark))
        otherStrings[s] = object
        return object
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > maxDepth {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)")
        }
    }

    /// The file: header, objects in number order (the top object is always object 0), offset table and
    /// trailer, written into one buffer of the size they need.
    func serialize() -> [UInt8] {
        scalars.bytes.withUnsafeBufferPointer { scalarBytes in
            pool.withUnsafeBufferPointer { pool in
                nodes.withUnsafeBufferPointer { nodes in
                    BinaryPlistOutput.plist(objectCount: nodes.count, topObject: 0, scalarBytes: scalarBytes, pool: pool) {
                        (nodes[$0].kind, nodes[$0].start, nodes[$0].count)
                    }
                }
            }
        }
    }
}

/// Whether every byte is below 0x80.
@inline(__always)
private func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var high: UInt8 = 0
    for b in bytes { high |= b }
    return high < 0x80
}

/// A growing byte buffer with the binary plist object encodings.
package struct BinaryPlistBuffer {
    package init() {}
    package var bytes: [UInt8] = []

    @inline(__always)
    package mutating func writeBigEndian(_ v: UInt64, width: Int) {
        switch width {
        case 1:
            bytes.append(UInt8(truncatingIfNeeded: v))
            return
        case 2, 4:
            // A few single appends cost less than one append of a buffer (its generic set-up).
            var shift = UInt64(8 * (width - 1))
            for _ in 0..<width {
                bytes.append(UInt8(truncatingIfNeeded: v >> shift))
                shift &-= 8
            }
            return
        default:
            break
        }
        // A contiguous buffer, so that appending is one copy (a slice of a raw buffer is appended byte by byte).
        withUnsafeBytes(of: v.bigEndian) {
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[(8 - width)...]).assumingMemoryBound(to: UInt8.self))
        }
    }

    package mutating func writeMarker(_ kind: UInt8, count: Int) {
        if count < 15 {
            bytes.append(kind | UInt8(count))
        } else {
            bytes.append(kind | 0x0F)
            writeUnsigned(UInt64(count))
        }
    }

    /// An integer object for a non-negative value below 2^63, in the smallest of 1, 2, 4 or 8 bytes.
    package mutating func writeUnsigned(_ v: UInt64) {
        if v <= 0xFF {
            bytes.append(0x10)
            bytes.append(UInt8(v))
        } else if v <= 0xFFFF {
            bytes.append(0x11)
            writeBigEndian(v, width: 2)
        } else if v <= 0xFFFF_FFFF {
            bytes.append(0x12)
            writeBigEndian(v, width: 4)
        } else {
            bytes.append(0x13)
            writeBigEndian(v, width: 8)
        }
    }

    package mutating func writeReferences(_ refs: [Int], width: Int) {
        for r in refs { writeBigEndian(UInt64(r), width: width) }
    }

    package mutating func writeScalar(_ v: PlistValue) {
        switch v {
        case .null: bytes.append(0x00)
        case .bool(let b): bytes.append(b ? 0x09 : 0x08)
        case .integer(let i):
            if i.high == 0 && i.low < (1 << 63) {
                writeUnsigned(i.low)
            } else if i.high == -1 && i.low >= (1 << 63) {
                bytes.append(0x13)  // negative 64-bit: always 8 bytes
                writeBigEndian(i.low, width: 8)
            } else {
                bytes.append(0x14)  // 2^63 and up, or beyond 64 bits: 16 bytes
                writeBigEndian(UInt64(bitPattern: i.high), width: 8)
                writeBigEndian(i.low, width: 8)
            }
        case .real(let r):
            bytes.append(0x23)
            writeBigEndian(r.bitPattern, width: 8)
        case .date(let d):
            bytes.append(0x33)
            writeBigEndian(d.secondsSinceReferenceDate.bitPattern, width: 8)
        case .data(let d):
            writeMarker(0x40, count: d.count)
            bytes.append(contentsOf: d)
        case .string(let s):
            writeString(s)
        case .uid(let u):
            // CoreFoundation's widths: 1, 2, 4 or 8 bytes.
            let width = u.value <= 0xFF ? 1 : u.value <= 0xFFFF ? 2 : u.value <= 0xFFFF_FFFF ? 4 : 8
            bytes.append(0x80 | UInt8(width - 1))
            writeBigEndian(u.value, width: width)
        case .array, .set, .dictionary:
            break  // never reached: collections are nodes of their own
        }
    }

    package mutating func writeString(_ s: String) {
        var utf8 = s.utf8
        let isASCII: Bool = utf8.withContiguousStorageIfAvailable { buf in
            var high: UInt8 = 0
            for b in buf { high |= b }
            return high < 0x80
        } ?? {
            var copy = s
            copy.makeContiguousUTF8()
            utf8 = copy.utf8
            return !copy.utf8.contains { $0 >= 0x80 }
        }()
        if isASCII {
            writeMarker(0x50, count: utf8.count)
            bytes.append(contentsOf: utf8)
        } else {
            let units = Array(s.utf16)
            writeMarker(0x60, count: units.count)
            for u in units {
                bytes.append(UInt8(u >> 8))
                bytes.append(UInt8(u & 0xFF))
            }
        }
    }
}
