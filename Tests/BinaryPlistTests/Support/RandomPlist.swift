@testable import BinaryPlist

/// A small deterministic PRNG (SplitMix64) so that random tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random plist values for round-trip and differential tests.
struct RandomPlist {
    var rng: SeededGenerator
    /// Kinds Foundation's PropertyListSerialization can also express (no null, UID, set, non-string keys).
    var foundationCompatible = false

    init(seed: UInt64, foundationCompatible: Bool = false) {
        rng = SeededGenerator(seed: seed)
        self.foundationCompatible = foundationCompatible
    }

    mutating func string() -> String {
        let pools: [[Character]] = [
            Array("abcdefghijklmnopqrstuvwxyz0123456789 _-$"),
            Array("éüßçñ€你好мир😀🎉\u{7F}\t\n<>&\""),
        ]
        let pool = pools[Int.random(in: 0..<2, using: &rng)]
        let n = Int.random(in: 0..<24, using: &rng)
        return String((0..<n).map { _ in pool[Int.random(in: 0..<pool.count, using: &rng)] })
    }

    mutating func scalar() -> PlistValue {
        switch Int.random(in: 0..<(foundationCompatible ? 9 : 12), using: &rng) {
        case 0: return .bool(Bool.random(using: &rng))
        case 1: return .integer(PlistInteger(Int64.random(in: -1000...1000, using: &rng)))
        case 2: return .integer(PlistInteger(Int64.random(in: .min ... .max, using: &rng)))
        case 3: return .integer(PlistInteger(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &rng)))
        case 4: return .real([0, 1, -1.5, .pi, 1e300, -2.5e-300, Double(Float(0.1)), 1.0 / 3][Int.random(in: 0..<8, using: &rng)])
        case 5: return .date(PlistDate(secondsSinceReferenceDate: Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &rng))))
        case 6: return .data((0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 7, 8: return .string(string())
        case 9: return .uid(PlistUID(UInt64.random(in: 0...UInt64(UInt32.max), using: &rng)))
        case 10: return .null
        default: return .real([.nan, .infinity, -.infinity, -0.0][Int.random(in: 0..<4, using: &rng)])
        }
    }

    mutating func value(depth: Int = 0) -> PlistValue {
        if depth > 4 || Int.random(in: 0..<3, using: &rng) > 0 { return scalar() }
        let n = Int.random(in: 0..<(depth == 0 ? 30 : 8), using: &rng)
        switch Int.random(in: 0..<(foundationCompatible ? 2 : 3), using: &rng) {
        case 0: return .array((0..<n).map { _ in value(depth: depth + 1) })
        case 1:
            var d = PlistDictionary()
            for _ in 0..<n { d[string()] = value(depth: depth + 1) }
            if !foundationCompatible && Bool.random(using: &rng) {
                d.append(key: .integer(PlistInteger(Int64(n))), value: scalar())
            }
            return .dictionary(d)
        default: return .set((0..<n).map { _ in scalar() })
        }
    }
}
