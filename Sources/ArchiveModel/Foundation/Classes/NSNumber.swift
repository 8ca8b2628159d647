import BinaryPlist

/// `NSNumber`: integers, reals and booleans, as `Int` (`UInt64` past `Int.max`), `Double` and `Bool`.
///
/// In keyed archives a number is a bare plist integer, real or boolean, one object per distinct value: the
/// keyed archiver's own integer, real and boolean objects, on its hot path (an `NSNumber` stored as an object,
/// which Apple never writes, is refused). In typedstreams (version 0, a subclass of `NSValue`): a `*` group
/// with the number's type encoding, then a group of that type. Integers decode as `Int` (`UInt64` past
/// `Int.max`), `f` and `d` as `Double`, `B` as `Bool`. `c` is an integer: Apple writes `c` for a `BOOL` and for
/// a `char` alike, and `NSUnarchiver` gives a char-typed number for both, which `NSKeyedArchiver` writes as an
/// integer. Written: `q` (`Q` past `Int64.max`), `d`, `f`, and a `Bool` as `c`, as Apple writes a `BOOL`.
///
/// Mirrors `NSNumber` (`__NSCFNumber`, `__NSCFBoolean`) and its `encode(with:)` / `init(coder:)`.
package enum NSNumberClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.number, "NSNumber", superclasses: ["NSValue", "NSObject"],
                            privateNames: ["__NSCFNumber", "__NSCFBoolean"], typedStreamVersions: [0, 0, 0],
                            valueType: Int.self, kind: nil),
    ]

    /// An `NSNumber` stored as an object (a dictionary of fields), which Apple never writes: refused.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        throw r.invalidValue("NSNumber stored as a dictionary is not supported")
    }

    /// The `*` group of the type encoding, an integer, real or boolean type, and a group of that type.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let start = r.streamOffset
        let (_, type) = try r.decodeTypeEncoding()
        guard type.isInteger || type == .float || type == .double || type == .bool else {
            throw r.invalidValue("an NSNumber of type \(type.encoding)", at: start)
        }
        let stored = try r.expectGroup([type])[0]
        switch stored {
        case .float: return Double(try r.readValue(.float, as: .float) as? Float ?? 0)
        case .double: return try r.readDouble()
        case .bool: return try r.readValue(.bool, as: .bool) as? Bool ?? false
        case let t where t.isInteger:
            let v = try r.readInteger(t)
            if let i = v.intValue { return i }
            if let u = v.uint64Value { return u }
            throw r.invalidValue("NSNumber \(v) does not fit 64 bits", at: start)
        default:
            throw r.invalidValue("an NSNumber of type \(stored.encoding)", at: start)
        }
    }

    /// An integer: `q`.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: Int64, to w: W) {
        w.writeTypedObject(of: .number, encoding: "q") { w.writeRawSigned(value) }
    }

    /// An unsigned integer: `q` up to `Int64.max`, `Q` past it.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: UInt64, to w: W) {
        if value <= UInt64(Int64.max) { return encode(stream: Int64(value), to: w) }
        w.writeTypedObject(of: .number, encoding: "Q") { w.writeRawUnsigned(value) }
    }

    /// A double: `d`.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: Double, to w: W) {
        w.writeTypedObject(of: .number, encoding: "d") { w.writeRawDouble(value) }
    }

    /// A float: `f`.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: Float, to w: W) {
        w.writeTypedObject(of: .number, encoding: "f") { w.writeRawFloat(value) }
    }

    /// A `BOOL` as Apple writes it: type `c`.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: Bool, to w: W) {
        w.writeTypedObject(of: .number, encoding: "c") { w.writeRawByte(value ? 1 : 0) }
    }
}
