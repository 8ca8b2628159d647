import Foundation
import Testing
import TestSupport
@testable import BinaryPlist

/// The writer that uniques scalars by their encoded bytes and assembles the file in one presized buffer writes,
/// byte for byte, what the writer before it wrote (``ReferenceBinaryPlistWriter``).
@Suite("Presized binary plist writer")
struct PresizedWriterTests {
    func encode(_ v: PlistValue) throws -> [UInt8] { try BinaryPlistWriter().encode(v) }

    /// Every plist among the fixtures (binary and XML, plain and keyed archives), decoded, written by both.
    static let fixturePlists: [String] = (RepositoryFixtures.dataFiles(under: "bplist")
        + RepositoryFixtures.dataFiles(under: "keyed") + RepositoryFixtures.dataFiles(under: "inspector")).sorted()

    /// The value of fixture `file`, or `nil` when it is not a plist we read (hostile, damaged or another format:
    /// nothing to write).
    static func fixtureValue(_ file: String) throws -> PlistValue? {
        let bytes = try RepositoryFixtures.bytes(file)
        do { return try PropertyList.decode(bytes) } catch {
            guard error is PlistError else { throw error }
            return nil
        }
    }

    @Test(arguments: fixturePlists)
    func writesTheReferenceBytesForEveryFixture(_ file: String) throws {
        guard let value = try Self.fixtureValue(file) else { return }
        let ours = try encode(value)
        #expect(ours == (try ReferenceBinaryPlistWriter.encode(value)), "\(file)")
        #expect(try PropertyList.decode(ours) == value, "\(file)")
    }

    @Test func writesTheReferenceBytesForRandomValues() throws {
        var random = RandomPlist(seed: 31, profile: .binary)
        for i in 0..<2000 {
            let value = random.value()
            #expect(try encode(value) == (try ReferenceBinaryPlistWriter.encode(value)), "value \(i)")
        }
    }

    @Test func writesTheReferenceBytesAtEveryWidthBoundary() throws {
        // Counts that need a 1-, 2- and 4-byte extended count, references and offsets of 1, 2 and 3 bytes.
        for n in [0, 14, 15, 255, 256, 300, 65_535, 65_536, 70_000] {
            let items = (0..<n).map { PlistValue.integer(PlistInteger($0)) }
            let array = PlistValue.array(items)
            #expect(try encode(array) == (try ReferenceBinaryPlistWriter.encode(array)), "\(n) integers")
            let data = PlistValue.data([UInt8](repeating: 7, count: n))
            #expect(try encode(data) == (try ReferenceBinaryPlistWriter.encode(data)), "\(n) bytes of data")
            let string = PlistValue.string(String(repeating: "é", count: n))
            #expect(try encode(string) == (try ReferenceBinaryPlistWriter.encode(string)), "\(n) UTF-16 units")
        }
        // Wide scalars: negative, 64-bit unsigned, 128-bit integers, UIDs of every width, -0.0, NaN.
        let scalars: [PlistValue] = [
            .integer(PlistInteger(-1)), .integer(PlistInteger(UInt64.max)), .integer(PlistInteger(high: 5, low: 9)),
            .integer(PlistInteger(Int64.min)), .uid(PlistUID(0)), .uid(PlistUID(300)), .uid(PlistUID(70_000)),
            .uid(PlistUID(UInt64(1) << 40)), .real(-0.0), .real(0.0), .real(.nan), .real(.infinity),
            .date(PlistDate(secondsSinceReferenceDate: -0.0)), .date(PlistDate(secondsSinceReferenceDate: 0)),
            .null, .bool(true), .bool(false), .integer(PlistInteger(1)), .real(1), .data([]), .string(""),
        ]
        let twice = PlistValue.array(scalars + scalars)
        #expect(try encode(twice) == (try ReferenceBinaryPlistWriter.encode(twice)))
    }

