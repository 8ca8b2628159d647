import Testing
@testable import BinaryPlist

@Suite("Binary plist writer")
struct BinaryPlistWriterTests {
    func encode(_ v: PlistValue) throws -> [UInt8] { try PropertyList.encode(v, format: .binary) }

    @Test func randomValuesRoundTrip() throws {
        var random = RandomPlist(seed: 42, profile: .binary)
        for i in 0..<500 {
            let value = random.value()
            let bytes = try encode(value)
            #expect(try PropertyList.decode(bytes) == value, "value \(i)")
        }
    }

    @Test func sameValueAlwaysWritesTheSameBytes() throws {
        var a = RandomPlist(seed: 7, profile: .binary)
        var b = RandomPlist(seed: 7, profile: .binary)
        for _ in 0..<100 { #expect(try encode(a.value()) == encode(b.value())) }
    }

    @Test func writesApplesLayoutForASmallDictionary() throws {
        // What CoreFoundation writes for {"a": 1}: dict, key, value; 1-byte offsets and references.
        let bytes = try encode(["a": 1])
        let expected: [UInt8] = Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x51, 0x61, 0x10, 0x01,
            0x08, 0x0B, 0x0D,
            0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(3, width: 8) + bigEndian(0, width: 8) + bigEndian(15, width: 8)
        #expect(bytes == expected)
    }

    @Test func uniquesScalarsButNeverMergesOneOneAndTrue() throws {
        let value: PlistValue = [1, 1.0, true, 1, 1.0, true, "s", "s"]
        let document = try BinaryPlistDocument(try encode(value))
        #expect(document.objectCount == 1 + 4)  // the array, 1, 1.0, true, "s"
        #expect(try document.decodeTopObject() == value)
    }

    @Test func uniquesRealsAndDatesByBitPattern() throws {
        let value: PlistValue = [.real(0.0), .real(-0.0), .real(.nan), .real(.nan),
                                 .date(PlistDate(secondsSinceReferenceDate: 0)), .date(PlistDate(secondsSinceReferenceDate: -0.0))]
        let document = try BinaryPlistDocument(try encode(value))
        #expect(document.objectCount == 1 + 5)
        let back = try document.decodeTopObject()
        #expect(back == value)
        #expect(back.arrayValue?[1].realValue?.sign == .minus)
    }

    @Test func neverUniquesCollections() throws {
        let value: PlistValue = [[1], [1], [:], [:]]
        let document = try BinaryPlistDocument(try encode(value))
        #expect(document.objectCount == 1 + 4 + 1)  // 4 collections, one shared integer
    }

    @Test func picksSmallestReferenceAndOffsetWidthsCoreFoundationAccepts() throws {
        // 254 distinct integers + the array = 255 objects: 1-byte references.
        let small = PlistValue.array((0..<254).map { .integer(PlistInteger(Int64($0))) })
        #expect(try BinaryPlistDocument(encode(small)).trailer.referenceWidth == 1)
        // 256 objects need 2-byte references (CoreFoundation requires 1 << (8 * width) > count).
        let larger = PlistValue.array((0..<255).map { .integer(PlistInteger(Int64($0))) })
        let doc = try BinaryPlistDocument(encode(larger))
        #expect(doc.objectCount == 256)
        #expect(doc.trailer.referenceWidth == 2)
        // A 70,000-byte string pushes offsets past 65,535: 3-byte offsets, as Apple's newer writer emits.
        let wide = PlistValue.array([.string(String(repeating: "x", count: 70_000)), "tail"])
        #expect(try BinaryPlistDocument(encode(wide)).trailer.offsetWidth == 3)
    }

    @Test func integerEncodings() throws {
        func marker(_ v: PlistValue) throws -> UInt8 { try encode(v)[8] }
        #expect(try marker(.integer(255)) == 0x10)
        #expect(try marker(.integer(256)) == 0x11)
        #expect(try marker(.integer(65_536)) == 0x12)
        #expect(try marker(.integer(PlistInteger(Int64(1) << 32))) == 0x13)
        #expect(try marker(.integer(-1)) == 0x13)  // negatives always take 8 bytes
        #expect(try marker(.integer(PlistInteger(UInt64(1) << 63))) == 0x14)  // 2^63 and up: 16 bytes
        #expect(try marker(.integer(PlistInteger(UInt64.max))) == 0x14)
        let big = PlistInteger(high: 5, low: 7)
        #expect(try PropertyList.decode(encode(.integer(big))) == .integer(big))
    }

    @Test func stringEncodings() throws {
        #expect(try encode("plain")[8] == 0x55)
        let accented = try encode("é")
        #expect(accented[8] == 0x61)
        #expect(Array(accented[9..<11]) == [0x00, 0xE9])
        let emoji = try encode("😀")
        #expect(emoji[8] == 0x62)  // a surrogate pair: two UTF-16 units
        let long = try encode(.string(String(repeating: "a", count: 15)))
        #expect(Array(long[8..<11]) == [0x5F, 0x10, 0x0F])
    }

    @Test func uidEncodings() throws {
        #expect(Array(try encode(.uid(PlistUID(5)))[8..<10]) == [0x80, 0x05])
        #expect(Array(try encode(.uid(PlistUID(300)))[8..<11]) == [0x81, 0x01, 0x2C])
        #expect(try encode(.uid(PlistUID(70_000)))[8] == 0x83)
    }

    @Test func refusesCollectionKeysAndExcessiveDepth() throws {
        var d = PlistDictionary()
        d.append(key: [1], value: 2)
        let keyError = #expect(throws: PlistError.self) { try encode(.dictionary(d)) }
        #expect(keyError?.code == .invalidKey)
        var deep: PlistValue = 1
        for _ in 0..<600 { deep = [deep] }
        let depthError = #expect(throws: PlistError.self) { try encode(deep) }
        #expect(depthError?.code == .depthLimitExceeded)
    }

    @Test func everyFixtureReencodesToAnEqualValue() throws {
        for file in FixtureFiles.dataFiles {
            let bytes = try FixtureFiles.bytes(file)
            guard PropertyList.detectFormat(bytes) == .binary, let value = try? PropertyList.decode(bytes) else { continue }
            let again = try encode(value)
            #expect(try PropertyList.decode(again) == value, "\(file)")
            #expect(try encode(PropertyList.decode(again)) == again, "\(file): writing is not stable")
        }
    }
}
