/// The low-level reader of a typedstream: head bytes, integers of every width (`0x81` int16, `0x82` int32,
/// `0x87` int64 or the byte itself), reals (`0x83`), strings with a length prefix, and the shared-string
/// table (`0x84` new, else a reference number). Every read checks the bytes left first; nothing traps.
struct TypedStreamScanner {
    let bytes: [UInt8]
    var position: Int
    let bigEndian: Bool
    /// The shared strings (type encodings, class names, selectors, C-string texts), in the order read.
    var sharedStrings: [[UInt8]] = []

    init(bytes: [UInt8], position: Int, bigEndian: Bool) {
        self.bytes = bytes
        self.position = position
        self.bigEndian = bigEndian
    }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position >= bytes.count }

    func error(_ code: TypedStreamError.Code, _ reason: String, at offset: Int? = nil) -> TypedStreamError {
        TypedStreamError(code, reason, offset: offset ?? position)
    }

    /// The header: streamer version, signature (byte order), system version.
    static func readHeader(_ bytes: [UInt8]) throws(TypedStreamError) -> (TypedStreamHeader, TypedStreamScanner) {
        guard bytes.count >= 2 else {
            throw TypedStreamError(.invalidHeader, "\(bytes.count) bytes are too few for a typedstream header", offset: 0)
        }
        let version = Int(bytes[0])
        guard bytes[1] == 11, bytes.count >= 13 else {
            throw TypedStreamError(.invalidHeader, "no 11-byte signature after the streamer version", offset: 1)
        }
        let signature = bytes[2..<13]
        let bigEndian: Bool
        if signature.elementsEqual(TypedStreamHeader.littleEndianSignature) {
            bigEndian = false
        } else if signature.elementsEqual(TypedStreamHeader.bigEndianSignature) {
            bigEndian = true
        } else {
            throw TypedStreamError(.invalidHeader, "the signature is neither \"streamtyped\" nor \"typedstream\"", offset: 2)
        }
        guard version == 4 else {
            throw TypedStreamError(.unsupportedVersion, "streamer version \(version) is not read (only 4)", offset: 0)
        }
        var scanner = TypedStreamScanner(bytes: bytes, position: 13, bigEndian: bigEndian)
        let system = try scanner.readUnsigned()
        guard let systemVersion = Int(exactly: system) else {
            throw TypedStreamError(.outOfRange, "system version \(system) is out of range", offset: 13)
        }
        return (TypedStreamHeader(streamerVersion: version, byteOrder: bigEndian ? .bigEndian : .littleEndian,
                                  systemVersion: systemVersion), scanner)
    }

    /// The next byte, consumed.
    mutating func readByte() throws(TypedStreamError) -> UInt8 {
        guard position < bytes.count else { throw error(.truncated, "the stream ends where a value should start") }
        let b = bytes[position]
        position += 1
        return b
    }

    /// The next byte, not consumed.
    func peekByte() throws(TypedStreamError) -> UInt8 {
        guard position < bytes.count else { throw error(.truncated, "the stream ends where a value should start") }
        return bytes[position]
    }

    /// `count` bytes as one unsigned number in the stream's byte order.
    private mutating func readFixed(_ count: Int) throws(TypedStreamError) -> UInt64 {
        guard remaining >= count else {
            throw error(.truncated, "a \(count)-byte value runs past the \(remaining) bytes left")
        }
        var v: UInt64 = 0
        if bigEndian {
            for i in 0..<count { v = v << 8 | UInt64(bytes[position + i]) }
        } else {
            for i in (0..<count).reversed() { v = v << 8 | UInt64(bytes[position + i]) }
        }
        position += count
        return v
    }

    /// A signed integer whose head byte was read: the byte itself, or 2, 4 or 8 bytes after a width tag.
    mutating func signed(head: UInt8, at start: Int) throws(TypedStreamError) -> Int64 {
        switch head {
        case TypedStreamTag.int16: return Int64(Int16(truncatingIfNeeded: try readFixed(2)))
        case TypedStreamTag.int32: return Int64(Int32(truncatingIfNeeded: try readFixed(4)))
        case TypedStreamTag.int64: return Int64(bitPattern: try readFixed(8))
        default:
            guard !TypedStreamTag.isTag(head) else { throw badTag(head, "an integer", at: start) }
            return Int64(Int8(bitPattern: head))
        }
    }

    /// An unsigned integer whose head byte was read.
    mutating func unsigned(head: UInt8, at start: Int) throws(TypedStreamError) -> UInt64 {
        switch head {
        case TypedStreamTag.int16: return try readFixed(2)
        case TypedStreamTag.int32: return try readFixed(4)
        case TypedStreamTag.int64: return try readFixed(8)
        default:
            guard !TypedStreamTag.isTag(head) else { throw badTag(head, "an integer", at: start) }
            return UInt64(head)
        }
    }

    mutating func readSigned() throws(TypedStreamError) -> Int64 {
        let start = position
        return try signed(head: try readByte(), at: start)
    }

    mutating func readUnsigned() throws(TypedStreamError) -> UInt64 {
        let start = position
        return try unsigned(head: try readByte(), at: start)
    }

    /// A float: `0x83` and 4 bytes, or an integer.
    mutating func readFloat() throws(TypedStreamError) -> Float {
        let start = position
        let head = try readByte()
        if head == TypedStreamTag.real { return Float(bitPattern: UInt32(truncatingIfNeeded: try readFixed(4))) }
        return Float(try signed(head: head, at: start))
    }

    /// A double: `0x83` and 8 bytes, or an integer.
    mutating func readDouble() throws(TypedStreamError) -> Double {
        let start = position
        let head = try readByte()
        if head == TypedStreamTag.real { return Double(bitPattern: try readFixed(8)) }
        return Double(try signed(head: head, at: start))
    }

    /// `count` raw bytes.
    mutating func readBytes(_ count: Int) throws(TypedStreamError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else {
            throw error(.truncated, "\(count) bytes run past the \(remaining) bytes left")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// A length (unsigned integer) and that many bytes; the length is checked against the bytes left.
    mutating func unsharedString(head: UInt8, at start: Int) throws(TypedStreamError) -> ArraySlice<UInt8> {
        let length = try unsigned(head: head, at: start)
        guard length <= UInt64(remaining) else {
            throw error(.truncated, "a \(length)-byte string runs past the \(remaining) bytes left", at: start)
        }
        return try readBytes(Int(length))
    }

    /// A shared string: nil, a new one (added to the table) or a reference to one read before. Returns its
    /// index in `sharedStrings`, or `nil` for nil.
    mutating func sharedString() throws(TypedStreamError) -> Int? {
        let start = position
        let head = try readByte()
        switch head {
        case TypedStreamTag.nil: return nil
        case TypedStreamTag.new:
            let innerStart = position
            let inner = try readByte()
            guard inner != TypedStreamTag.nil else { throw badTag(inner, "the text of a new shared string", at: innerStart) }
            let text = try unsharedString(head: inner, at: innerStart)
            sharedStrings.append(Array(text))
            return sharedStrings.count - 1
        default:
            let n = try signed(head: head, at: start)
            let index = n - TypedStreamTag.firstReference
            guard index >= 0, index < Int64(sharedStrings.count) else {
                throw error(.invalidReference, "shared string \(index) is not among the \(sharedStrings.count) read", at: start)
            }
            return Int(index)
        }
    }

    func badTag(_ byte: UInt8, _ what: String, at offset: Int) -> TypedStreamError {
        let hex = String(byte, radix: 16)
        return error(.invalidTag, "byte 0x\(hex) cannot start \(what)", at: offset)
    }
}