    @Test func writesTheSameBytesWithEveryWidthOfObjectNumberAndOffset() throws {
        // encode(_:) takes 32-bit numbers and offsets below 1 GiB; the wider tables serve larger plists. Each
        // pair writes the reference's bytes, for plists whose tables grow (repeats, and uniquing across types).
        var random = RandomPlist(seed: 47, profile: .binary)
        var values = (0..<300).map { _ in random.value() }
        values.append(.array((0..<5000).map { .string("item \($0 % 1700)") } + (0..<3000).map { .integer(PlistInteger($0 % 900)) }))
        values.append(.array((0..<20).map { i in
            .dictionary(PlistDictionary([(.string("é\u{301}"), .real(Double(i % 3))), (.string("K"), .data([1, 2]))]))
        } + [.string("\u{212A}"), .string("K"), .string("\u{212A}")]))
        let writer = BinaryPlistWriter()
        for (i, value) in values.enumerated() {
            let reference = try ReferenceBinaryPlistWriter.encode(value)
            #expect(try writer.encode(value, numbering: UInt32.self, positions: UInt32.self) == reference, "value \(i)")
            #expect(try writer.encode(value, numbering: UInt32.self, positions: UInt.self) == reference, "value \(i)")
            #expect(try writer.encode(value, numbering: UInt.self, positions: UInt.self) == reference, "value \(i)")
        }
    }

    @Test func findsEveryEncodingInATableOfAnySize() {
        // Tables of 16 slots and of sizes that are no power of two (twice the capacity, rounded up to 16),
        // filled past half so that they double: every encoding is found again, and only once.
        for capacity in [0, 5, 9, 100, 1000] {
            var bytes: [UInt8] = []
            var objects: [WrittenObject] = []
            for i in 0..<(4 * capacity + 40) {
                let start = bytes.count
                bytes += Array("e\(i)".utf8)
                objects.append(WrittenObject(kind: 0, start: start, count: bytes.count - start))
            }
            var table = EncodedScalarTable<UInt32>(capacity: capacity)
            bytes.withUnsafeBytes { raw in
                objects.withUnsafeBufferPointer { list in
                    for (n, o) in list.enumerated() {
                        #expect(table.object(for: raw, o.start, o.start + o.count, objects: list, candidate: n) == n)
                    }
                    var found = 0
                    for (n, o) in list.enumerated()
                    where table.existingObject(for: raw, o.start, o.start + o.count, objects: list) == n {
                        found += 1
                    }
                    #expect(found == list.count, "capacity \(capacity)")
                }
            }
            #expect(!table.strong, "capacity \(capacity)")
        }
    }

    @Test func uniquesStringsAsSwiftEqualityDoes() throws {
        // "K" and the Kelvin sign, ";" and the Greek question mark, "`" and varia are equal Swift strings, as
        // are the composed and decomposed "é": each pair is one object, whichever comes first.
        let pairs: [(String, String)] = [("K", "\u{212A}"), ("a;b", "a\u{037E}b"), ("`", "\u{1FEF}"),
                                         ("\u{E9}", "e\u{301}"), ("x\u{212A}y", "xKy"), ("K\u{301}", "\u{212A}\u{301}")]
        for (a, b) in pairs {
            for order in [[a, b], [b, a], [a, b, a, b], [b, "K", a, "\u{212A}", b]] {
                let value = PlistValue.array(order.map { .string($0) })
                let ours = try encode(value)
                #expect(ours == (try ReferenceBinaryPlistWriter.encode(value)), "\(order.map { Array($0.unicodeScalars) })")
            }
        }
        // One object for the equal pair: array, then one string.
        let kelvin = try BinaryPlistDocument(encode(.array([.string("\u{212A}"), .string("K")])))
        #expect(kelvin.objectCount == 2)
    }

