import TestSupport
import BinaryPlist

/// Seeded random plist values for round-trip and differential tests. The profile says which kinds may appear,
/// so one generator serves the binary format, the XML format and the comparisons with Foundation.
struct RandomPlist {
    struct Profile: Sendable {
        /// Nulls, sets and non-string dictionary keys: kinds only the binary format holds.
        var binaryOnlyKinds = false
        /// What our codecs hold and Foundation does not: UIDs (in `PropertyListSerialization`'s eyes), integers
        /// beyond 64 bits, -0.0 (swift-corelibs-foundation writes it as "0.0"), dates outside the years
        /// 1601...9999, strings holding U+FEFF (Foundation's reader drops one that starts a string).
        var beyondFoundation = true
        /// Only reals whose shortest text and CoreFoundation's 17-digit text are the same, and no 0.0.
        var sameRealTextAsCoreFoundation = false
        /// Collections nest at most `maxDepth - 1` deep.
        var maxDepth = 4

        /// Everything our binary format holds.
        static let binary = Profile(binaryOnlyKinds: true)
        /// Everything our XML format holds.
        static let xml = Profile()
        /// Values Foundation can hold and compare after a trip through `PropertyListSerialization`.
        static let foundation = Profile(beyondFoundation: false)
        /// Values whose XML text Foundation writes exactly as we do.
        static let foundationXMLBytes = Profile(beyondFoundation: false, sameRealTextAsCoreFoundation: true)
    }

    var rng: SeededGenerator
    let profile: Profile

    init(seed: UInt64, profile: Profile) {
        rng = SeededGenerator(seed: seed)
        self.profile = profile
    }

    /// Pieces that strings are joined from: markup characters, line ends, combining marks, astral characters,
    /// control characters, keys that mean something to keyed archives.
    static let stringPieces: [String] = [
        "", "a", "plain", "with space", "  padded  ", "tab\there", "line\nbreak", "cr\r\nlf", "&", "<", ">", "<&>",
        "a&amp;b", "]]>", "\"quoted\" 'single'", "é", "e\u{301}", "日本語", "😀", "\u{FEFF}", "CF$UID", "$objects",
        "\u{1}\u{8}", "\u{7F}", "\u{FFFD}", "ｚ", "Z", "z",
    ]
    /// Alphabets for runs of characters: one all ASCII, one all beyond ASCII (so a string of it is UTF-16 in a
    /// binary plist).
    static let alphabets: [[Character]] = [
        Array("abcdefghijklmnopqrstuvwxyz0123456789 _-$"),
        Array("éüßçñ€你好мир😀🎉"),
    ]

    mutating func value() -> PlistValue { value(depth: 1) }

    mutating func value(depth: Int) -> PlistValue {
        if depth >= profile.maxDepth || !rng.chance(33) { return scalar() }
        let count = rng.below(depth == 1 ? 30 : 8)
        switch rng.below(profile.binaryOnlyKinds ? 3 : 2) {
        case 0: return .array((0..<count).map { _ in value(depth: depth + 1) })
        case 1:
            var d = PlistDictionary()
            for _ in 0..<count { d[string()] = value(depth: depth + 1) }
            if profile.binaryOnlyKinds && rng.chance(50) {
                d.append(key: .integer(PlistInteger(Int64(count))), value: scalar())
            }
            return .dictionary(d)
        default: return .set((0..<count).map { _ in scalar() })
        }
    }

    mutating func scalar() -> PlistValue {
        let kinds = 7 + (profile.beyondFoundation ? 1 : 0) + (profile.binaryOnlyKinds ? 1 : 0)
        switch rng.below(kinds) {
        case 0: return .bool(rng.chance(50))
        case 1: return .integer(integer())
        case 2: return .real(real())
        case 3: return .date(date())
        case 4: return .data((0..<[0, 1, 2, 3, 14, 15, 16, 45, 57, 58, 200][rng.below(11)]).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        case 5, 6: return .string(string())
        case 7 where profile.beyondFoundation: return .uid(PlistUID(rng.chance(50) ? UInt64(rng.below(1000)) : rng.next()))
        default: return .null
        }
    }

    mutating func string() -> String {
        if rng.chance(50) {
            let alphabet = Self.alphabets[rng.below(Self.alphabets.count)]
            return String((0..<rng.below(24)).map { _ in alphabet[rng.below(alphabet.count)] })
        }
        let pieces = profile.beyondFoundation ? Self.stringPieces : Self.stringPieces.filter { $0 != "\u{FEFF}" }
        return (0..<rng.below(4)).map { _ in pieces[rng.below(pieces.count)] }.joined()
    }

    mutating func real() -> Double {
        if profile.sameRealTextAsCoreFoundation {
            switch rng.below(5) {
            case 0: return [.nan, .infinity, -.infinity, 1e20, -0.375][rng.below(5)]
            case 1: return Double(Int64(rng.below(2_000_000)) - 1_000_000) / 4 + 0.25
            default: return Double(Int64(bitPattern: rng.next() >> 14) | 1)  // whole, |x| < 2^50
            }
        }
        switch rng.below(6) {
        case 0:
            let specials: [Double] = [
                .nan, .infinity, -.infinity, 0.0, .pi, 0.1, 1.0 / 3, Double(Float(0.1)), -1.5, 1e300, 1e-300, -2.5e-300,
                .leastNonzeroMagnitude, .greatestFiniteMagnitude, -0.0,
            ]
            return specials[rng.below(profile.beyondFoundation ? specials.count : specials.count - 1)]
        case 1: return Double(Int64(bitPattern: rng.next()) >> 20)
        default:
            let d = Double(bitPattern: rng.next())
            return d.isNaN ? .nan : d  // only the canonical NaN survives a text round trip
        }
    }

    mutating func integer() -> PlistInteger {
        switch rng.below(profile.beyondFoundation ? 5 : 4) {
        case 0: return PlistInteger(Int64(rng.below(2001)) - 1000)
        case 1: return PlistInteger(Int64(bitPattern: rng.next()))
        case 2: return PlistInteger(rng.next() | 1 << 63)  // above Int64.max
        case 3: return [PlistInteger(Int64.min), PlistInteger(Int64.max), PlistInteger(UInt64.max), 0][rng.below(4)]
        default: return PlistInteger(high: Int64(bitPattern: rng.next()), low: rng.next())
        }
    }

    /// Whole seconds: XML keeps no fraction.
    mutating func date() -> PlistDate {
        let seconds: Int64 =
            profile.beyondFoundation
            ? Int64(bitPattern: rng.next()) >> 28  // about ±1000 years... and beyond
            : Int64(rng.next() % 265_000_000_000) - 12_600_000_000  // years 1601...9999
        return PlistDate(secondsSinceReferenceDate: Double(seconds))
    }
}
