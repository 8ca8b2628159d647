import TestSupport
import Testing
@testable import BinaryPlist

/// Seeded random mutations of real files: the readers must return a value or throw ``PlistError``, never trap,
/// hang or throw anything else. Runs in every `swift test`; the seed is fixed so failures reproduce.
@Suite("Random mutation")
struct MutationTests {
    static let seeds: [UInt64] = [1, 2, 3, 4]
    static let mutationsPerFile = 60

    static func mutate(_ bytes: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = bytes
        guard !b.isEmpty else { return [UInt8.random(in: 0...255, using: &rng)] }
        let edits = Int.random(in: 1...4, using: &rng)
        for _ in 0..<edits {
            // Favour the trailer and offset table, where one byte changes the most.
            let nearEnd = Bool.random(using: &rng)
            let lower = nearEnd ? max(0, b.count - 48) : 0
            let at = Int.random(in: lower..<b.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: b[at] = UInt8.random(in: 0...255, using: &rng)
            case 1: b[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 2: b[at] = [0x00, 0xFF, 0x0F, 0x7F, 0x80, 0x13, 0xAF, 0xDF][Int.random(in: 0..<8, using: &rng)]
            case 3: b.removeSubrange(at..<min(b.count, at + Int.random(in: 1...8, using: &rng)))
            case 4: b.insert(UInt8.random(in: 0...255, using: &rng), at: at)
            default: b = Array(b.prefix(at))
            }
            if b.isEmpty { break }
        }
        return b
    }

    static let inputs: [String] = FixtureFiles.dataFiles
        .filter { (try? FixtureFiles.bytes($0).count) ?? 0 < 64 * 1024 }

    @Test(arguments: seeds)
    func mutatedFixturesNeverTrap(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var decoded = 0
        var rejected = 0
        for file in Self.inputs {
            let original = try FixtureFiles.bytes(file)
            for _ in 0..<Self.mutationsPerFile {
                let bytes = Self.mutate(original, &rng)
                let value: PlistValue
                do {
                    value = try PropertyList.decode(bytes)
                } catch is PlistError {
                    rejected += 1
                    continue
                } catch {
                    Issue.record("\(file): unexpected error type \(error)")
                    continue
                }
                decoded += 1
                // Whatever decodes must write and read back equal. The writer refuses only what the readers
                // refuse too (a collection as a dictionary key, nesting past the same limit), so a value that
                // was read and cannot be written is a bug, not an acceptable outcome.
                do {
                    let again = try PropertyList.encode(value, format: .binary)
                    #expect(try PropertyList.decode(again) == value, "\(file)")
                } catch {
                    Issue.record("\(file): a decoded value does not re-encode: \(error)")
                }
            }
        }
        // Both outcomes must occur, or the mutations are not exercising the reader.
        #expect(decoded > 0)
        #expect(rejected > 0)
    }
}
