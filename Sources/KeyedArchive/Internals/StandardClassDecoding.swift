import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// How the unarchiver reads the standard Foundation classes into natural Swift values.
extension KeyedUnarchiver {
    /// Decodes the current frame (an object of a standard class).
    func decodeStandard(_ standard: StandardClass, uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        switch standard {
        case .string, .mutableString:
            guard let v = try rawField("NS.string") else { throw invalid("NSString without NS.string") }
            guard let s = try anyValue(v, key: "NS.string") as? String else { throw invalid("NS.string is not a string") }
            return s
        case .data, .mutableData:
            guard let v = try rawField("NS.data") else { throw invalid("NSData without NS.data") }
            guard let d = try anyValue(v, key: "NS.data") as? Data else { throw invalid("NS.data is not data") }
            return d
        case .number:
            throw invalid("NSNumber stored as a dictionary is not supported")
        case .array, .mutableArray:
            return try elements("NS.objects")
        case .set, .mutableSet:
            return Set(try hashableElements("NS.objects"))
        case .orderedSet, .mutableOrderedSet:
            var items: [AnyHashable] = []
            var i = 0
            while let v = try rawField("NS.object.\(i)") {
                items.append(try hashable(try anyValue(v, key: "NS.object.\(i)"), key: "NS.object.\(i)"))
                i += 1
            }
            return ArchivedOrderedSet(items)
        case .dictionary, .mutableDictionary:
            let keys = try elements("NS.keys")
            let values = try elements("NS.objects")
            guard keys.count == values.count else {
                throw invalid("NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
            }
            var result: [AnyHashable: Any] = [:]
            result.reserveCapacity(keys.count)
            for (k, v) in zip(keys, values) { result[try hashable(k, key: "NS.keys")] = v }
            return result
        case .date:
            guard let v = try rawField("NS.time") else { throw invalid("NSDate without NS.time") }
            let seconds: Double
            switch v {
            case .real(let d): seconds = d
            case .integer(let i): seconds = Double(i.int64Value ?? 0)
            default: throw invalid("NS.time is \(describe(v))")
            }
            guard seconds.isFinite else { throw invalid("NS.time is \(seconds), not a finite number of seconds") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .uuid:
            guard case .other(.data(let b))? = try rawField("NS.uuidbytes") else {
                throw invalid("NSUUID without NS.uuidbytes data")
            }
            guard b.count == 16 else { throw invalid("NS.uuidbytes holds \(b.count) bytes, not 16") }
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                               b[13], b[14], b[15]))
        case .url:
            var base: URL?
            if let v = try rawField("NS.base") {
                let b = try anyValue(v, key: "NS.base")
                if b != nil {
                    guard let u = b as? URL else { throw invalid("NS.base is not a URL") }
                    base = u
                }
            }
            guard let r = try rawField("NS.relative"), let relative = try anyValue(r, key: "NS.relative") as? String
            else { throw invalid("NSURL without an NS.relative string") }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw invalid("NS.relative \"\(relative)\" is not a URL")
            }
            return url
        case .null:
            return ArchivedNull()
        case .value:
            return try decodeValue(uid: uid)
        }
    }

    private func decodeValue(uid: Int) throws -> Any {
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
            guard let v = try rawField(key), let s = try anyValue(v, key: key) as? String else {
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

    /// The raw value of a raw key of the current frame.
    func rawField(_ rawKey: String) throws -> ArchiveObjectReader.Value? {
        guard let i = try position(ofRawKey: rawKey) else { return nil }
        return try reader.value(reader.valueReference(state.pointee.frame.fields, i))
    }

    /// A field value as a natural Swift value (`nil` for `$null`).
    func anyValue(_ v: ArchiveObjectReader.Value, key: String) throws -> Any? {
        try typed(v, Any.self, key: key)
    }

    /// The decoded elements of an inline array of references.
    func elements(_ rawKey: String) throws -> [Any] {
        guard let refs = try elementArray(rawKey) else { return [] }
        var result: [Any] = []
        result.reserveCapacity(refs.count)
        for i in 0..<refs.count {
            let v = try reader.value(reader.elementReference(refs, i))
            result.append(try anyValue(v, key: "\(rawKey).\(i)") ?? ArchivedNull())
        }
        return result
    }

    func hashableElements(_ rawKey: String) throws -> [AnyHashable] {
        try elements(rawKey).map { try hashable($0, key: rawKey) }
    }

    func hashable(_ value: Any?, key: String) throws -> AnyHashable {
        guard let value else { return AnyHashable(ArchivedNull()) }
        guard let h = value as? AnyHashable else {
            throw error(.invalidValue, "a \(Swift.type(of: value)) cannot be a dictionary key or set member", key: key)
        }
        return h
    }
}
