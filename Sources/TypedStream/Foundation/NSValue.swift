import ArchiveModel

/// `NSValue` (version 0): a `*` group with the value's type encoding, then a group of that type. Ranges,
/// points, sizes, rects and edge insets (the `NSRange`, `NSPoint`/`CGPoint`, `NSSize`/`CGSize`,
/// `NSRect`/`CGRect` and `NSEdgeInsets` structs, of floats or doubles) decode as `ArchivedValue`, as the
/// keyed reader gives them; any other type is kept whole as an `ArchivedObject`.
extension TypedStreamUnarchiver {
    func decodeNSValue(_ info: ClassInfo, index: Int) throws -> Any {
        let (text, type) = try decodeValueType()
        guard let kind = GeometryKind(type) else {
            return try decodeGeneric(info, index: index, prefixTypes: ["*"], prefixFields: [("$0", .value(.string(text)))])
        }
        let start = scanner.position
        let types = try expectGroup([type])
        let fields = try readValue(types[0], as: type) as? [Any?] ?? []
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
        try endObject()
        switch kind {
        case .range:
            guard flat.count == 2, let l = Int(exactly: flat[0]), let n = Int(exactly: flat[1]) else {
                throw error(.invalidValue, "an NSRange that is not two integers", at: start)
            }
            return ArchivedValue.range(location: l, length: n)
        case .point: return ArchivedValue.point(x: flat[0], y: flat[1])
        case .size: return ArchivedValue.size(width: flat[0], height: flat[1])
        case .rect: return ArchivedValue.rect(x: flat[0], y: flat[1], width: flat[2], height: flat[3])
        case .edgeInsets: return ArchivedValue.edgeInsets(top: flat[0], left: flat[1], bottom: flat[2], right: flat[3])
        }
    }
}

/// The struct types an `NSValue` holds that decode as `ArchivedValue`, by struct name and shape.
enum GeometryKind {
    case range, point, size, rect, edgeInsets

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
            guard fields.count == 2, GeometryKind(fields[0]) == .point, GeometryKind(fields[1]) == .size else { return nil }
            self = .rect
        default: return nil
        }
    }
}

extension TypedStreamArchiver {
    /// An `NSValue` of a range or geometry, in the 64-bit encodings Apple writes (`{_NSRange=QQ}`,
    /// `{CGPoint=dd}`, `{CGSize=dd}`, `{CGRect={CGPoint=dd}{CGSize=dd}}`, `{NSEdgeInsets=dddd}`).
    func writeNSValue(_ value: ArchivedValue) {
        let encoding: String
        var reals: [Double] = []
        switch value {
        case .range(let location, let length):
            writeNewObject(.value) {
                writeGroupHeader("*")
                writeCString("{_NSRange=QQ}")
                writeGroupHeader("{_NSRange=QQ}")
                writer.unsigned(UInt64(bitPattern: Int64(location)))
                writer.unsigned(UInt64(bitPattern: Int64(length)))
            }
            return
        case .point(let x, let y): encoding = "{CGPoint=dd}"; reals = [x, y]
        case .size(let w, let h): encoding = "{CGSize=dd}"; reals = [w, h]
        case .rect(let x, let y, let w, let h): encoding = "{CGRect={CGPoint=dd}{CGSize=dd}}"; reals = [x, y, w, h]
        case .edgeInsets(let t, let l, let b, let r): encoding = "{NSEdgeInsets=dddd}"; reals = [t, l, b, r]
        }
        writeNewObject(.value) {
            writeGroupHeader("*")
            writeCString(encoding)
            writeGroupHeader(encoding)
            for r in reals { writer.double(r) }
        }
    }
}
