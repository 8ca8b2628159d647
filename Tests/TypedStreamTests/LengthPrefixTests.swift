import Foundation
import Testing
import TypedStream

/// Every integer and length width at its boundaries: the byte itself (-110...127), `0x81` and 2 bytes,
/// `0x82` and 4, `0x87` and 8; lengths are unsigned, so `0x81 00 80` is 32768, not -32768.
@Suite("Length prefixes")
struct LengthPrefixTests {
    /// The bytes after the header and the `+` group of an NSString of `length` ASCII bytes, up to the text.
    func stringPrefix(length: Int) throws -> [UInt8] {
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: String(repeating: "a", count: length)) as [UInt8]
        let plus = try #require(bytes.firstIndex(of: UInt8(ascii: "+")))
        return Array(bytes[(plus + 1)...].prefix(length < 128 ? 1 : length < 65536 ? 3 : 5))
    }

    @Test(arguments: [
        (0, [0x00]), (127, [0x7f]), (128, [0x81, 0x80, 0x00]), (255, [0x81, 0xff, 0x00]),
        (32767, [0x81, 0xff, 0x7f]), (32768, [0x81, 0x00, 0x80]), (65535, [0x81, 0xff, 0xff]),
        (65536, [0x82, 0x00, 0x00, 0x01, 0x00]),
    ] as [(Int, [UInt8])])
    func stringLengthsTakeTheShortestPrefixAndReadBack(_ length: Int, _ prefix: [UInt8]) throws {
        #expect(try stringPrefix(length: length) == prefix)
        let text = String(repeating: "a", count: length)
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: text) as [UInt8]
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? String == text)
    }

    /// The stream of one NSString whose `+` length is given by `lengthBytes`, and `count` characters.
    func handMadeString(lengthBytes: [UInt8], count: Int) -> [UInt8] {
        header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8) + [0x01, 0x84, 0x84, 0x08]
            + Array("NSObject".utf8) + [0x00, 0x85, 0x84, 0x01, 0x2b] + lengthBytes
            + [UInt8](repeating: UInt8(ascii: "b"), count: count) + [0x86]
    }

    @Test func aLengthOf32768In16BitsIsUnsigned() throws {
        let bytes = handMadeString(lengthBytes: [0x81, 0x00, 0x80], count: 32768)
        #expect((try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? String)?.utf8.count == 32768)
    }

    @Test func aLengthOf40000In16BitsIsReadWhole() throws {
        let bytes = handMadeString(lengthBytes: [0x81, 0x40, 0x9c], count: 40000)
        #expect((try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? String)?.utf8.count == 40000)
    }

    @Test func aLengthIn32BitsIsRead() throws {
        let bytes = handMadeString(lengthBytes: [0x82, 0x70, 0x11, 0x01, 0x00], count: 70000)
        #expect((try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? String)?.utf8.count == 70000)
    }

    /// The stream of `value` written as one value of `type`: the header, `type` as a type string, the value.
    func oneValueStream(_ value: Any, ofObjCType type: String) throws -> [UInt8] {
        let archiver = TypedStreamArchiver()
        archiver.encodeValue(value, ofObjCType: type)
        return try archiver.finishEncoding()
    }

    @Test(arguments: [
        (Int64(0), [0x00]), (-1, [0xff]), (-110, [0x92]), (-111, [0x81, 0x91, 0xff]), (127, [0x7f]),
        (128, [0x81, 0x80, 0x00]), (-128, [0x81, 0x80, 0xff]), (32767, [0x81, 0xff, 0x7f]),
        (32768, [0x82, 0x00, 0x80, 0x00, 0x00]), (-32768, [0x81, 0x00, 0x80]), (-32769, [0x82, 0xff, 0x7f, 0xff, 0xff]),
        (Int64(Int32.max), [0x82, 0xff, 0xff, 0xff, 0x7f]), (Int64(Int32.min), [0x82, 0x00, 0x00, 0x00, 0x80]),
        (Int64(Int32.max) + 1, [0x87, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00]),
        (Int64.min, [0x87, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80]),
    ] as [(Int64, [UInt8])])
    func signedIntegersAtEveryWidth(_ value: Int64, _ encoded: [UInt8]) throws {
        let bytes = try oneValueStream(value, ofObjCType: "q")
        #expect(bytes == header + [0x84, 0x01, UInt8(ascii: "q")] + encoded)
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes)
        #expect(try unarchiver.decodeValue(ofObjCType: "q") as? Int64 == value)
        #expect(unarchiver.isAtEnd)
    }

    @Test(arguments: [
        (UInt64(127), [0x7f]), (128, [0x81, 0x80, 0x00]), (65535, [0x81, 0xff, 0xff]),
        (65536, [0x82, 0x00, 0x00, 0x01, 0x00]), (UInt64(UInt32.max), [0x82, 0xff, 0xff, 0xff, 0xff]),
        (UInt64.max, [0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ] as [(UInt64, [UInt8])])
    func unsignedIntegersAtEveryWidth(_ value: UInt64, _ encoded: [UInt8]) throws {
        let bytes = try oneValueStream(value, ofObjCType: "Q")
        #expect(bytes == header + [0x84, 0x01, UInt8(ascii: "Q")] + encoded)
        #expect(try TypedStreamUnarchiver(forReadingWith: bytes).decodeValue(ofObjCType: "Q") as? UInt64 == value)
    }

    @Test func referenceNumbersPast127Take16Bits() throws {
        // 300 distinct keys: shared strings and objects past the 238 that fit one byte.
        var d: [String: Int] = [:]
        for i in 0..<300 { d["key\(i)"] = i }
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: d) as [UInt8]
        let back = try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? [AnyHashable: Any])
        #expect(back.count == 300)
        #expect(back["key299"] as? Int == 299)
        #expect(back["key0"] as? Int == 0)
    }

    @Test func realsAreIntegersWhenIntegralAndTaggedOtherwise() throws {
        let archiver = TypedStreamArchiver()
        archiver.encodeValues([2.0, 0.5, -0.0], ofObjCTypes: "ddd")
        archiver.encodeValue(Float(1.5), ofObjCType: "f")
        let bytes = try archiver.finishEncoding()
        #expect(bytes == header + [0x84, 0x03] + Array("ddd".utf8) + [0x02]
                + [0x83, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f] + [0x83, 0, 0, 0, 0, 0, 0, 0, 0x80]
                + [0x84, 0x01, UInt8(ascii: "f"), 0x83, 0x00, 0x00, 0xc0, 0x3f])
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes)
        let reals = try unarchiver.decodeValues(ofObjCTypes: "ddd")
        #expect(reals.map { $0 as? Double } == [2.0, 0.5, -0.0])
        #expect((reals[2] as? Double)?.sign == .minus)
        #expect(try unarchiver.decodeValue(ofObjCType: "f") as? Float == 1.5)
    }
}
