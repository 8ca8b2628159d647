import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Values by type: what one type encoding reads, as the Swift value ``TypedStreamUnarchiver/decodeValue(ofObjCType:)``
/// documents, converted to the width asked for.
extension TypedStreamUnarchiver {
    /// A value of the stream's type `type`, given as the type `requested` (the same but for integer width).
    package func readValue(_ type: ObjCType, as requested: ObjCType) throws -> Any? {
        switch type {
        case .char, .unsignedChar, .short, .unsignedShort, .int, .unsignedInt, .long, .unsignedLong, .longLong,
             .unsignedLongLong:
            let start = scanner.position
            return try convertInteger(try readInteger(type), to: requested, at: start)
        case .float: return try scanner.readFloat()
        case .double: return try scanner.readDouble()
        case .bool: return try readBool()
        case .void, .ignored: return nil
        case .cString: return try readCString()
        case .object: return try readObject()
        case .objectClass:
            guard let c = try readClass() else { return nil }
            return classes[c].name
        case .selector, .atom:
            guard let index = try scanner.sharedString() else { return nil }
            return Self.text(scanner.sharedStrings[index])
        case .bytes:
            let start = scanner.position
            return Data(try scanner.unsharedString(head: try scanner.readByte(), at: start))
        case .array(let count, let element):
            if element == .char || element == .unsignedChar { return Data(try readByteArray(count)) }
            try checkCount(count, of: element)
            guard case .array(_, let requestedElement) = requested else { return nil }
            var list: [Any?] = []
            list.reserveCapacity(count)
            for _ in 0..<count {
                try countObject(at: scanner.position)
                list.append(try readValue(element, as: requestedElement))
            }
            return list
        case .structure(_, let fields):
            guard case .structure(_, let requestedFields) = requested else { return nil }
            var list: [Any?] = []
            list.reserveCapacity(fields.count)
            for (f, r) in zip(fields, requestedFields) { list.append(try readValue(f, as: r)) }
            return list
        }
    }

    /// An integer of type `type`: `c`/`C` one raw byte, the others a tagged integer that must fit the type
    /// (an `I` cannot hold an 8-byte value).
    package func readInteger(_ type: ObjCType) throws -> PlistInteger {
        switch type {
        case .char: return PlistInteger(Int64(Int8(bitPattern: try scanner.readByte())))
        case .unsignedChar: return PlistInteger(Int64(try scanner.readByte()))
        default:
            let start = scanner.position
            let value = type.isSigned ? PlistInteger(try scanner.readSigned()) : PlistInteger(try scanner.readUnsigned())
            guard type.fits(value) else { throw error(.outOfRange, "\(value) does not fit \(type.encoding)", at: start) }
            return value
        }
    }

    private func readBool() throws -> Bool {
        let start = scanner.position
        let b = try scanner.readByte()
        guard b <= 1 else { throw error(.invalidValue, "a B value is \(b), not 0 or 1", at: start) }
        return b == 1
    }

    /// `count` raw bytes of a `[Nc]` array.
    func readByteArray(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count <= scanner.remaining else {
            throw error(.truncated, "a \(count)-byte array runs past the \(scanner.remaining) bytes left")
        }
        return try scanner.readBytes(count)
    }

    /// Refuses an array count the bytes left cannot hold, or (for elements that take no bytes) one past the
    /// element limit.
    func checkCount(_ count: Int, of element: ObjCType) throws {
        let size = element.minimumSize ?? Int.max
        if size == 0 {
            guard count <= maxObjects - decodedCount else {
                throw error(.elementLimitExceeded, "an array of \(count) elements that take no bytes passes the element limit")
            }
            return
        }
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, total <= scanner.remaining else {
            throw error(.elementLimitExceeded, "an array of \(count) elements of \(element.encoding) cannot fit the \(scanner.remaining) bytes left")
        }
    }

    /// `value` as the Swift integer of `requested`, range-checked.
    func convertInteger(_ value: PlistInteger, to requested: ObjCType, at start: Int) throws -> Any {
        func fit<T: FixedWidthInteger>(_: T.Type) throws -> T {
            if let v = value.int64Value, let t = T(exactly: v) { return t }
            if let u = value.uint64Value, let t = T(exactly: u) { return t }
            throw error(.outOfRange, "\(value) does not fit \(requested.encoding)", at: start)
        }
        switch requested {
        case .char: return try fit(Int8.self)
        case .unsignedChar: return try fit(UInt8.self)
        case .short: return try fit(Int16.self)
        case .unsignedShort: return try fit(UInt16.self)
        case .int, .long: return try fit(Int32.self)
        case .unsignedInt, .unsignedLong: return try fit(UInt32.self)
        case .longLong: return try fit(Int64.self)
        default: return try fit(UInt64.self)
        }
    }

    // MARK: - One-value groups for the Foundation classes

    /// The next group, one integer of any width, as an `Int`, and the offset of the integer.
    func decodeInteger(_ asked: ObjCType) throws -> (value: Int, offset: Int) {
        let types = try expectGroup([asked])
        let start = scanner.position
        let v = try readInteger(types[0])
        guard let i = v.intValue else { throw error(.outOfRange, "\(v) does not fit an Int", at: start) }
        return (i, start)
    }

    /// The next group, one count: an integer between 0 and the bytes left (each element takes one at least).
    func decodeCount(_ asked: ObjCType, of what: String) throws -> Int {
        let (n, start) = try decodeInteger(asked)
        guard n >= 0 else { throw error(.invalidValue, "\(what) has a count of \(n)", at: start) }
        guard n <= scanner.remaining, n <= maxObjects - decodedCount else {
            throw error(.elementLimitExceeded, "\(what) of \(n) elements cannot fit the \(scanner.remaining) bytes left", at: start)
        }
        return n
    }

    /// The next group's bytes of an `NSData`: an `i` length and a `[Nc]` array of that length.
    func readDataObject() throws -> ArraySlice<UInt8> {
        let length = try decodeCount(.int, of: "data")
        let start = scanner.position
        let types = try expectGroup([.array(count: length, element: .char)])
        guard case .array(let count, let element) = types[0], count == length,
              element == .char || element == .unsignedChar else {
            throw error(.typeMismatch, "data of \(length) bytes is followed by \(types[0].encoding)", at: start)
        }
        return try readByteArray(count)
    }
}
