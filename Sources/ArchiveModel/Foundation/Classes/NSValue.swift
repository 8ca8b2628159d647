import BinaryPlist

/// `NSValue`, as `ArchivedValue` for points, sizes, rects, ranges and edge insets; any other kept whole as an
/// `ArchivedObject`.
///
/// In keyed archives by `NS.special`: 1 a point in `NS.pointval`, 2 a size in `NS.sizeval`, 3 a rect in
/// `NS.rectval` (each a string object, `{x, y}`, `{{x, y}, {w, h}}`), 4 a range in `NS.rangeval.location` and
/// `NS.rangeval.length` (number objects), 12 edge insets in `NS.edgeval.top`, `.left`, `.bottom` and `.right`
/// (reals). In typedstreams (version 0): a `*` group with the value's type encoding, then a group of that type;
/// the `NSRange`, `NSPoint`/`CGPoint`, `NSSize`/`CGSize`, `NSRect`/`CGRect` and `NSEdgeInsets` structs (of
/// floats or doubles, a range of integers) decode as `ArchivedValue`, and are written in the 64-bit encodings
/// Apple writes (`{_NSRange=QQ}`, `{CGPoint=dd}`, `{CGSize=dd}`, `{CGRect={CGPoint=dd}{CGSize=dd}}`,
/// `{NSEdgeInsets=dddd}`).
///
/// Mirrors `NSValue` and its `encode(with:)` / `init(coder:)`.
package enum NSValueClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.value, "NSValue", typedStreamVersions: [0, 0], valueType: ArchivedValue.self, kind: nil),
    ]

    /// An `NSValue` object: geometry and ranges by `NS.special`; any other kind kept whole as an
    /// `ArchivedObject`.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        func number(_ key: String) throws -> Double {
            guard let v = try r.rawField(key) else { throw r.invalidValue("NSValue without \(key)") }
            switch try r.anyValue(v, key: key) {
            case let d as Double: return d
            case let i as Int: return Double(i)
            default: throw r.invalidValue("\(key) is not a number")
            }
        }
        func geometry(_ key: String, count: Int) throws -> [Double] {
            guard let v = try r.rawField(key), let s = try r.plainValue(v, key: key) as? String else {
                throw r.invalidValue("NSValue without a \(key) string")
            }
            let n = ArchivedValue.numbers(in: s)
            guard n.count == count else { throw r.invalidValue("\(key) \"\(s)\" does not hold \(count) numbers") }
            return n
        }
        let special: Int?
        if let v = try r.rawField("NS.special") {
            guard case .integer(let i) = v, let s = i.intValue else { throw r.invalidValue("NS.special is not an integer") }
            special = s
        } else {
            special = nil
        }
        switch special {
        case 1:
            let n = try geometry("NS.pointval", count: 2)
            return ArchivedValue.point(x: n[0], y: n[1])
        case 2:
            let n = try geometry("NS.sizeval", count: 2)
            return ArchivedValue.size(width: n[0], height: n[1])
        case 3:
            let n = try geometry("NS.rectval", count: 4)
            return ArchivedValue.rect(x: n[0], y: n[1], width: n[2], height: n[3])
        case 4:
            let location = try number("NS.rangeval.location")
            let length = try number("NS.rangeval.length")
            guard let l = Int(exactly: location), let n = Int(exactly: length) else {
                throw r.invalidValue("NSRange location/length are not integers")
            }
            return ArchivedValue.range(location: l, length: n)
        case 12:
            return ArchivedValue.edgeInsets(top: try number("NS.edgeval.top"), left: try number("NS.edgeval.left"),
                                            bottom: try number("NS.edgeval.bottom"), right: try number("NS.edgeval.right"))
        default:
            // An NSValue of an Objective-C type encoding: kept whole.
            return try r.decodeWholeObject()
        }
    }

    /// An `NSValue` object of a geometry or range kind, with Apple's keys (`NS.special` last).
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed value: ArchivedValue, to w: W) -> Int32 {
        w.writeObject(of: .value) {
            let f = ArchivedValue.format
            switch value {
            case .point(let x, let y):
                w.setString("{\(f(x)), \(f(y))}", forRawKey: "NS.pointval")
            case .size(let width, let height):
                w.setString("{\(f(width)), \(f(height))}", forRawKey: "NS.sizeval")
            case .rect(let x, let y, let width, let height):
                w.setString("{{\(f(x)), \(f(y))}, {\(f(width)), \(f(height))}}", forRawKey: "NS.rectval")
            case .range(let location, let length):
                w.setIntegerObject(Int64(length), forRawKey: "NS.rangeval.length")
                w.setIntegerObject(Int64(location), forRawKey: "NS.rangeval.location")
            case .edgeInsets(let top, let left, let bottom, let right):
                w.setReal(top, forRawKey: "NS.edgeval.top")
                w.setReal(left, forRawKey: "NS.edgeval.left")
                w.setReal(bottom, forRawKey: "NS.edgeval.bottom")
                w.setReal(right, forRawKey: "NS.edgeval.right")
            }
            w.setInteger(Int64(value.special), forRawKey: "NS.special")
        }
    }

    /// The `*` group of the type encoding and a group of that type, through the object's end: a geometry or
    /// range as an `ArchivedValue`, any other type kept whole (its type encoding as `$0`) as an `ArchivedObject`.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let (text, type) = try r.decodeTypeEncoding()
        guard let kind = Geometry(type) else {
            return try r.decodeWholeObject(readTypes: ["*"], readFields: [("$0", .value(.string(text)))])
        }
        let start = r.streamOffset
        let stored = try r.expectGroup([type])[0]
        let fields = try r.readValue(stored, as: type) as? [Any?] ?? []
        func number(_ v: Any??) -> Double? {
            switch v {
            case let d as Double: d
            case let f as Float: Double(f)
            case let i as any BinaryInteger: Double(i)
            default: nil
            }
        }
        let flat: [Double] = fields.flatMap { f -> [Double?] in
            if let inner = f as? [Any?] { return inner.map { number($0) } }
            return [number(f)]
        }.compactMap { $0 }
        try r.endObject()
        // The kind fixes the shape of the group (the stream's types are the asked ones but for integer widths).
        guard flat.count == kind.count else {
            throw r.invalidValue("an NSValue of \(type.encoding) holds \(flat.count) numbers", at: start)
        }
        switch kind {
        case .range:
            guard let l = Int(exactly: flat[0]), let n = Int(exactly: flat[1]) else {
                throw r.invalidValue("an NSRange that is not two integers", at: start)
            }
            return ArchivedValue.range(location: l, length: n)
        case .point: return ArchivedValue.point(x: flat[0], y: flat[1])
        case .size: return ArchivedValue.size(width: flat[0], height: flat[1])
        case .rect: return ArchivedValue.rect(x: flat[0], y: flat[1], width: flat[2], height: flat[3])
        case .edgeInsets: return ArchivedValue.edgeInsets(top: flat[0], left: flat[1], bottom: flat[2], right: flat[3])
        }
    }

    /// A range or geometry, in the 64-bit encodings Apple writes.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: ArchivedValue, to w: W) {
        let encoding: String
        let reals: [Double]
        switch value {
        case .range(let location, let length):
            return w.writeTypedObject(of: .value, encoding: "{_NSRange=QQ}") {
                w.writeRawUnsigned(UInt64(bitPattern: Int64(location)))
                w.writeRawUnsigned(UInt64(bitPattern: Int64(length)))
            }
        case .point(let x, let y): encoding = "{CGPoint=dd}"; reals = [x, y]
        case .size(let width, let height): encoding = "{CGSize=dd}"; reals = [width, height]
        case .rect(let x, let y, let width, let height):
            encoding = "{CGRect={CGPoint=dd}{CGSize=dd}}"; reals = [x, y, width, height]
        case .edgeInsets(let top, let left, let bottom, let right):
            encoding = "{NSEdgeInsets=dddd}"; reals = [top, left, bottom, right]
        }
        w.writeTypedObject(of: .value, encoding: encoding) { for r in reals { w.writeRawDouble(r) } }
    }

    /// The struct types an `NSValue` holds that decode as `ArchivedValue`, by struct name and shape.
    @usableFromInline
    enum Geometry {
        case range, point, size, rect, edgeInsets

        /// How many numbers the struct holds.
        @usableFromInline
        var count: Int {
            switch self {
            case .range, .point, .size: 2
            case .rect, .edgeInsets: 4
            }
        }

        @usableFromInline
        init?(_ type: ObjCType) {
            guard case .structure(let name?, let fields) = type else { return nil }
            func reals(_ list: [ObjCType], _ n: Int) -> Bool { list.count == n && list.allSatisfy { $0 == .float || $0 == .double } }
            switch name {
            case "_NSRange", "NSRange":
                guard fields.count == 2, fields.allSatisfy(\.isInteger) else { return nil }
                self = .range
            case "_NSPoint", "CGPoint", "NSPoint":
                guard reals(fields, 2) else { return nil }
                self = .point
            case "_NSSize", "CGSize", "NSSize":
                guard reals(fields, 2) else { return nil }
                self = .size
            case "NSEdgeInsets", "UIEdgeInsets":
                guard reals(fields, 4) else { return nil }
                self = .edgeInsets
            case "_NSRect", "CGRect", "NSRect":
                guard fields.count == 2, Geometry(fields[0]) == .point, Geometry(fields[1]) == .size else { return nil }
                self = .rect
            default: return nil
            }
        }
    }
}