    @Test func theThreeASCIIEquivalentScalarsAreAllThereAre() {
        // Every scalar whose canonical decomposition is ASCII, by Foundation's NFD, is one that
        // asciiEquivalent(of:) maps, to that decomposition.
        var found: [UInt32: [UInt8]] = [:]
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let decomposed = String(Character(scalar)).decomposedStringWithCanonicalMapping
            if decomposed.utf8.allSatisfy({ $0 < 0x80 }) { found[value] = Array(decomposed.utf8) }
        }
        #expect(found == [0x037E: [0x3B], 0x1FEF: [0x60], 0x212A: [0x4B]])
        for (value, ascii) in found {
            #expect(asciiEquivalent(of: String(Character(Unicode.Scalar(value)!))) == ascii)
        }
        #expect(asciiEquivalent(of: "plain") == Array("plain".utf8))
        #expect(asciiEquivalent(of: "\u{E9}") == nil)
    }

    @Test func switchesToHasherAfterALongProbeAndStillFindsEveryEncoding() {
        // Both widths of object number: 32 bits (8-byte slots) and 64.
        switchesToHasherAndFindsEveryEncoding(EncodedScalarTable<UInt32>(capacity: 4, longProbe: 0))
        switchesToHasherAndFindsEveryEncoding(EncodedScalarTable<UInt>(capacity: 4, longProbe: 0))
    }

    private func switchesToHasherAndFindsEveryEncoding<Object>(_ empty: EncodedScalarTable<Object>) {
        var bytes: [UInt8] = []
        var ranges: [(start: Int, end: Int)] = []
        for i in 0..<300 {
            let start = bytes.count
            bytes += Array("encoding \(i)".utf8)
            ranges.append((start, bytes.count))
        }
        let objects = ranges.map { WrittenObject(kind: 0, start: $0.start, count: $0.end - $0.start) }
        var table = empty
        bytes.withUnsafeBytes { raw in
            objects.withUnsafeBufferPointer { objects in
                for (n, r) in ranges.enumerated() {
                    #expect(table.existingObject(for: raw, r.start, r.end, objects: objects) == nil)
                    #expect(table.object(for: raw, r.start, r.end, objects: objects, candidate: n) == n)
                }
                for (n, r) in ranges.enumerated() {
                    #expect(table.object(for: raw, r.start, r.end, objects: objects, candidate: -5) == n)
                    #expect(table.existingObject(for: raw, r.start, r.end, objects: objects) == n)
                }
            }
        }
        #expect(table.strong)
    }

    @Test func theHashReadsTheLastBytesAsTheByteLoopDid() {
        // Every length up to 24 and every start of a tail of fewer than eight bytes: the loads give the value
        // of the loop they replace (byte k at bit 8k), so the hash, and every probe sequence, stay as they were.
        let bytes: [UInt8] = (0..<24).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0x81) }
        bytes.withUnsafeBytes { all in
            for n in 0...24 {
                let prefix = UnsafeRawBufferPointer(rebasing: all[0..<n])
                for i in max(0, n - 7)...n {
                    var expected: UInt64 = 0
                    for k in i..<n { expected |= UInt64(prefix[k]) << UInt64(8 * (k - i)) }
                    #expect(EncodedScalarTable<UInt32>.tailBits(prefix, from: i) == expected, "length \(n), from \(i)")
                }
            }
        }
    }

    @Test func writesEachWidthMostSignificantByteFirst() {
        let v: UInt64 = 0x0102_0304_0506_0708
        for width in [1, 2, 4, 8] {
            var buffer = BinaryPlistBuffer()
            buffer.writeBigEndian(v, width: width)
            #expect(buffer.bytes == Array([1, 2, 3, 4, 5, 6, 7, 8].suffix(width)), "width \(width)")
        }
        let integers: [(UInt64, [UInt8])] = [
            (0xFF, [0x10, 0xFF]), (0x100, [0x11, 0x01, 0x00]), (0xFFFF, [0x11, 0xFF, 0xFF]),
            (0x1_0000, [0x12, 0x00, 0x01, 0x00, 0x00]), (0xFFFF_FFFF, [0x12, 0xFF, 0xFF, 0xFF, 0xFF]),
            (0x1_0000_0000, [0x13, 0, 0, 0, 0x01, 0, 0, 0, 0]),
        ]
        for (value, expected) in integers {
            var buffer = BinaryPlistBuffer()
            buffer.writeUnsigned(value)
            #expect(buffer.bytes == expected, "\(value)")
        }
    }

    @Test func recentStringsNeverConfuseStringsThatWereFreed() throws {
        // Strings made and dropped one after another may reuse one address: the cache keeps each one it names.
        var items: [PlistValue] = []
        for i in 0..<3000 { items.append(.string(String(repeating: "long string \(i % 700) ", count: 2))) }
        let value = PlistValue.array(items)
        #expect(try encode(value) == (try ReferenceBinaryPlistWriter.encode(value)))
    }

    @Test func refusesWhatTheReferenceRefuses() throws {
        let key = PlistValue.dictionary(PlistDictionary([(.array([]), .bool(true))]))
        let ours = #expect(throws: PlistError.self) { try encode(key) }
        #expect(ours?.code == .invalidKey)
        var deep = PlistValue.array([])
        for _ in 0..<600 { deep = [deep] }
        let depth = #expect(throws: PlistError.self) { try encode(deep) }
        #expect(depth?.code == .depthLimitExceeded)
    }
}
