/// Reads single objects of a validated ``BinaryPlistDocument`` from a borrowed buffer.
///
/// Every size is checked against the bytes left in the object area before anything is read or allocated.
/// Mirrors the object switch of CoreFoundation's `__CFBinaryPlistCreateObjectFiltered`.
struct BinaryPlistScanner {
    let raw: UnsafeRawBufferPointer
    let document: BinaryPlistDocument
    let objectCount: Int
    let offsetWidth: Int
    let referenceWidth: Int
    let table: Int
    let strict: Bool

    init(raw: UnsafeRawBufferPointer, document: BinaryPlistDocument) {
        self.raw = raw
        self.document = document
        self.objectCount = document.trailer.objectCount
        self.offsetWidth = document.trailer.offsetWidth
        self.referenceWidth = document.trailer.referenceWidth
        self.table = document.objectAreaEnd
        self.strict = document.limits.stringPolicy == .strict
    }

    @inline(__always)
    func offset(_ index: Int) -> Int {
        Int(truncatingIfNeeded: readBigEndian(raw, table + index * offsetWidth, offsetWidth))
    }

    func error(_ code: PlistError.Code, _ reason: String, _ index: Int, _ at: Int) -> PlistError {
        PlistError(code, reason, byteOffset: at, objectIndex: index)
    }

    /// Bytes left in the object area from `at`.
    @inline(__always)
    func left(_ at: Int) -> Int { table - at }

    /// Reads the count that follows a marker: the low nibble, or for 0xF an integer object after it.
    /// Returns the count and the position of the payload.
    @inline(__always)
    func count(_ marker: UInt8, at start: Int, _ index: Int) throws -> (Int, Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, start + 1) }
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
    @inline(__always)
    func checkFits(_ count: Int, _ size: Int, at: Int, _ index: Int, _ start: Int) throws {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
        if overflow || bytes > left(at) {
            throw error(.invalidCount,
                        "count \(describeCount(UInt64(count))) exceeds the \(max(0, left(at))) bytes left", index, start)
        }
    }

    func references(at p: Int, count: Int, _ index: Int, _ start: Int) throws -> BinaryPlistDocument.References {
        try checkReferences(at: p, count: count, index, start)
        return .init(bytes: document.bytes, start: p, width: referenceWidth, count: count)
    }

    /// Checks that `count` references fit in the object area and are each below the object count.
    func checkReferences(at p: Int, count: Int, _ index: Int, _ start: Int) throws {
        try checkFits(count, referenceWidth, at: p, index, start)
        var q = p
        for _ in 0..<count {
            let r = readBigEndian(raw, q, referenceWidth)
            if r >= UInt64(objectCount) {
                throw error(.invalidReference, "reference \(r) is not below the object count \(objectCount)", index, q)
            }
            q += referenceWidth
        }
    }

    func object(_ index: Int) throws -> BinaryPlistDocument.Object {
        guard index >= 0 && index < objectCount else {
            throw PlistError(.invalidReference, "reference \(index) is not below the object count \(objectCount)")
        }
        let start = offset(index)
        let marker = raw[start]
        switch marker >> 4 {
        case 0xA:
            let (n, p) = try count(marker, at: start, index)
            return .array(try references(at: p, count: n, index, start))
        case 0xC:
            let (n, p) = try count(marker, at: start, index)
            return .set(try references(at: p, count: n, index, start))
        case 0xD:
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, 2 * referenceWidth, at: p, index, start)
            let keys = try references(at: p, count: n, index, start)
            let values = try references(at: p + n * referenceWidth, count: n, index, start)
            return .dictionary(keys: keys, values: values)
        default:
            return .scalar(try scalar(index, start: start, marker: marker))
        }
    }

    /// Where object `index` ends (one past its last byte), its header checked to fit in the object area, and
    /// for a collection how many references end there (they fill the object's last bytes; the caller checks
    /// them). Scalar payloads are not interpreted (a string's bytes are not decoded).
    @inline(__always)
    func extent(_ index: Int) throws -> (end: Int, references: Int) {
        let start = offset(index)
        let marker = raw[start]
        let low = Int(marker & 0x0F)
        let kind = marker >> 4
        let fixed: Int
        switch kind {
        case 0x0 where low == 0x0 || low == 0x8 || low == 0x9: fixed = 0
        case 0x1 where low <= 4: fixed = 1 << low          // integers of 1 to 16 bytes
        case 0x2 where low == 2 || low == 3: fixed = 1 << low  // reals of 4 or 8 bytes
        case 0x3 where low == 3: fixed = 8                  // dates
        case 0x8: fixed = low + 1                           // UIDs
        case 0x4, 0x5, 0x6, 0xA, 0xC, 0xD:
            let (n, p) = try count(marker, at: start, index)
            let size = kind == 0x6 ? 2 : kind == 0xD ? 2 * referenceWidth : kind >= 0xA ? referenceWidth : 1
            try checkFits(n, size, at: p, index, start)
            return (p + n * size, kind == 0xD ? 2 * n : kind >= 0xA ? n : 0)
        default:
            throw error(.invalidMarker, "marker 0x\(hex(marker)) is not an object type", index, start)
        }
        guard fixed <= left(start + 1) else {
            throw error(.truncated, "object of \(fixed + 1) bytes runs past the object area", index, start)
        }
        return (start + 1 + fixed, 0)
    }

    /// Reads a non-collection object at `start`.
    func scalar(_ index: Int, start: Int, marker: UInt8) throws -> PlistValue {
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
            let (n, p) = try count(marker, at: start, index)
            try checkFits(n, 2, at: p, index, start)
            return .string(try utf16String(at: p, units: n, index, start))
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

    func asciiString(_ bytes: UnsafeRawBufferPointer, _ index: Int, _ start: Int) throws -> String {
        var high: UInt8 = 0
        for b in bytes { high |= b }
        if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        if strict {
            throw error(.invalidString, "ASCII string holds a byte above 0x7F", index, start)
        }
        // Lenient: UTF-8 when valid, else ISO Latin-1.
        if isValidUTF8(bytes) { return String(decoding: bytes, as: UTF8.self) }
        var s = String()
        s.unicodeScalars.reserveCapacity(bytes.count)
        for b in bytes { s.unicodeScalars.append(Unicode.Scalar(b)) }
        return s
    }

    func utf16String(at p: Int, units n: Int, _ index: Int, _ start: Int) throws -> String {
        var units = [UInt16](repeating: 0, count: n)
        var q = p
        for i in 0..<n {
            units[i] = UInt16(raw[q]) << 8 | UInt16(raw[q + 1])
            q += 2
        }
        if strict {
            let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) { _ in }
            if failed { throw error(.invalidString, "UTF-16 string holds a lone surrogate", index, start) }
        }
        return String(decoding: units, as: UTF16.self)
    }
}

func isValidUTF8(_ bytes: some Sequence<UInt8>) -> Bool {
    !transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
}

func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
}

/// `2^62` for exact powers of two, the number otherwise.
func describeCount(_ v: UInt64) -> String {
    if v > 1 && v & (v - 1) == 0 { return "2^\(v.trailingZeroBitCount)" }
    return String(v)
}
