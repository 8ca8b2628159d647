import BinaryPlist

/// One C type of an Objective-C type encoding, as typedstreams use them: `c C s S i I l L q Q f d B` scalars,
/// `*` C strings, `@` objects, `#` classes, `:` selectors, `{name=...}` structs, `[N...]` arrays, and the
/// typedstream-only `+` (bytes with a length), `%` (a NeXTSTEP atom) and `!` (ignored, no data).
///
/// ```swift
/// let types = try ObjCType.parseList("{_NSRange=QQ}i")
/// // [.structure(name: "_NSRange", fields: [.unsignedLongLong, .unsignedLongLong]), .int]
/// ```
///
/// Declared here, beside the Foundation classes whose files read and write the type encodings of `NSNumber`
/// and `NSValue`; `TypedStream` re-exports it and adds `parse(_:)` and `parseList(_:)`, which throw its
/// `TypedStreamError`.
///
/// Mirrors the `@encode()` strings that `-[NSCoder encodeValueOfObjCType:at:]` takes.
///
/// Frozen: its cases are the type encodings `NSArchiver` writes, a format that has not changed since
/// NeXTSTEP; a `switch` over them needs no `default`.
public indirect enum ObjCType: Hashable, Sendable {
    /// `c`: a signed char (`BOOL` on Intel Macs).
    case char
    /// `C`: an unsigned char.
    case unsignedChar
    /// `s`: a short.
    case short
    /// `S`: an unsigned short.
    case unsignedShort
    /// `i`: an int.
    case int
    /// `I`: an unsigned int.
    case unsignedInt
    /// `l`: a long, 32 bits in typedstreams.
    case long
    /// `L`: an unsigned long, 32 bits in typedstreams.
    case unsignedLong
    /// `q`: a long long.
    case longLong
    /// `Q`: an unsigned long long.
    case unsignedLongLong
    /// `f`: a float.
    case float
    /// `d`: a double.
    case double
    /// `B`: a C99 `_Bool`.
    case bool
    /// `v`: void; carries no data.
    case void
    /// `*`: a C string (`char *`), may be nil.
    case cString
    /// `@`: an object, may be nil.
    case object
    /// `#`: a class, may be nil.
    case objectClass
    /// `:`: a selector, may be nil.
    case selector
    /// `+`: bytes with a length prefix (typedstream only; NSString's characters).
    case bytes
    /// `%`: a NeXTSTEP atom, a uniqued C string (typedstream only).
    case atom
    /// `!`: a value the archiver skipped; carries no data (typedstream only).
    case ignored
    /// `[N...]`: `count` elements of one type.
    case array(count: Int, element: ObjCType)
    /// `{name=...}`: a struct's fields in order; `name` is `nil` for `{...}` without a name.
    case structure(name: String?, fields: [ObjCType])

    /// Deepest nesting of structs and arrays accepted in one encoding.
    public static let maxNesting = 64

    /// The encoding string of the type (`"{_NSRange=QQ}"`).
    public var encoding: String {
        switch self {
        case .char: "c"
        case .unsignedChar: "C"
        case .short: "s"
        case .unsignedShort: "S"
        case .int: "i"
        case .unsignedInt: "I"
        case .long: "l"
        case .unsignedLong: "L"
        case .longLong: "q"
        case .unsignedLongLong: "Q"
        case .float: "f"
        case .double: "d"
        case .bool: "B"
        case .void: "v"
        case .cString: "*"
        case .object: "@"
        case .objectClass: "#"
        case .selector: ":"
        case .bytes: "+"
        case .atom: "%"
        case .ignored: "!"
        case .array(let count, let element): "[\(count)\(element.encoding)]"
        case .structure(let name, let fields): "{" + (name.map { $0 + "=" } ?? "") + fields.map(\.encoding).joined() + "}"
        }
    }

    /// Whether the type is one of the ten integer types (`c C s S i I l L q Q`).
    @inlinable
    public var isInteger: Bool {
        switch self {
        case .char, .unsignedChar, .short, .unsignedShort, .int, .unsignedInt, .long, .unsignedLong, .longLong,
             .unsignedLongLong: true
        default: false
        }
    }

    /// Whether the integer type is signed (`c s i l q`).
    @inlinable
    package var isSigned: Bool {
        switch self {
        case .char, .short, .int, .long, .longLong: true
        default: false
        }
    }

    /// Whether `value` fits the integer type (`l` and `L` are 32 bits in typedstreams); `false` for the others.
    @inlinable
    package func fits(_ value: PlistInteger) -> Bool {
        func fit<T: FixedWidthInteger>(_: T.Type) -> Bool {
            if let v = value.int64Value { return T(exactly: v) != nil }
            return value.uint64Value.flatMap { T(exactly: $0) } != nil
        }
        switch self {
        case .char: return fit(Int8.self)
        case .unsignedChar: return fit(UInt8.self)
        case .short: return fit(Int16.self)
        case .unsignedShort: return fit(UInt16.self)
        case .int, .long: return fit(Int32.self)
        case .unsignedInt, .unsignedLong: return fit(UInt32.self)
        case .longLong: return fit(Int64.self)
        case .unsignedLongLong: return fit(UInt64.self)
        default: return false
        }
    }

    /// The least number of bytes a value of the type takes in a stream (0 for `v`, `!` and empty structs);
    /// `nil` when that overflows.
    @inlinable
    package var minimumSize: Int? {
        switch self {
        case .void, .ignored: return 0
        case .array(let count, let element):
            guard let e = element.minimumSize else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: e)
            return overflow ? nil : product
        case .structure(_, let fields):
            var total = 0
            for f in fields {
                guard let m = f.minimumSize else { return nil }
                let (sum, overflow) = total.addingReportingOverflow(m)
                if overflow { return nil }
                total = sum
            }
            return total
        default: return 1
        }
    }

    /// Whether two types are the same but for the width or signedness of integers, and struct names: what
    /// the unarchiver accepts when a reader asks for one and the stream holds the other (32-bit writers
    /// wrote `i` where 64-bit ones write `q`).
    @inlinable
    package func isCompatible(with other: ObjCType) -> Bool {
        if self == other || (isInteger && other.isInteger) { return true }
        switch (self, other) {
        case (.array(let n, let a), .array(let m, let b)): return n == m && a.isCompatible(with: b)
        case (.structure(_, let a), .structure(_, let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isCompatible(with: $1) }
        default: return false
        }
    }

    /// The types of an encoding string that may hold several (`"iI"`, `"@@"`), in order.
    ///
    /// - Throws: ``ObjCTypeError`` with ``ObjCTypeError/Code/invalidTypeEncoding`` for an empty or malformed
    ///   string, ``ObjCTypeError/Code/depthLimitExceeded`` past ``maxNesting``.
    package static func parseTypes(_ bytes: [UInt8]) throws(ObjCTypeError) -> [ObjCType] {
        var parser = Parser(bytes: bytes)
        guard !bytes.isEmpty else { throw parser.failure("an empty type encoding") }
        var list: [ObjCType] = []
        while parser.position < bytes.count { list.append(try parser.parseOne(depth: 0)) }
        return list
    }

    /// The one type of an encoding string (`"{CGPoint=dd}"`).
    package static func parseType(_ encoding: String) throws(ObjCTypeError) -> ObjCType {
        let list = try parseTypes(Array(encoding.utf8))
        guard list.count == 1 else {
            throw ObjCTypeError(.invalidTypeEncoding, "\"\(encoding)\" holds \(list.count) types, not one")
        }
        return list[0]
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func failure(_ reason: String) -> ObjCTypeError {
            ObjCTypeError(.invalidTypeEncoding,
                          "type encoding \"\(String(decoding: bytes, as: UTF8.self))\": \(reason)")
        }

        mutating func parseOne(depth: Int) throws(ObjCTypeError) -> ObjCType {
            guard depth < ObjCType.maxNesting else {
                throw ObjCTypeError(.depthLimitExceeded, "type encoding nests deeper than \(ObjCType.maxNesting)")
            }
            guard position < bytes.count else { throw failure("ends inside a type") }
            let c = bytes[position]
            position += 1
            switch c {
            case UInt8(ascii: "c"): return .char
            case UInt8(ascii: "C"): return .unsignedChar
            case UInt8(ascii: "s"): return .short
            case UInt8(ascii: "S"): return .unsignedShort
            case UInt8(ascii: "i"): return .int
            case UInt8(ascii: "I"): return .unsignedInt
            case UInt8(ascii: "l"): return .long
            case UInt8(ascii: "L"): return .unsignedLong
            case UInt8(ascii: "q"): return .longLong
            case UInt8(ascii: "Q"): return .unsignedLongLong
            case UInt8(ascii: "f"): return .float
            case UInt8(ascii: "d"): return .double
            case UInt8(ascii: "B"): return .bool
            case UInt8(ascii: "v"): return .void
            case UInt8(ascii: "*"): return .cString
            case UInt8(ascii: "@"): return .object
            case UInt8(ascii: "#"): return .objectClass
            case UInt8(ascii: ":"): return .selector
            case UInt8(ascii: "+"): return .bytes
            case UInt8(ascii: "%"): return .atom
            case UInt8(ascii: "!"): return .ignored
            case UInt8(ascii: "["):
                var count = 0
                var digits = 0
                while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                    count = count * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                    digits += 1
                    position += 1
                    guard count <= Int(Int32.max) else { throw failure("an array count above \(Int32.max)") }
                }
                guard digits > 0 else { throw failure("an array without a count") }
                let element = try parseOne(depth: depth + 1)
                guard position < bytes.count, bytes[position] == UInt8(ascii: "]") else {
                    throw failure("an array without its closing ]")
                }
                position += 1
                return .array(count: count, element: element)
            case UInt8(ascii: "{"):
                // The name runs to "=", unless a type starts first (an unnamed struct).
                var name: String?
                var scan = position
                while scan < bytes.count, bytes[scan] != UInt8(ascii: "="), bytes[scan] != UInt8(ascii: "}"),
                      bytes[scan] != UInt8(ascii: "{"), bytes[scan] != UInt8(ascii: "[") {
                    scan += 1
                }
                if scan < bytes.count, bytes[scan] == UInt8(ascii: "=") {
                    name = String(decoding: bytes[position..<scan], as: UTF8.self)
                    position = scan + 1
                }
                var fields: [ObjCType] = []
                while true {
                    guard position < bytes.count else { throw failure("a struct without its closing }") }
                    if bytes[position] == UInt8(ascii: "}") { position += 1; break }
                    fields.append(try parseOne(depth: depth + 1))
                }
                return .structure(name: name, fields: fields)
            default:
                throw failure("unknown type character \"\(Unicode.Scalar(c))\" at \(position - 1)")
            }
        }
    }
}
