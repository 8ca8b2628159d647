import BinaryPlist

/// Reads the objects of a keyed archive straight from a validated binary plist, without building a tree.
///
/// Hot values (dictionaries, UIDs, integers, reals, booleans, ASCII key strings) are decoded here with every
/// size checked against the object area; anything else goes through ``BinaryPlistDocument/object(_:)``.
/// `raw` borrows `document.bytes` and is only valid inside the `withUnsafeBytes` scope that created it.
/// A class, so that the unarchiver's hot paths reach it by reference instead of copying (and retaining)
/// the whole document at each call.
final class BinaryArchiveReader {
    let document: BinaryPlistDocument
    let raw: UnsafeRawBufferPointer
    let objectCount: Int
    let offsetWidth: Int
    let refWidth: Int
    let tableStart: Int

    init(document: BinaryPlistDocument, raw: UnsafeRawBufferPointer) {
        self.document = document
        self.raw = raw
        objectCount = document.trailer.objectCount
        offsetWidth = document.trailer.offsetWidth
        refWidth = document.trailer.referenceWidth
        tableStart = document.trailer.offsetTableOffset
    }

    /// A dictionary's key references start at `keys`; its value references follow them.
    struct Dictionary {
        var keys: Int
        var count: Int
    }

    /// An array's references start at `refs`.
    struct Array {
        var refs: Int
        var count: Int
    }

    /// One value, as the unarchiver needs it.
    enum Value {
        case uid(Int)
        case integer(PlistInteger)
        case real(Double)
        case bool(Bool)
        case array(Array)
        case dictionary(Dictionary)
        case other(PlistValue)
    }

