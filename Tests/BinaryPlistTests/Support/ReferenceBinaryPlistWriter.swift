@testable import BinaryPlist

/// The binary plist writer as it was before it wrote into a presized buffer (one `PlistValue` per scalar,
/// a `Dictionary` per kind of scalar, a growing buffer): the oracle that the presized writer must match byte
/// for byte. Kept as it was, not to be optimized.
enum ReferenceBinaryPlistWriter {
    static func encode(_ value: PlistValue, maxDepth: Int = PlistLimits.default.maxDepth) throws -> [UInt8] {
        var flat = ReferenceFlattener(maxDepth: maxDepth)
        _ = try flat.add(value, depth: 1)
        return flat.serialize()
    }
}

/// Sets a free uniquing slot (-1) to `candidate`; returns the slot's object number.
private func claim(_ slot: inout Int, _ candidate: Int) -> Int {
    if slot < 0 { slot = candidate }
    return slot
}

struct ReferenceFlattener {
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
            let me = newObject(0xD0, pool.count, dict.count)
            // Room for the keys' and values' references first: the children's own references follow them.
            var next = pool.count
            pool += [Int](repeating: 0, count: 2 * dict.count)
            for entry in dict.entries {
                guard !entry.key.isCollection else {
                    throw PlistError(.invalidKey, "\(entry.key.kindNameWithArticle) cannot be a dictionary key")
                }
                pool[next] = try add(entry.key, depth: depth + 1)
                next += 1
            }
            for entry in dict.entries {
                pool[next] = try add(entry.value, depth: depth + 1)
                next += 1
            }
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
