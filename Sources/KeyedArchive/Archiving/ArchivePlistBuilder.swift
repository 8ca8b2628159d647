import BinaryPlist

/// Builds the binary plist of a keyed archive directly, without a ``PlistValue`` tree.
///
/// Scalars are uniqued by value (`1`, `1.0` and `true` stay apart; reals by bit pattern; reals and integers
/// through a fixed-size recent-value cache, so a value seen long ago may be written again) and their bytes
/// written once into one buffer as they come; collections are recorded as ranges of a shared reference pool
/// and written at the end, when the reference width is known. Object numbers follow creation order, so the
/// same sequence of calls always gives the same bytes.
struct ArchivePlistBuilder {
    enum Kind: UInt8 { case scalar, array, set, dictionary }
    /// A scalar: `start`/`count` are a byte range of `scalarBytes`. A collection: a range of `pool`
    /// (`count` entries for an array or a set; `count` keys then `count` values for a dictionary).
    struct Node {
        var kind: Kind
        var start: Int32
        var count: Int32
    }

    private(set) var nodes: [Node] = []
    private var scalarBytes = BinaryPlistBuffer()
    private var pool: [Int32] = []
    private var strings = StringTable(capacity: 16)
    private var integers = RecentIntegerCache()
    private var unsigned: [UInt64: Int32] = [:]
    private var reals = RecentIntegerCache()
    private var booleans: [Int32] = [-1, -1]
    /// UID objects by value: the archiver's own UIDs count up from 0 and sit in `uids`; any other value (a UID
    /// kept in an unknown class's plist field, up to 2^64 - 1) in `otherUIDs`, so that no table grows with a
    /// value read from an archive.
    private var uids: [Int32] = []
    private var otherUIDs: [UInt64: Int32] = [:]

    init() {
        nodes.reserveCapacity(32)
    }

    /// Empties the builder for another archive, keeping the storage of its tables and buffers.
    mutating func reset() {
        nodes.removeAll(keepingCapacity: true)
        scalarBytes.bytes.removeAll(keepingCapacity: true)
        pool.removeAll(keepingCapacity: true)
        strings.removeAll()
        integers.removeAll()
        unsigned.removeAll(keepingCapacity: true)
        reals.removeAll()
        booleans = [-1, -1]
        uids.removeAll(keepingCapacity: true)
        otherUIDs.removeAll(keepingCapacity: true)
    }

    private mutating func appendScalar(_ write: (inout BinaryPlistBuffer) -> Void) -> Int32 {
        let start = scalarBytes.bytes.count
        write(&scalarBytes)
        nodes.append(Node(kind: .scalar, start: Int32(truncatingIfNeeded: start),
                          count: Int32(truncatingIfNeeded: scalarBytes.bytes.count - start)))
        return Int32(truncatingIfNeeded: nodes.count - 1)
    }

    mutating func string(_ s: String) -> Int32 {
        let next = Int32(truncatingIfNeeded: nodes.count)
        let n = strings.uniqueValue(for: s, next)
        if n == next { _ = appendScalar { $0.writeString(s) } }
        return n
    }

    mutating func integer(_ v: Int64) -> Int32 {
        if let n = integers[UInt64(bitPattern: v)] { return n }
        let n = appendScalar { $0.writeScalar(.integer(PlistInteger(v))) }
        integers.insert(UInt64(bitPattern: v), n)
        return n
    }

    mutating func unsignedInteger(_ v: UInt64) -> Int32 {
        if v <= UInt64(Int64.max) { return integer(Int64(v)) }
        if let n = unsigned[v] { return n }
        let n = appendScalar { $0.writeScalar(.integer(PlistInteger(v))) }
        unsigned[v] = n
        return n
    }

    mutating func real(_ v: Double) -> Int32 {
        if let n = reals[v.bitPattern] { return n }
        let n = appendScalar { buffer in
            // The marker and the bits, big-endian, in one append of nine bytes.
            withUnsafeTemporaryAllocation(byteCount: 9, alignment: 1) { nine in
                nine[0] = 0x23
                nine.storeBytes(of: v.bitPattern.bigEndian, toByteOffset: 1, as: UInt64.self)
                buffer.bytes.append(contentsOf: nine.assumingMemoryBound(to: UInt8.self))
            }
        }
        reals.insert(v.bitPattern, n)
        return n
    }

    mutating func bool(_ v: Bool) -> Int32 {
        let slot = v ? 1 : 0
        if booleans[slot] >= 0 { return booleans[slot] }
        let n = appendScalar { $0.bytes.append(v ? 0x09 : 0x08) }
        booleans[slot] = n
        return n
    }

    /// Data objects are not uniqued (they are usually distinct and large).
    mutating func data(_ d: some Collection<UInt8>) -> Int32 {
        appendScalar { buffer in
            buffer.writeMarker(0x40, count: d.count)
            buffer.bytes.append(contentsOf: d)
        }
    }

