import BinaryPlist
import Foundation
import Testing

/// Converts between our values and the toolchain's Foundation property-list objects (what
/// `PropertyListSerialization` reads and writes), for the differential tests.
enum FoundationBridge {
    struct NotBridgeable: Error {
        var what: String
    }

    /// The Foundation property-list object for `value` (no UIDs, nulls, sets, non-string keys or integers
    /// beyond 64 bits: Foundation has no such objects).
    static func object(_ value: PlistValue) throws -> Any {
        switch value {
        case .bool(let b): return b
        case .integer(let i):
            if let s = i.int64Value { return NSNumber(value: s) }
            if let u = i.uint64Value { return NSNumber(value: u) }
            throw NotBridgeable(what: "128-bit integer")
        case .real(let d): return NSNumber(value: d)
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        case .data(let d): return Data(d)
        case .string(let s): return s
        case .array(let items): return try items.map(object)
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for e in d.entries {
                guard case .string(let k) = e.key else { throw NotBridgeable(what: "non-string key") }
                out[k] = try object(e.value)
            }
            return out
        case .null, .set, .uid: throw NotBridgeable(what: value.kindName)
        }
    }

    /// The plist value of a Foundation property-list object. Booleans, integers and reals stay apart: an
    /// `NSNumber` is a boolean only when its type is `c`, a real only when it is `d` or `f`.
    static func plistValue(_ object: Any) throws -> PlistValue {
        if type(of: object) == Bool.self, let b = object as? Bool { return .bool(b) }
        if let n = object as? NSNumber {
            switch String(cString: n.objCType) {
            case "c": return .bool(n.boolValue)
            case "d", "f": return .real(n.doubleValue)
            case "Q": return .integer(PlistInteger(n.uint64Value))
            default: return .integer(PlistInteger(n.int64Value))
            }
        }
        if let s = object as? String { return .string(s) }
        if let d = object as? Date { return .date(PlistDate(secondsSinceReferenceDate: d.timeIntervalSinceReferenceDate)) }
        if let d = object as? Data { return .data([UInt8](d)) }
        if let a = object as? [Any] { return .array(try a.map(plistValue)) }
        if let d = object as? [AnyHashable: Any] {
            var out = PlistDictionary()
            for (k, v) in d {
                guard let key = k.base as? String else { throw NotBridgeable(what: "key \(k)") }
                out.append(key: .string(key), value: try plistValue(v))
            }
            return .dictionary(out)
        }
        if String(describing: type(of: object)).contains("KeyedArchiverUID") {
            throw NotBridgeable(what: "UID")
        }
        throw NotBridgeable(what: "\(type(of: object))")
    }

    // MARK: Differential checks, one per direction, for either format

    /// `count` random values that Foundation can hold, written by us in `format`: `PropertyListSerialization`
    /// must read each back as the same value.
    static func expectFoundationReadsWhatWeWrite(
        _ format: PlistFormat, seed: UInt64, count: Int = 300, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var random = RandomPlist(seed: seed, profile: .foundation)
        for n in 0..<count {
            let value = random.value()
            let bytes = try PropertyList.encode(value, format: format)
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            #expect(try plistValue(object) == value, "value \(n): \(value)", sourceLocation: sourceLocation)
        }
    }

    /// `count` random values that Foundation can hold, written by `PropertyListSerialization` in `format`: we
    /// must read each back as the same value.
    static func expectWeReadWhatFoundationWrites(
        _ format: PlistFormat, seed: UInt64, count: Int = 300, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var random = RandomPlist(seed: seed, profile: .foundation)
        let foundationFormat: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        for n in 0..<count {
            let value = random.value()
            let data = try PropertyListSerialization.data(fromPropertyList: try object(value), format: foundationFormat, options: 0)
            let (back, readFormat) = try PropertyList.decodeWithFormat([UInt8](data))
            #expect(readFormat == format, sourceLocation: sourceLocation)
            #expect(back == value, "value \(n): wrote \(value), read \(back)", sourceLocation: sourceLocation)
        }
    }
}
