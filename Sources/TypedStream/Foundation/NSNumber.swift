import BinaryPlist

/// `NSNumber` (version 0, a subclass of `NSValue`): a `*` group with the number's type encoding, then a group
/// of that type. Integers decode as `Int` (`UInt64` past `Int.max`), `f` and `d` as `Double`, `B` as `Bool`.
/// `c` is an integer: Apple writes `c` for a `BOOL` and for a `char` alike, and `NSUnarchiver` gives a
/// char-typed number for both, which `NSKeyedArchiver` writes as an integer.
extension TypedStreamUnarchiver {
    func decodeNSNumber() throws -> Any {
        let start = scanner.position
        let type = try decodeNumberType()
        let types = try expectGroup([type])
        switch types[0] {
        case .float: return Double(try scanner.readFloat())
        case .double: return try scanner.readDouble()
        case .bool: return try readValue(.bool, as: .bool) as? Bool ?? false
        case let t where t.isInteger:
            let v = try readInteger(t)
            if let i = v.intValue { return i }
            if let u = v.uint64Value { return u }
            throw error(.outOfRange, "NSNumber \(v) does not fit 64 bits", at: start)
        default:
            throw error(.invalidValue, "an NSNumber of type \(types[0].encoding)", at: start)
        }
    }

    /// The `*` group of an `NSValue` or `NSNumber`: its type encoding, parsed.
    func decodeValueType() throws -> (text: String, type: ObjCType) {
        _ = try expectGroup([.cString])
        let start = scanner.position
        guard let text = try readCString() as? String else {
            throw error(.invalidValue, "an NSValue whose type encoding is nil or not text", at: start)
        }
        do throws(TypedStreamError) {
            return (text, try ObjCType.parse(text))
        } catch {
            var e = error
            e.offset = start
            throw located(e)
        }
    }

    private func decodeNumberType() throws -> ObjCType {
        let start = scanner.position
        let (_, type) = try decodeValueType()
        guard type.isInteger || type == .float || type == .double || type == .bool else {
            throw error(.invalidValue, "an NSNumber of type \(type.encoding)", at: start)
        }
        return type
    }
}

extension TypedStreamArchiver {
    func writeNSNumber(_ type: ObjCType, _ body: () -> Void) {
        writeNewObject(.number) {
            writeGroupHeader("*")
            writeCString(type.encoding)
            writeGroupHeader(type.encoding)
            body()
        }
    }

    func writeInteger(_ v: Int64) { writeNSNumber(.longLong) { writer.signed(v) } }
    func writeUnsigned(_ v: UInt64) { writeNSNumber(.unsignedLongLong) { writer.unsigned(v) } }
    func writeDouble(_ d: Double) { writeNSNumber(.double) { writer.double(d) } }
    func writeFloat(_ f: Float) { writeNSNumber(.float) { writer.float(f) } }
    /// A `BOOL` as Apple writes it: type `c`.
    func writeBool(_ b: Bool) { writeNSNumber(.char) { writer.byte(b ? 1 : 0) } }
}
