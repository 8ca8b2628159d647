import BinaryPlist
import Foundation
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// Seeded random mutations of real keyed archives (and of our own shapes archive): every reader of the
/// archive layer must return a value or throw a typed error, never trap. Runs in every `swift test`.
@Suite("Keyed archive random mutation")
struct ArchiveMutationTests {
    static func mutate(_ bytes: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = bytes
        for _ in 0..<Int.random(in: 1...3, using: &rng) where !b.isEmpty {
            let at = Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: b[at] = UInt8.random(in: 0...255, using: &rng)
            case 1: b[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 2: b[at] = [0x00, 0x01, 0x0F, 0x7F, 0x80, 0xFF][Int.random(in: 0..<6, using: &rng)]
            default: b[at] = b[Int.random(in: 0..<b.count, using: &rng)]
            }
        }
        return b
    }

    static var inputs: [[UInt8]] {
        var out = KeyedFixtures.appleArchives.compactMap { try? KeyedFixtures.bytes($0) }.filter { $0.count < 16_384 }
        let shapes = Contents(shapes: [Circle(centerX: 1, centerY: 2, radius: 3, style: Style(name: "s", strokeWidth: 1))])
        if let own = try? KeyedArchiver.archivedData(withRootObject: shapes) { out.append(own) }
        let style = CodableStyle(name: "s", strokeWidth: 1)
        let codable = CodableContents(shapes: [
            CodableCircle(centerX: 1, centerY: 2, radius: 3, style: style),
            CodableRoundedRectangle(x: 1, y: 2, width: 3, height: 4, cornerRadius: 5, style: style),
        ])
        if let own = try? ArchiveEncoder().encode(codable) { out.append(own) }
        return out
    }

    /// Runs every archive reader on `bytes`; anything thrown must be one of the library's typed errors.
    static func readAll(_ bytes: [UInt8]) -> (decoded: Int, rejected: Int, untyped: [String]) {
        var decoded = 0, rejected = 0
        var untyped: [String] = []
        func attempt(_ body: () throws -> Void) {
            do {
                try body()
                decoded += 1
            } catch is KeyedArchiveError {
                rejected += 1
            } catch is PlistError {
                rejected += 1
            } catch is DecodingError {
                rejected += 1
            } catch {
                untyped.append("\(type(of: error)): \(error)")
            }
        }
        attempt { _ = try ArchiveGraph(bytes: bytes) }
        attempt { _ = try ArchiveJSON.render(bytes) }
        attempt { _ = try ArchiveDump.render(bytes) }
        attempt { _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()) }
        attempt { _ = try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry) }
        attempt { _ = try ArchiveDecoder(registry: codableShapeRegistry).decode(CodableContents.self, from: bytes) }
        return (decoded, rejected, untyped)
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func mutatedArchivesNeverTrap(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var decoded = 0, rejected = 0
        for original in Self.inputs {
            for _ in 0..<40 {
                let outcome = Self.readAll(Self.mutate(original, &rng))
                decoded += outcome.decoded
                rejected += outcome.rejected
                #expect(outcome.untyped.isEmpty, "\(outcome.untyped)")
            }
        }
        #expect(decoded > 0)
        #expect(rejected > 0)
    }
}

