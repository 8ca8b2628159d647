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

/// Sets a free uniquing slot (-1) to `candidate`; returns the slot's object number.
@inline(__always)
private func claim(_ slot: inout Int, _ candidate: Int) -> Int {
    if slot < 0 { slot = candidate }
    return slot
}

/// Flattened object table: one record per object, references in one shared pool, scalars uniqued per kind.
private struct Flattener {
    /// 0 for a scalar, else the collection marker's high nibble (0xA0, 0xC0, 0xD0).
    var kinds: [UInt8] = []
    /// Scalar: index into `scalars`; collection: first slot in `pool`.
    var payload: [Int] = []
    /// Collection: element (or key/value pair) count.
    var counts: [Int] = []
    var pool: [Int] = []
    var scalars: [PlistValue] = []

    var strings: [String: Int] = [:]
    var integers: [PlistInteger: Int] = [:]
    var reals: [UInt64: Int] = [:]
    var dates: [UInt64: Int] = [:]
    var datas: [[UInt8]: Int] = [:]
    var uids: [UInt64: Int] = [:]
    var constants: [Int?] = [nil, nil, nil]  // null, false, true

    let maxDepth: Int

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    private mutating func newObject(_ kind: UInt8, _ payload: Int, _ count: Int) -> Int {
        kinds.append(kind)
        self.payload.append(payload)
        counts.append(count)
        return kinds.count - 1
    }

    private mutating func newScalar(_ value: PlistValue) -> Int {
        scalars.append(value)
        return newObject(0, scalars.count - 1, 0)
    }

    /// Adds `value` and its children depth-first (a dictionary's keys, then its values); returns its index.
    /// Recursion is bounded by `maxDepth`.
    mutating func add(_ value: PlistValue, depth: Int) throws -> Int {
        switch value {
        case .array(let items), .set(let items):
            try checkDepth(depth)
            let me = newObject(value.isSet ? 0xC0 : 0xA0, pool.count, items.count)
            let slot = pool.count
            pool.append(contentsOf: repeatElement(0, count: items.count))
            for (i, item) in items.enumerated() { pool[slot + i] = try add(item, depth: depth + 1) }
            return me
        case .dictionary(let dict):
            try checkDepth(depth)
            let n = dict.count
            let me = newObject(0xD0, pool.count, n)
            let slot = pool.count
            pool.append(contentsOf: repeatElement(0, count: 2 * n))
            let entries = dict.entries
            for i in 0..<n {
                if entries[i].key.isCollection {
                    throw PlistError(.invalidKey, "\(entries[i].key.kindNameWithArticle) cannot be a dictionary key")
                }
                pool[slot + i] = try add(entries[i].key, depth: depth + 1)
            }
            for i in 0..<n { pool[slot + n + i] = try add(entries[i].value, depth: depth + 1) }
            return me
        // One hash lookup per scalar: claim the slot for the next object number, keep it if it was free.
        case .string(let s): return keep(value, claim(&strings[s, default: -1], kinds.count))
        case .integer(let i): return keep(value, claim(&integers[i, default: -1], kinds.count))
        case .real(let r): return keep(value, claim(&reals[r.bitPattern, default: -1], kinds.count))
        case .date(let d): return keep(value, claim(&dates[d.secondsSinceReferenceDate.bitPattern, default: -1], kinds.count))
        case .data(let d): return keep(value, claim(&datas[d, default: -1], kinds.count))
        case .uid(let u): return keep(value, claim(&uids[u.value, default: -1], kinds.count))
        case .null, .bool:
            let slot = value.boolValue.map { $0 ? 2 : 1 } ?? 0
            if let existing = constants[slot] { return existing }
            let me = newScalar(value)
            constants[slot] = me
            return me
        }
    }

    /// Appends `value` as a new scalar object when `object` is the next object number.
    @inline(__always)
    private mutating func keep(_ value: PlistValue, _ object: Int) -> Int {
        if object == kinds.count { _ = newScalar(value) }
        return object
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > maxDepth {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)")
        }
    }

    func serialize() -> [UInt8] {
        let objectCount = kinds.count
        let refWidth = byteWidth(toExceed: objectCount)
        var out = BinaryPlistBuffer()
        out.bytes.reserveCapacity(pool.count * refWidth + scalars.count * 16 + objectCount * 4 + 64)
        out.bytes.append(contentsOf: Array("bplist00".utf8))
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for i in 0..<objectCount {
            offsets.append(out.bytes.count)
            let kind = kinds[i]
            if kind == 0 {
                out.writeScalar(scalars[payload[i]])
                continue
            }
            let n = counts[i]
            out.writeMarker(kind, count: n)
            let start = payload[i]
            let refs = kind == 0xD0 ? 2 * n : n
            for r in pool[start..<(start + refs)] { out.writeBigEndian(UInt64(r), width: refWidth) }
        }
        // The top object is always object 0.
        BinaryPlistTrailer.appendTable(offsets: offsets, topObject: 0, referenceWidth: refWidth, to: &out)
        return out.bytes
    }
}

/// A growing byte buffer with the binary plist object encodings.
package struct BinaryPlistBuffer {
    package init() {}
    package var bytes: [UInt8] = []

    @inline(__always)
    package mutating func writeBigEndian(_ v: UInt64, width: Int) {
        if width == 1 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            return
        }
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0[(8 - width)...]) }
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
