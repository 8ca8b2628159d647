import ArchiveStore
import Foundation
import Testing
import TestSupport
import FormCache

/// Seeded random damage to a real store file: reading it must give the records or a ``StoreError`` whose
/// code is `corrupt` (or `damagedCommit`, when the newer commit slot is hit while the frames it may commit are
/// intact), never a trap, and a failed read must leave the file as it was.
@Suite("Damaged store files")
struct CorruptStoreMutationTests {

    @Test func damagedStoresAreReportedNotTrappedOn() throws {
        let directory = try TemporaryDirectory(prefix: "damaged")
        defer { directory.remove() }
        let cache = FormCache(directory: directory.path)
        for i in 0..<6 {
            try cache.add(name: "form \(i)", fields: ["email": "u\(i)@example.com", "plan": i % 2 == 0 ? "pro" : "free"])
        }
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cache.path)))
        var rng = SeededGenerator(seed: 7)
        var readable = 0
        var reported = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[at] = Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : bytes[at] ^ 0x10
            }
            try Data(bytes).write(to: URL(fileURLWithPath: cache.path))
            do {
                _ = try cache.list(includeExpired: true)
                readable += 1
            } catch {
                // `list` throws only StoreError (typed throws; this annotation fails to compile otherwise).
                let error: StoreError = error
                // Every damage is caught by a magic, a checksum (header, commit slot, frame, the frames' chain) or
                // a length: the header's version is under its checksum, so unsupportedVersion needs a CRC
                // collision, and no other code (io, invalidArgument...) is a right answer for a damaged file.
                #expect(error.code == .corrupt || error.code == .damagedCommit, "\(error)")
                reported += 1
                // A failed read leaves the damaged file untouched.
                #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: cache.path))) == bytes)
            }
        }
        #expect(readable > 0)
        #expect(reported > 0)
    }
}