/// The crash the mutation suite found: a 16-byte UID (marker 0x8F) reached a 64-bit read with a negative shift.
@Suite("Keyed archive mutation regressions")
struct ArchiveMutationRegressionTests {
    /// `{"$archiver": …, "$version": 100000, "$top": {"root": UID}, "$objects": ["$null", {"$class": UID}]}`
    /// where the `$class` UID is 16 bytes wide, with `high` as its leading 8 bytes.
    static func archive(classUIDHigh high: UInt64, low: UInt64) throws -> [UInt8] {
        let top: PlistValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(PlistUID(1))],
            "$objects": ["$null", ["$class": .uid(PlistUID(0x0102_0304))]],
        ]
        var bytes = try PropertyList.encode(top, format: .binary)
        // Replace the 4-byte UID object (0x83 01 02 03 04) with a 16-byte one, then move the offsets after it.
        guard let at = bytes.firstIndex(of: 0x83), bytes[at + 1] == 0x01 else {
            Issue.record("the 4-byte UID object was not found")
            return bytes
        }
        var object: [UInt8] = [0x8F]
        object += (0..<8).map { UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * $0)) }
        object += (0..<8).map { UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * $0)) }
        bytes.replaceSubrange(at..<(at + 5), with: object)
        return try relaidOut(bytes, insertedAt: at, grownBy: object.count - 5)
    }

    /// Moves every offset after `insertedAt` by `grownBy` and the offset table with it.
    static func relaidOut(_ bytes: [UInt8], insertedAt: Int, grownBy: Int) throws -> [UInt8] {
        var b = bytes
        let t = b.count - 32
        let offsetWidth = Int(b[t + 6])
        let count = Int(b[(t + 8)..<(t + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let table = Int(b[(t + 24)..<(t + 32)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        for i in 0..<count {
            let p = table + i * offsetWidth
            var v = b[p..<(p + offsetWidth)].reduce(0) { $0 << 8 | Int($1) }
            if v > insertedAt { v += grownBy }
            for k in 0..<offsetWidth { b[p + k] = UInt8(truncatingIfNeeded: v >> (8 * (offsetWidth - 1 - k))) }
        }
        let newTable = table + grownBy
        for k in 0..<8 { b[t + 24 + k] = UInt8(truncatingIfNeeded: UInt64(newTable) >> UInt64(56 - 8 * k)) }
        return b
    }

    @Test func sixteenByteUIDsAreReadOrRefusedWithoutTrapping() throws {
        let wide = try Self.archive(classUIDHigh: 1, low: 2)
        // A UID above 2^64 cannot be represented: the plist reader refuses it, and the unarchiver says so.
        let error = expectKeyedError(.invalidPlist) {
            try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: wide, registry: ClassRegistry.standard.allowingUnknownClasses())
        }
        #expect(error?.reason == "bplist: object 14 at byte 102: UID wider than 64 bits")
        #expect(error?.underlying?.code == .unsupportedValue)
        #expect(error?.underlying?.byteOffset == 102)
        #expect(error?.underlying?.objectIndex == 14)
        let wideButSmall = try Self.archive(classUIDHigh: 0, low: 0x7FFF_FFFF_FFFF)
        let outcome = ArchiveMutationTests.readAll(wideButSmall)
        #expect(outcome.untyped.isEmpty)
        #expect(outcome.rejected > 0)
    }
}

extension ArchiveMutationRegressionTests {
    /// The second crash it found: ArchiveDecoder looked a UID up before checking it against `$objects`.
    @Test func codableDecoderRefusesAnOutOfRangeRootUID() throws {
        let top: PlistValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(PlistUID(99))],
            "$objects": ["$null"],
        ]
        let bytes = try PropertyList.encode(top, format: .binary)
        #expect(throws: DecodingError.self) {
            _ = try ArchiveDecoder(registry: codableShapeRegistry).decode(CodableContents.self, from: bytes)
        }
        #expect(ArchiveMutationTests.readAll(bytes).untyped.isEmpty)
    }
}

extension ArchiveMutationTests {
    /// Damaged archive-JSON (what `keyedarchive encode` reads) gives an archive or a typed error.
    @Test func mutatedArchiveJSONNeverTraps() throws {
        var rng = SeededGenerator(seed: 21)
        var encoded = 0, rejected = 0
        let texts = Self.inputs.prefix(40).compactMap { try? ArchiveJSON.render($0) }
        for text in texts {
            let original = Array(text.utf8)
            for _ in 0..<30 {
                let bytes = Self.mutate(original, &rng)
                do {
                    _ = try ArchiveJSON.encode(String(decoding: bytes, as: UTF8.self), format: .binary)
                    encoded += 1
                } catch is KeyedArchiveError {
                    rejected += 1
                } catch is PlistError {
                    rejected += 1
                } catch {
                    Issue.record("untyped error \(type(of: error)): \(error)")
                }
            }
        }
        #expect(encoded > 0)
        #expect(rejected > 0)
    }
}
