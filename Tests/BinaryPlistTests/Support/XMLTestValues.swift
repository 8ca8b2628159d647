// Test-only helpers for the XML plist suites: seeded random plist values and the bridge to the toolchain's
// Foundation property lists (for the differential tests).
import BinaryPlist
import Foundation

/// SplitMix64: small, seeded, the same on every platform.
struct XMLTestRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// What kinds of values a generator may produce.
struct XMLTestValueProfile {
    /// Integers beyond 64 bits, UIDs, reals of any bit pattern, dates far from now.
    var full = true
    /// Only reals whose shortest form and CoreFoundation's 17-digit form are the same text, no 0.0.
    var sameRealTextAsCoreFoundation = false
    var maxDepth = 4

    static let ours = XMLTestValueProfile()
    /// Values Foundation can hold and compare after a trip through its XML reader and writer.
    static let foundation = XMLTestValueProfile(full: false)
    /// Values whose XML text Foundation writes exactly as we do.
    static let foundationBytes = XMLTestValueProfile(full: false, sameRealTextAsCoreFoundation: true)
}

enum XMLTestValues {
    static let stringPieces: [String] = [
        "", "a", "plain", "with space", "  padded  ", "tab\there", "line\nbreak", "cr\r\nlf", "&", "<", ">", "<&>",
        "a&amp;b", "]]>", "\"quoted\" 'single'", "é", "e\u{301}", "日本語", "😀", "\u{FEFF}", "CF$UID", "$objects",
        "\u{1}\u{8}", "\u{7F}", "\u{FFFD}", "ｚ", "Z", "z",
    ]

    /// Foundation's reader drops a U+FEFF that starts a string (CFStringCreateWithBytes takes it for a
    /// byte-order mark); ours keeps it. Values meant for Foundation leave it out.
    static func string(_ r: inout XMLTestRandom, _ profile: XMLTestValueProfile) -> String {
        let pieces = profile.full ? stringPieces : stringPieces.filter { $0 != "\u{FEFF}" }
        return (0..<r.below(4)).map { _ in pieces[r.below(pieces.count)] }.joined()
    }

    static func real(_ r: inout XMLTestRandom, _ profile: XMLTestValueProfile) -> Double {
        if profile.sameRealTextAsCoreFoundation {
            switch r.below(5) {
            case 0: return [.nan, .infinity, -.infinity, 1e20, -0.375][r.below(5)]
            case 1: return Double(Int64(r.below(2_000_000)) - 1_000_000) / 4 + 0.25
            default: return Double(Int64(bitPattern: r.next() >> 14) | 1)  // whole, |x| < 2^50
            }
        }
        switch r.below(6) {
        case 0:
            // swift-corelibs-foundation writes -0.0 as "0.0": only our own round trips keep the sign.
            let specials: [Double] = [.nan, .infinity, -.infinity, 0.0, .pi, 0.1, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -0.0]
            return specials[r.below(profile.full ? 10 : 9)]
        case 1: return Double(Int64(bitPattern: r.next()) >> 20)
        default:
            let d = Double(bitPattern: r.next())
            return d.isNaN ? .nan : d  // only the canonical NaN survives a text round trip
        }
    }

    static func integer(_ r: inout XMLTestRandom, _ profile: XMLTestValueProfile) -> PlistInteger {
        switch r.below(profile.full ? 5 : 4) {
        case 0: return PlistInteger(Int64(r.below(200)) - 100)
        case 1: return PlistInteger(Int64(bitPattern: r.next()))
        case 2: return PlistInteger(r.next() | 1 << 63)  // above Int64.max
        case 3: return [PlistInteger(Int64.min), PlistInteger(Int64.max), PlistInteger(UInt64.max), 0][r.below(4)]
        default: return PlistInteger(high: Int64(bitPattern: r.next()), low: r.next())
        }
    }

    static func date(_ r: inout XMLTestRandom, _ profile: XMLTestValueProfile) -> PlistDate {
        // Whole seconds: XML keeps no fraction. Foundation: years 1601...9999 only.
        let seconds: Int64 =
            profile.full
            ? Int64(bitPattern: r.next()) >> 28  // about ±1000 years... and beyond
            : Int64(r.next() % 265_000_000_000) - 12_600_000_000
        return PlistDate(secondsSinceReferenceDate: Double(seconds))
    }

    static func value(_ r: inout XMLTestRandom, _ profile: XMLTestValueProfile, depth: Int = 1) -> PlistValue {
        let scalarKinds = profile.full ? 8 : 7
        let kind = depth >= profile.maxDepth ? r.below(scalarKinds) : r.below(scalarKinds + 3)
        switch kind {
        case 0: return .bool(r.chance(50))
        case 1: return .integer(integer(&r, profile))
        case 2: return .real(real(&r, profile))
        case 3: return .date(date(&r, profile))
        case 4: return .data((0..<[0, 1, 2, 3, 45, 57, 58, 200][r.below(8)]).map { _ in UInt8(truncatingIfNeeded: r.next()) })
        case 5, 6: return .string(string(&r, profile))
        case 7 where profile.full: return .uid(PlistUID(r.chance(50) ? UInt64(r.below(1000)) : r.next()))
        case scalarKinds:
            return .array((0..<r.below(5)).map { _ in value(&r, profile, depth: depth + 1) })
        default:
            var d = PlistDictionary()
            for _ in 0..<r.below(6) { d[string(&r, profile)] = value(&r, profile, depth: depth + 1) }
            return .dictionary(d)
        }
    }

    // MARK: Foundation bridge

    struct NotBridgeable: Error {
        var what: String
    }

    /// The Foundation property-list object for `value` (no UIDs, nulls, sets or 128-bit integers).
    static func foundationObject(_ value: PlistValue) throws -> Any {
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
        case .array(let items): return try items.map(foundationObject)
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for e in d.entries {
                guard case .string(let k) = e.key else { throw NotBridgeable(what: "non-string key") }
                out[k] = try foundationObject(e.value)
            }
            return out
        case .null, .set, .uid: throw NotBridgeable(what: value.kindName)
        }
    }

    /// The plist value of a Foundation property-list object.
    static func plistValue(_ object: Any) throws -> PlistValue {
        if type(of: object) == Bool.self, let b = object as? Bool { return .bool(b) }
        if let n = object as? NSNumber {
            switch String(cString: n.objCType) {
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
}
