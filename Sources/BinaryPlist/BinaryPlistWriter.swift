/// Writes a ``PlistValue`` as a `bplist00` binary property list.
///
/// Output is deterministic: objects are numbered depth-first from the top (a dictionary's keys, then its
/// values), scalars are uniqued by value (`1`, `1.0` and `true` are never merged; reals and dates by bit
/// pattern), collections are never uniqued, and the offset and reference widths are the smallest that
/// CoreFoundation accepts. ASCII strings are written as `0x5n`, all others as UTF-16 (`0x6n`).
///
/// Mirrors `__CFBinaryPlistWrite` in CoreFoundation.
public struct BinaryPlistWriter {
    public var limits: PlistLimits

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

/// Flattened object table: the object list with references, and the scalar-uniquing map.
private struct Flattener {
    enum Node {
        case scalar(PlistValue)
        case array([Int])
        case set([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    let maxDepth: Int
    var nodes: [Node] = []
    var unique: [PlistValue: Int] = [:]

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    mutating func add(_ value: PlistValue, depth: Int) throws -> Int {
        switch value {
        case .array(let items):
            try checkDepth(depth)
            let me = reserve()
            var refs: [Int] = []
            refs.reserveCapacity(items.count)
            for item in items { refs.append(try add(item, depth: depth + 1)) }
            nodes[me] = .array(refs)
            return me
        case .set(let items):
            try checkDepth(depth)
            let me = reserve()
            var refs: [Int] = []
            refs.reserveCapacity(items.count)
            for item in items { refs.append(try add(item, depth: depth + 1)) }
            nodes[me] = .set(refs)
            return me
        case .dictionary(let dict):
            try checkDepth(depth)
            let me = reserve()
            var keys: [Int] = []
            var values: [Int] = []
            keys.reserveCapacity(dict.count)
            values.reserveCapacity(dict.count)
            for e in dict.entries {
                if e.key.isCollection {
                    throw PlistError(.invalidKey, "\(e.key.kindNameWithArticle) cannot be a dictionary key")
                }
                keys.append(try add(e.key, depth: depth + 1))
            }
            for e in dict.entries { values.append(try add(e.value, depth: depth + 1)) }
            nodes[me] = .dictionary(keys: keys, values: values)
            return me
        default:
            if let existing = unique[value] { return existing }
            let me = nodes.count
            nodes.append(.scalar(value))
            unique[value] = me
            return me
        }
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > maxDepth {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)")
        }
    }

    private mutating func reserve() -> Int {
        nodes.append(.array([]))
        return nodes.count - 1
    }

    func serialize() -> [UInt8] {
        let refWidth = byteWidth(toExceed: nodes.count)
        var out = BinaryPlistBuffer()
        out.bytes.reserveCapacity(nodes.count * 12 + 64)
        out.bytes.append(contentsOf: Array("bplist00".utf8))
        var offsets: [Int] = []
        offsets.reserveCapacity(nodes.count)
        for node in nodes {
            offsets.append(out.bytes.count)
            switch node {
            case .scalar(let v): out.writeScalar(v)
            case .array(let refs):
                out.writeMarker(0xA0, count: refs.count)
                out.writeReferences(refs, width: refWidth)
            case .set(let refs):
                out.writeMarker(0xC0, count: refs.count)
                out.writeReferences(refs, width: refWidth)
            case .dictionary(let keys, let values):
                out.writeMarker(0xD0, count: keys.count)
                out.writeReferences(keys, width: refWidth)
                out.writeReferences(values, width: refWidth)
            }
        }
        let tableOffset = out.bytes.count
        let offsetWidth = byteWidth(toExceed: tableOffset)
        for o in offsets { out.writeBigEndian(UInt64(o), width: offsetWidth) }
        out.bytes.append(contentsOf: [0, 0, 0, 0, 0, 0])  // 5 unused + sort version
        out.bytes.append(UInt8(offsetWidth))
        out.bytes.append(UInt8(refWidth))
        out.writeBigEndian(UInt64(nodes.count), width: 8)
        out.writeBigEndian(0, width: 8)  // the top object is always object 0
        out.writeBigEndian(UInt64(tableOffset), width: 8)
        return out.bytes
    }
}

/// A growing byte buffer with the binary plist object encodings.
package struct BinaryPlistBuffer {
    package init() {}
    package var bytes: [UInt8] = []

    @inline(__always)
    package mutating func writeBigEndian(_ v: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
            shift -= 8
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
