import Testing
@testable import BinaryPlist

/// The writer's two passes: a census that counts the collections, then one pass that checks and writes each
/// object where it goes, its references as wide as the census's count of values needs, narrowed at the end
/// when uniquing leaves fewer objects than that width is for.
@Suite("Single-pass binary plist writer")
struct SinglePassWriterTests {
    func encode(_ v: PlistValue) throws -> [UInt8] { try BinaryPlistWriter().encode(v) }

    @Test func narrowsReferencesWhenUniquingLeavesFewerObjects() throws {
        // 300 values (2-byte references by the count) that are 2 objects (1-byte references); 70,000 (3 bytes)
        // that are 3; a dictionary of 20 entries (an extended count) whose keys and values repeat.
        let repeated = PlistValue.array(Array(repeating: .string("same"), count: 300))
        #expect(try encode(repeated) == (try ReferenceBinaryPlistWriter.encode(repeated)))
        let wide = PlistValue.array((0..<70_000).map { .integer(PlistInteger($0 % 2)) })
        #expect(try encode(wide) == (try ReferenceBinaryPlistWriter.encode(wide)))
        let entries = (0..<20).map { (PlistValue.string("k\($0 % 3)"), PlistValue.bool($0 % 2 == 0)) }
        let nested = PlistValue.array(Array(repeating: .dictionary(PlistDictionary(entries)), count: 15))
        #expect(try encode(nested) == (try ReferenceBinaryPlistWriter.encode(nested)))
    }

    @Test func writesTheNarrowedBytesExactly() throws {
        // 256 values counted (2-byte references), 2 objects: the array (0xAF, then its count 255 as an integer
        // object) with 255 one-byte references to object 1, then the string; 2-byte offsets (the table is at 268).
        let value = PlistValue.array(Array(repeating: .string("a"), count: 255))
        let bytes = try encode(value)
        var expected: [UInt8] = Array("bplist00".utf8)
        expected += [0xAF, 0x10, 0xFF] + Array(repeating: 1, count: 255)
        expected += [0x51, 0x61]
        expected += [0x00, 0x08, 0x01, 0x0A]
        expected += [0, 0, 0, 0, 0, 0, 2, 1]
        expected += [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0x01, 0x0C]
        #expect(bytes == expected)
    }

    @Test func keepsTheWidthTheCountNeedsWhenObjectsStayDistinct() throws {
        // 255 distinct integers and the array: 256 objects, 2-byte references, nothing narrowed.
        let value = PlistValue.array((0..<255).map { .integer(PlistInteger($0)) })
        let bytes = try encode(value)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        #expect(try BinaryPlistDocument(bytes).trailer.referenceWidth == 2)
    }

    @Test func estimatesTheFileSizeExactlyWhenNothingIsUniqued() throws {
        // Distinct scalars of every kind, and 400 dictionaries whose keys are the same three strings: the census
        // counts each key once, so its estimate (the writer's array) is the file's size.
        let keys: [PlistValue] = [.string("identifier"), .string("n"), .string("title")]
        var items: [PlistValue] = (0..<400).map { i in
            .dictionary(PlistDictionary([(keys[0], .integer(PlistInteger(i * 1000))),
                                         (keys[1], .string("record \(i) of the estimated file")),
                                         (keys[2], .real(Double(i) + 0.5))]))
        }
        items += [.data(Array(repeating: 1, count: 40)), .bool(true), .null, .uid(PlistUID(70_000)),
                  .date(PlistDate(secondsSinceReferenceDate: 12.5)), .integer(PlistInteger(-3)), .string("")]
        let value = PlistValue.array(items)
        var census = WriterCensus(maxDepth: 512)
        withUnsafePointer(to: value) { census.visit($0, depth: 1) }
        let bytes = try encode(value)
        #expect(census.estimatedSize == bytes.count)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
    }

    @Test func writesEachFileInAnArrayAtMostTwiceItsSize() throws {
        // Written where the census's estimate put it (records), grown past the estimate (strings that are not
        // ASCII take more bytes as UTF-16 than their UTF-8 count), far smaller than estimated (one data value
        // repeated): the reference's bytes, in an array whose capacity is never more than twice its count.
        let records = PlistValue.array((0..<2000).map { i in
            .dictionary(PlistDictionary([(.string("id"), .integer(PlistInteger(i))),
                                         (.string("name"), .string("Record number \(i)"))]))
        })
        let utf16 = PlistValue.array((0..<2000).map { .string(String(repeating: "x", count: 40) + "\u{E9}\($0)") })
        let repeated = PlistValue.array(Array(repeating: .data(Array(repeating: 9, count: 1000)), count: 2000))
        for (name, value) in [("records", records), ("utf16", utf16), ("repeated", repeated)] {
            let bytes = try encode(value)
            #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)), "\(name)")
            // A few bytes of the allocator's rounding.
            #expect(bytes.capacity <= 2 * bytes.count + 64, "\(name): capacity \(bytes.capacity), \(bytes.count) bytes")
        }
    }

