import BinaryPlist
/// `NSValue` with `NS.special` 1 point, 2 size, 3 rect, 4 range and 12 edge insets, as `ArchivedValue`.
extension KeyedUnarchiver {
    /// An `NSValue` object: geometry and ranges by `NS.special`; any other kind kept whole as an `ArchivedObject`.
    func decodeNSValue(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        func number(_ key: String) throws -> Double {
            guard let v = try rawField(key) else { throw invalid("NSValue without \(key)") }
            switch try anyValue(v, key: key) {
            case let d as Double: return d
            case let i as Int: return Double(i)
            default: throw invalid("\(key) is not a number")
            }
        }
        func geometry(_ key: String, count: Int) throws -> [Double] {
            guard let v = try rawField(key), let s = try plainValue(v, key: key) as? String else {
                throw invalid("NSValue without a \(key) string")
            }
            let n = ArchivedValue.numbers(in: s)
            guard n.count == count else { throw invalid("\(key) \"\(s)\" does not hold \(count) numbers") }
            return n
        }
        let special: Int?
        if let v = try rawField("NS.special") {
            guard case .integer(let i) = v, let s = i.intValue else { throw invalid("NS.special is not an integer") }
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
                throw invalid("NSRange location/length are not integers")
            }
            return ArchivedValue.range(location: l, length: n)
        case 12:
            return ArchivedValue.edgeInsets(top: try number("NS.edgeval.top"), left: try number("NS.edgeval.left"),
                                            bottom: try number("NS.edgeval.bottom"), right: try number("NS.edgeval.right"))
        default:
            // An NSValue of an Objective-C type encoding: kept whole.
            let object = ArchivedObject(classChain: state.pointee.frame.classChain)
            try decodeAllFields(into: object)
            return object
        }
    }
}

extension KeyedArchiver {
    /// An `NSValue` object of a geometry or range kind.
    func valueObject(_ v: ArchivedValue) -> Int32 {
        withObjectFrame(classUID: { classObject(.value) }) {
            let f = ArchivedValue.format
            switch v {
            case .point(let x, let y):
                addField(keyNode("NS.pointval"), state.pointee.builder.uid(Int(stringObject("{\(f(x)), \(f(y))}"))))
            case .size(let w, let h):
                addField(keyNode("NS.sizeval"), state.pointee.builder.uid(Int(stringObject("{\(f(w)), \(f(h))}"))))
            case .rect(let x, let y, let w, let h):
                addField(keyNode("NS.rectval"),
                         state.pointee.builder.uid(Int(stringObject("{{\(f(x)), \(f(y))}, {\(f(w)), \(f(h))}}"))))
            case .range(let location, let length):
                addField(keyNode("NS.rangeval.length"), state.pointee.builder.uid(Int(integerObject(Int64(length)))))
                addField(keyNode("NS.rangeval.location"), state.pointee.builder.uid(Int(integerObject(Int64(location)))))
            case .edgeInsets(let top, let left, let bottom, let right):
                addField(keyNode("NS.edgeval.top"), state.pointee.builder.real(top))
                addField(keyNode("NS.edgeval.left"), state.pointee.builder.real(left))
                addField(keyNode("NS.edgeval.bottom"), state.pointee.builder.real(bottom))
                addField(keyNode("NS.edgeval.right"), state.pointee.builder.real(right))
            }
            addField(keyNode("NS.special"), state.pointee.builder.integer(Int64(v.special)))
        }
    }
}