    /// Any other scalar plist value (dates, 128-bit integers, ...), uniqued like the rest where it applies.
    mutating func scalar(_ v: PlistValue) -> Int32 {
        switch v {
        case .string(let s): return string(s)
        case .integer(let i):
            if let s = i.int64Value { return integer(s) }
            if let u = i.uint64Value { return unsignedInteger(u) }
            return appendScalar { $0.writeScalar(v) }
        case .real(let r): return real(r)
        case .bool(let b): return bool(b)
        case .data(let d): return data(d)
        case .uid(let u): return uid(u.value)
        case .array(let items):
            let refs = items.map { scalar($0) }
            return collection(.array, refs)
        case .set(let items):
            let refs = items.map { scalar($0) }
            return collection(.set, refs)
        case .dictionary(let d):
            var refs: [Int32] = []
            refs.reserveCapacity(d.count * 2)
            for e in d.entries { refs.append(scalar(e.key)) }
            for e in d.entries { refs.append(scalar(e.value)) }
            return appendCollection(.dictionary, refs[...], count: d.count)
        case .null, .date:
            return appendScalar { $0.writeScalar(v) }
        }
    }

    mutating func uid(_ u: Int) -> Int32 {
        if u >= 0 && u < uids.count, uids[u] >= 0 { return uids[u] }
        // The table grows by at most doubling (plus a page), as UIDs the archiver numbers itself need.
        guard u >= 0, u < 2 * uids.count + 4096 else { return otherUID(UInt64(bitPattern: Int64(u))) }
        if u == uids.count {
            uids.append(-1)  // the usual case: the next UID
        } else if u > uids.count {
            uids.append(contentsOf: repeatElement(-1, count: u - uids.count + 1))
        }
        let n = newUID(UInt64(u))
        uids[u] = n
        return n
    }

    /// A UID of any value: those the archiver numbers itself through `uid(_:)`'s table, others by value.
    mutating func uid(_ u: UInt64) -> Int32 {
        u <= UInt64(Int.max) ? uid(Int(u)) : otherUID(u)
    }

    private mutating func otherUID(_ u: UInt64) -> Int32 {
        if let n = otherUIDs[u] { return n }
        let n = newUID(u)
        otherUIDs[u] = n
        return n
    }

    private mutating func newUID(_ v: UInt64) -> Int32 {
        appendScalar { buffer in
            let width = v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFF_FFFF ? 4 : 8
            buffer.bytes.append(0x80 | UInt8(width - 1))
            buffer.writeBigEndian(v, width: width)
        }
    }

    /// An array of already-created objects.
    mutating func collection(_ kind: Kind, _ refs: [Int32]) -> Int32 {
        appendCollection(kind, refs[...], count: refs.count)
    }

    /// A dictionary from interleaved `(key, value)` pairs.
    mutating func dictionary(pairs: ArraySlice<Int32>) -> Int32 {
        let count = pairs.count / 2
        let start = pool.count
        // The pairs appended as they are (one copy, the pool grown as appends grow it), then rewritten in place
        // as the keys, then the values: an append per reference checked the pool's uniqueness each time.
        pool.append(contentsOf: pairs)
        pairs.withUnsafeBufferPointer { pairs in
            pool.withUnsafeMutableBufferPointer { pool in
                for k in 0..<count {
                    pool[start + k] = pairs[2 * k]
                    pool[start + count + k] = pairs[2 * k + 1]
                }
            }
        }
        nodes.append(Node(kind: .dictionary, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: count)))
        return Int32(truncatingIfNeeded: nodes.count - 1)
    }

    private mutating func appendCollection(_ kind: Kind, _ refs: ArraySlice<Int32>, count: Int) -> Int32 {
        let start = pool.count
        pool.append(contentsOf: refs)
        nodes.append(Node(kind: kind, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: count)))
        return Int32(truncatingIfNeeded: nodes.count - 1)
    }

    /// Replaces every pool entry equal to a placeholder (a negative number) by `resolve(placeholder)`.
    mutating func resolvePlaceholders(_ resolve: (Int32) -> Int32) {
        for i in pool.indices where pool[i] < 0 { pool[i] = resolve(pool[i]) }
    }

    /// The archive with `top` as the top object, in `format`. XML is, as Apple's archiver writes it, the XML of
    /// the binary plist's value.
    func serialize(top: Int32, format: PlistFormat) throws -> [UInt8] {
        let binary = serialize(top: top)
        guard format == .xml else { return binary }
        do {
            return try PropertyList.encode(try BinaryPlistDocument(binary).decodeTopObject(), format: .xml)
        } catch let error as PlistError {
            throw KeyedArchiveError(.invalidPlist, "cannot write XML: \(error.reason)", underlying: error)
        }
    }

    /// The `bplist00` bytes with `top` as the top object, assembled in one buffer of the size they need.
    func serialize(top: Int32) -> [UInt8] {
        scalarBytes.bytes.withUnsafeBufferPointer { scalars in
            pool.withUnsafeBufferPointer { pool in
                nodes.withUnsafeBufferPointer { nodes in
                    BinaryPlistOutput.plist(objectCount: nodes.count, topObject: Int(top), scalarBytes: scalars, pool: pool) { i in
                        let node = nodes[i]
                        return (Self.markers[Int(node.kind.rawValue)], Int(node.start), Int(node.count))
                    }
                }
            }
        }
    }

    /// The marker of each ``Kind``: 0 for a scalar (its bytes are written whole).
    private static let markers: [UInt8] = [0, 0xA0, 0xC0, 0xD0]
}
