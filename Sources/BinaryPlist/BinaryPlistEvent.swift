extension BinaryPlistDocument {
    /// One step of an ``EventReader``: a value read whole, or the start or end of a collection.
    ///
    /// A reader reports a document depth first, in file order: an array as `beginArray`, its elements, `end`; a
    /// dictionary as `beginDictionary`, then each entry's key and value, `end`. Strings and data are borrowed
    /// from the document's bytes, so an event is valid only inside the ``BinaryPlistDocument/withEvents(_:)``
    /// that produced it: copy what must outlive it (``StringView/string``, `Array(bytes)`).
    ///
    /// ```swift
    /// let document = try BinaryPlistDocument(bytes)
    /// let strings = try document.withEvents { reader in
    ///     var n = 0
    ///     while let event = try reader.next() { if case .string = event { n += 1 } }
    ///     return n
    /// }
    /// ```
    ///
    /// Mirrors the events of a streaming plist reader (rust-plist's `stream::Event`); the values are those
    /// ``PlistValue`` holds, and those `__CFBinaryPlistCreateObjectFiltered` creates.
    ///
    /// Frozen: as ``PlistValue``, its cases are the object types of the `bplist00` format, and the start and
    /// end of a collection; a `switch` over them needs no `default`.
    public enum Event {
        /// The start of an array of `count` elements.
        case beginArray(count: Int)
        /// The start of a set of `count` members.
        case beginSet(count: Int)
        /// The start of a dictionary of `count` entries, each reported as its key, then its value.
        case beginDictionary(count: Int)
        /// The end of the innermost collection begun.
        case end
        /// `null` (marker `0x00`).
        case null
        /// A boolean.
        case bool(Bool)
        /// An integer, of up to 128 bits.
        case integer(PlistInteger)
        /// A real; a 4-byte one is widened to `Double`, as ``PlistValue/real(_:)`` holds it.
        case real(Double)
        /// A date.
        case date(PlistDate)
        /// A keyed archive's object reference.
        case uid(PlistUID)
        /// A string, borrowed.
        case string(StringView)
        /// Data, borrowed: the bytes as stored.
        case data(UnsafeRawBufferPointer)
    }

    /// A string object of a document, borrowed from its bytes and checked: ``PropertyList/decode(_:limits:)``
    /// would read the same ``string`` from it.
    ///
    /// ```swift
    /// if case .string(let s) = event, s.isEqual(to: "name") { print(s.string) }
    /// ```
    ///
    /// ``string`` is the `String` that ``PlistValue/string(_:)`` would hold for it under the same
    /// ``PlistLimits/stringPolicy``; ``bytes`` are what the file stores, in ``encoding``.
    public struct StringView {
        /// How a string's bytes are stored.
        ///
        /// Frozen: the format has two string markers, ASCII (`0x5n`) and UTF-16 (`0x6n`), and an ASCII-marked
        /// string with other bytes is read one of two ways, as Apple's readers read it.
        public enum Encoding: Sendable, Hashable {
            /// Bytes below 0x80 (marker `0x5n`): they are also the string's UTF-8.
            case ascii
            /// An ASCII-marked string whose bytes are valid UTF-8 above 0x7F, read as UTF-8 (lenient policy).
            case utf8
            /// An ASCII-marked string whose bytes are not valid UTF-8, read as ISO Latin-1 (lenient policy).
            case latin1
            /// UTF-16 code units, big-endian (marker `0x6n`); well formed under the strict policy.
            case utf16BigEndian
        }

        /// The string's bytes as stored: two per code unit for ``Encoding/utf16BigEndian``.
        public let bytes: UnsafeRawBufferPointer
        /// How ``bytes`` encode the string.
        public let encoding: Encoding

        /// A view of `bytes` stored in `encoding`.
        @inlinable package init(bytes: UnsafeRawBufferPointer, encoding: Encoding) {
            self.bytes = bytes
            self.encoding = encoding
        }

        /// The string, copied out of the document.
        public var string: String {
            switch encoding {
            case .ascii, .utf8: String(decoding: bytes, as: UTF8.self)
            case .latin1: latin1String(bytes)
            case .utf16BigEndian: utf16BigEndianString(bytes)
            }
        }

        /// Whether the string is `other`; for ASCII and UTF-8 strings, without copying it out.
        public func isEqual(to other: String) -> Bool {
            switch encoding {
            case .ascii, .utf8:
                var other = other
                return other.withUTF8 { $0.elementsEqual(bytes) }
            case .latin1, .utf16BigEndian:
                return string == other
            }
        }
    }
}

/// Whether every byte is below 0x80: eight at a time, the last eight overlapping the ones before; fewer than
/// eight in two overlapping 4-byte loads, or the first, middle and last byte (no loop for a short key).
@inlinable @inline(__always)
func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let n = bytes.count
    var high: UInt64 = 0
    if n >= 8 {
        var i = 0
        while i + 8 < n {
            high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        high |= bytes.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
    } else if n >= 4 {
        high = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self) | bytes.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
    } else if n > 0 {
        high = UInt64(bytes[0] | bytes[n >> 1] | bytes[n - 1])
    }
    return high & 0x8080_8080_8080_8080 == 0
}

/// `bytes` read as ISO Latin-1: each byte the Unicode scalar of its value.
func latin1String(_ bytes: UnsafeRawBufferPointer) -> String {
    var s = String()
    s.unicodeScalars.reserveCapacity(bytes.count)
    for b in bytes { s.unicodeScalars.append(Unicode.Scalar(b)) }
    return s
}

/// `bytes` read as big-endian UTF-16 code units (an odd last byte is ignored); a lone surrogate becomes U+FFFD.
func utf16BigEndianString(_ bytes: UnsafeRawBufferPointer) -> String {
    let n = bytes.count / 2
    var units = [UInt16](repeating: 0, count: n)
    for i in 0..<n { units[i] = UInt16(bytes[2 * i]) << 8 | UInt16(bytes[2 * i + 1]) }
    return String(decoding: units, as: UTF16.self)
}

/// Whether big-endian UTF-16 `bytes` hold no lone surrogate: every high surrogate (D800-DBFF) is followed by a
/// low one (DC00-DFFF), and no low one stands alone.
func isWellFormedUTF16BigEndian(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let n = bytes.count / 2
    var i = 0
    while i < n {
        let unit = UInt16(bytes[2 * i]) << 8 | UInt16(bytes[2 * i + 1])
        i += 1
        switch unit {
        case 0xD800...0xDBFF:
            guard i < n else { return false }
            let next = UInt16(bytes[2 * i]) << 8 | UInt16(bytes[2 * i + 1])
            guard (0xDC00...0xDFFF).contains(next) else { return false }
            i += 1
        case 0xDC00...0xDFFF:
            return false
        default:
            continue
        }
    }
    return true
}