    @Test func reportsTheFirstRefusalInWritingOrder() throws {
        var deep = PlistValue.array([])
        for _ in 0..<600 { deep = [deep] }
        let badKey = PlistValue.dictionary(PlistDictionary([(.array([]), .bool(true))]))
        for (value, code) in [(PlistValue.array([deep, badKey]), PlistError.Code.depthLimitExceeded),
                              (.array([badKey, deep]), .invalidKey),
                              (.dictionary(PlistDictionary([(.string("a"), deep), (.array([]), .null)])), .invalidKey)] {
            let ours = #expect(throws: PlistError.self) { try encode(value) }
            let reference = #expect(throws: PlistError.self) { try ReferenceBinaryPlistWriter.encode(value) }
            #expect(ours?.code == code)
            #expect(ours?.code == reference?.code)
            #expect(ours?.reason == reference?.reason)
        }
    }

    @Test func writesStringsOfEveryLengthAroundTheCopyWidths() throws {
        // The ASCII copy goes by eight, four or one byte: every length up to 40, ASCII and not (a last byte
        // above 0x7F at each position), a string of one shared storage and the empty string.
        var items: [PlistValue] = [.string("")]
        for n in 0...40 {
            let ascii = String(repeating: "x", count: n)
            items.append(.string(ascii))
            items.append(.string(ascii + "\u{E9}"))
            if n > 0 { items.append(.string(String(ascii.dropLast()) + "\u{212A}")) }
        }
        let value = PlistValue.array(items + items)
        #expect(try encode(value) == (try ReferenceBinaryPlistWriter.encode(value)))
    }

    @Test func hashesAValueAheadAsItsEncodingHashes() {
        // The writer hashes a scalar from its own bytes before writing it (to touch its table slot): that hash
        // is the encoding's, for short and long strings and data (an extended count) and fixed-size scalars.
        let table = EncodedScalarTable<UInt32>()
        let body = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 0x41) }
        for n in [0, 1, 7, 14, 15, 16, 39] {
            for kind in [UInt8(0x40), 0x50] {
                var buffer = BinaryPlistBuffer()
                buffer.writeMarker(kind, count: n)
                buffer.bytes += body.prefix(n)
                let ahead = body.prefix(n).withUnsafeBytes { table.hash(marker: kind | UInt8(min(n, 15)), body: $0) }
                #expect(buffer.bytes.withUnsafeBytes { table.hash($0) } == ahead, "kind \(kind), \(n) bytes")
            }
        }
        let real: [UInt8] = [0x23, 0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18]
        let ahead = real.dropFirst().withUnsafeBytes { table.hash(marker: 0x23, body: $0) }
        #expect(real.withUnsafeBytes { table.hash($0) } == ahead)
    }

    @Test func aHashComputedAheadIsNotUsedAfterTheSwitchToHasher() {
        // Hashes computed by the fast hash, then a table that switches to `Hasher` on its first probe: every
        // encoding is still found, under its own object.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for i in 0..<200 {
            let start = bytes.count
            bytes += [0x5F, 0x10, 12] + Array("encoding \(1000 + i)".utf8)
            ranges.append(start..<bytes.count)
        }
        let objects = ranges.map { WrittenObject(kind: 0, start: $0.lowerBound, count: $0.count) }
        let fast = EncodedScalarTable<UInt32>()
        var table = EncodedScalarTable<UInt32>(capacity: 4, longProbe: 0)
        bytes.withUnsafeBytes { raw in
            objects.withUnsafeBufferPointer { objects in
                let written = WrittenEncodings(bytes: raw, objects: objects)
                let ahead = ranges.map { fast.hash(UnsafeRawBufferPointer(rebasing: raw[$0])) }
                for (n, r) in ranges.enumerated() {
                    #expect(table.object(for: UnsafeRawBufferPointer(rebasing: raw[r]), hash: ahead[n], in: written, candidate: n) == n)
                }
                for (n, r) in ranges.enumerated() {
                    #expect(table.object(for: UnsafeRawBufferPointer(rebasing: raw[r]), hash: ahead[n], in: written, candidate: -5) == n)
                }
            }
        }
        #expect(table.strong)
        #expect(!fast.strong)
    }
}