    func plistError(_ object: Int, _ reason: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidPlist, "plist object \(object): \(reason)")
    }

    /// A big-endian unsigned number of `width` bytes at `p` (the caller checked the bounds).
    @inline(__always)
    func number(at p: Int, width: Int) -> Int {
        switch width {
        case 1: return Int(raw[p])
        case 2: return Int(raw[p]) << 8 | Int(raw[p + 1])
        case 3: return Int(raw[p]) << 16 | Int(raw[p + 1]) << 8 | Int(raw[p + 2])
        case 4: return Int(raw[p]) << 24 | Int(raw[p + 1]) << 16 | Int(raw[p + 2]) << 8 | Int(raw[p + 3])
        default: return Int(truncatingIfNeeded: readBigEndian(raw, p, width))
        }
    }

    @inline(__always)
    func offset(_ object: Int) -> Int {
        number(at: tableStart + object * offsetWidth, width: offsetWidth)
    }

    /// The reference stored at byte `position`, checked against the object count.
    @inline(__always)
    func reference(at position: Int) throws -> Int {
        let v = number(at: position, width: refWidth)
        guard v >= 0 && v < objectCount else { throw referenceError(v, position) }
        return v
    }

    @inline(never)
    private func referenceError(_ v: Int, _ position: Int) -> KeyedArchiveError {
        KeyedArchiveError(.invalidPlist, "reference \(v) at byte \(position) is not below the object count \(objectCount)")
    }

    /// The count after a collection marker at `start` and where the references begin.
    private func count(object: Int, start: Int, marker: UInt8) throws -> (count: Int, payload: Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, start + 1) }
        let p = start + 1
        guard p < tableStart else { throw plistError(object, "extended count runs past the object area") }
        let m = raw[p]
        guard m & 0xF0 == 0x10, m & 0x0F <= 3 else { throw plistError(object, "malformed extended count") }
        let width = 1 << Int(m & 0x0F)
        guard p + 1 + width <= tableStart else { throw plistError(object, "extended count runs past the object area") }
        let v = readBigEndian(raw, p + 1, width)
        guard v <= UInt64(Int32.max) else { throw plistError(object, "count \(v) is too large") }
        return (Int(v), p + 1 + width)
    }

    /// Checks that `count` references of `perEntry` groups fit before the offset table.
    private func checkRefs(object: Int, at p: Int, count: Int, perEntry: Int) throws {
        let (n, o1) = count.multipliedReportingOverflow(by: refWidth * perEntry)
        let (end, o2) = p.addingReportingOverflow(n)
        guard !o1, !o2, end <= tableStart else {
            throw plistError(object, "\(count) references run past the object area")
        }
    }

    func value(_ object: Int) throws -> Value {
        let start = offset(object)
        let marker = raw[start]
        switch marker >> 4 {
        case 0x8:
            return .uid(try uidValue(object, start: start, marker: marker))
        case 0x1 where marker & 0x0F <= 3:
            let width = 1 << Int(marker & 0x0F)
            guard start + 1 + width <= tableStart else { throw plistError(object, "integer runs past the object area") }
            let v = readBigEndian(raw, start + 1, width)
            // 1, 2 and 4-byte integers are unsigned; 8-byte ones are signed.
            return .integer(width == 8 ? PlistInteger(Int64(bitPattern: v)) : PlistInteger(v))
        case 0x2 where marker == 0x23 || marker == 0x22:
            let width = marker == 0x23 ? 8 : 4
            guard start + 1 + width <= tableStart else { throw plistError(object, "real runs past the object area") }
            let v = readBigEndian(raw, start + 1, width)
            return .real(width == 8 ? Double(bitPattern: v) : Double(Float(bitPattern: UInt32(truncatingIfNeeded: v))))
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        case 0xA:
            let (n, p) = try count(object: object, start: start, marker: marker)
            try checkRefs(object: object, at: p, count: n, perEntry: 1)
            return .array(Array(refs: p, count: n))
        case 0xD:
            let (n, p) = try count(object: object, start: start, marker: marker)
            try checkRefs(object: object, at: p, count: n, perEntry: 2)
            return .dictionary(Dictionary(keys: p, count: n))
        case 0x5:
            if let s = plainASCII(start: start, marker: marker) { return .other(.string(s)) }
            return try documentValue(object)
        default:
            return try documentValue(object)
        }
    }

    /// Any value through the document's scanner (strings that are not plain ASCII, data, dates, ...).
    private func documentValue(_ object: Int) throws -> Value {
        do {
            switch try document.object(object) {
            case .scalar(let v): return .other(v)
            default: return .other(try document.decodeObject(object))
            }
        } catch let error as PlistError {
            throw KeyedArchiveError(.invalidPlist, error.description, underlying: error)
        }
    }

    /// The ASCII string object at `start` when it is well formed and every byte is below 0x80 (what the
    /// document's scanner returns for it too); `nil` for anything else, which the scanner then reads or rejects.
    @inline(__always)
    private func plainASCII(start: Int, marker: UInt8) -> String? {
        var n = Int(marker & 0x0F)
        var p = start + 1
        if n == 0x0F {
            guard p < tableStart else { return nil }
            let m = raw[p]
            guard m & 0xF0 == 0x10, m & 0x0F <= 2 else { return nil }
            let width = 1 << Int(m & 0x0F)
            guard p + 1 + width <= tableStart else { return nil }
            n = Int(readBigEndian(raw, p + 1, width))
            p += 1 + width
        }
        guard n <= tableStart - p else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: raw[p..<(p + n)])
        var high: UInt8 = 0
        for b in bytes { high |= b }
        guard high < 0x80 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The UID stored in object `object`, or `nil` when the object is not a UID.
    @inline(__always)
    func uid(_ object: Int) throws -> Int? {
        let start = offset(object)
        let marker = raw[start]
        guard marker >> 4 == 0x8 else { return nil }
        return try uidValue(object, start: start, marker: marker)
    }

    /// The value of the UID object at `start` (marker `0x8n`, `n + 1` bytes, up to 16 of which the leading
    /// ones beyond 8 must be zero); values above `Int32.max` are refused.
    @inline(__always)
    private func uidValue(_ object: Int, start: Int, marker: UInt8) throws -> Int {
        let width = Int(marker & 0x0F) + 1
        guard start + 1 + width <= tableStart else { throw plistError(object, "UID runs past the object area") }
        if width > 8, readBigEndian(raw, start + 1, width - 8) != 0 {
            throw plistError(object, "UID wider than 64 bits")
        }
        let v = readBigEndian(raw, start + 1, width)
        guard v <= UInt64(Int32.max) else { throw plistError(object, "UID \(v) is too large") }
        return Int(v)
    }

    /// The 8-byte real stored in object `object`, or `nil` when it is anything else.
    @inline(__always)
    func real(_ object: Int) -> Double? {
        let start = offset(object)
        guard raw[start] == 0x23, start + 9 <= tableStart else { return nil }
        return Double(bitPattern: readBigEndian(raw, start + 1, 8))
    }

    /// The dictionary stored in object `object`, or `nil` when it is anything else.
    @inline(__always)
    func dictionary(_ object: Int) throws -> Dictionary? {
        try collection(object, kind: 0xD, perEntry: 2).map { Dictionary(keys: $0.start, count: $0.count) }
    }

    /// The array stored in object `object`, or `nil` when it is anything else.
    @inline(__always)
    func array(_ object: Int) throws -> Array? {
        try collection(object, kind: 0xA, perEntry: 1).map { Array(refs: $0.start, count: $0.count) }
    }

    /// Where the references of collection object `object` start and how many entries it has, when its
    /// marker is of `kind`; every reference fits before the offset table.
    @inline(__always)
    private func collection(_ object: Int, kind: UInt8, perEntry: Int) throws -> (start: Int, count: Int)? {
        let start = offset(object)
        let marker = raw[start]
        guard marker >> 4 == kind else { return nil }
        let (n, p) = try count(object: object, start: start, marker: marker)
        try checkRefs(object: object, at: p, count: n, perEntry: perEntry)
        return (p, n)
    }

    /// The string object `object` when it is plain ASCII; `nil` for anything else (including other strings).
    @inline(__always)
    func plainString(_ object: Int) -> String? {
        let start = offset(object)
        let marker = raw[start]
        guard marker >> 4 == 0x5 else { return nil }
        return plainASCII(start: start, marker: marker)
    }

    @inline(__always)
    func keyReference(_ d: Dictionary, _ i: Int) throws -> Int { try reference(at: d.keys + i * refWidth) }
    /// A key reference without the object-count check, for comparing with a known valid object number.
    @inline(__always)
    func uncheckedKeyReference(_ d: Dictionary, _ i: Int) -> Int { number(at: d.keys + i * refWidth, width: refWidth) }
    @inline(__always)
    func valueReference(_ d: Dictionary, _ i: Int) throws -> Int {
        try reference(at: d.keys + (d.count + i) * refWidth)
    }
    @inline(__always)
    func elementReference(_ a: Array, _ i: Int) throws -> Int { try reference(at: a.refs + i * refWidth) }

    /// Whether object `object` is the string whose UTF-8 bytes are `key`.
    @inline(__always)
    func isString(_ object: Int, equalTo key: UnsafeBufferPointer<UInt8>) throws -> Bool {
        let start = offset(object)
        let marker = raw[start]
        if marker >> 4 == 0x5 && marker & 0x0F != 0x0F {
            let n = Int(marker & 0x0F)
            guard n == key.count else { return false }
            guard start + 1 + n <= tableStart else { throw plistError(object, "string runs past the object area") }
            for i in 0..<n where raw[start + 1 + i] != key[i] { return false }
            return true
        }
        guard let s = try string(object) else { return false }
        return s.utf8.elementsEqual(key)
    }

    /// The string object `object`, or `nil` when it is not a string.
    func string(_ object: Int) throws -> String? {
        if let s = plainString(object) { return s }
        if case .other(.string(let s)) = try value(object) { return s }
        return nil
    }
}
