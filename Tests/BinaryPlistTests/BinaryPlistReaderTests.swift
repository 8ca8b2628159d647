import Testing
@testable import BinaryPlist

@Suite("Binary plist reader")
struct BinaryPlistReaderTests {
    @Test("reads every offset width from 1 to 8 bytes", arguments: 1...8)
    func readsEveryOffsetWidth(width: Int) throws {
        let name = width == 1 ? "off1byte" : "off\(width)bytes"
        let bytes = try FixtureFiles.bytes("bplist/libplist-LGPL/\(name).bplist")
        let document = try BinaryPlistDocument(bytes)
        #expect(document.trailer.offsetWidth == width)
        #expect(try document.decodeTopObject() == ["A": "B"])
    }

    @Test("reads every reference width from 1 to 8 bytes", arguments: 1...8)
    func readsEveryReferenceWidth(width: Int) throws {
        let name = width == 1 ? "dictref1byte" : "dictref\(width)bytes"
        let bytes = try FixtureFiles.bytes("bplist/libplist-LGPL/\(name).bplist")
        let document = try BinaryPlistDocument(bytes)
        #expect(document.trailer.referenceWidth == width)
        #expect(try document.decodeTopObject() == ["A": "B"])
    }

    @Test func readsThreeByteOffsetTable() throws {
        let bytes = try FixtureFiles.bytes("bplist/rust-plist/binary_three_byte_integer_offset_table.plist")
        let document = try BinaryPlistDocument(bytes)
        #expect(document.trailer.offsetWidth == 3)
        let value = try document.decodeTopObject()
        #expect(value.dictionaryValue?.count ?? 0 > 0)
    }

    @Test func keepsUnsigned64BitValuesApartFromNegatives() throws {
        let unsigned = try PropertyList.decode(FixtureFiles.bytes("bplist/libplist-LGPL/unsigned.bplist"))
        let signed = try PropertyList.decode(FixtureFiles.bytes("bplist/libplist-LGPL/signed.bplist"))
        #expect(unsigned == .integer(PlistInteger(UInt64.max)))
        #expect(unsigned.integerValue?.isNegative == false)
        #expect(signed == .integer(PlistInteger(-1)))
        let both = try PropertyList.decode(FixtureFiles.bytes("bplist/libplist-LGPL/signedunsigned.bplist"))
        #expect(both == .array([.integer(-1), .integer(PlistInteger(UInt64.max)), .integer(PlistInteger(Int64.max)), .integer(PlistInteger(Int64.min)), .integer(PlistInteger(UInt64(1) << 63))]))
        let int64 = try PropertyList.decode(FixtureFiles.bytes("bplist/node-bplist-parser/int64.bplist"))
        #expect(int64.dictionaryValue?.values.contains { $0.integerValue?.uint64Value ?? 0 > UInt64(Int64.max) } == true)
    }

    @Test func readsUIDTopObject() throws {
        let value = try PropertyList.decode(FixtureFiles.bytes("bplist/libplist-LGPL/uid.bplist"))
        guard case .uid = value else {
            Issue.record("expected a UID, got \(value)")
            return
        }
    }

    @Test func readsInfinitiesAndFloat32() throws {
        let inf = try PropertyList.decode(FixtureFiles.bytes("bplist/dd-plist/infinity-binary.plist"))
        #expect(inf["a"] == .real(.infinity))
        #expect(inf["b"] == .real(-.infinity))
        let f32 = try PropertyList.decode(FixtureFiles.bytes("bplist/dd-plist/issue16.plist"))
        #expect(f32 == .real(Double(Float(2.71828))))
    }

    @Test func readsSurrogatePairsInUTF16Strings() throws {
        let value = try PropertyList.decode(FixtureFiles.bytes("bplist/dd-plist/issue22-emoji.plist"))
        #expect(value["emojiString"] == .string("Test Test, 😰❔👍👎🔥"))
    }

    @Test func readsDates() throws {
        let value = try PropertyList.decode(FixtureFiles.bytes("bplist/dd-plist/test1-binary.plist"))
        // 2011-11-28T09:21:30Z is 344_164_890 s after 2001-01-01.
        #expect(value["date"] == .date(PlistDate(secondsSinceReferenceDate: 344_164_890)))
    }

    @Test func readsNonStringScalarKeysAsCoreFoundationWritesThem() throws {
        let value = try PropertyList.decode(FixtureFiles.bytes("bplist/swift-foundation/Test_82142612.bad"))
        let dict = try #require(value.dictionaryValue)
        #expect(dict.count == 1)
        #expect(dict.hasOnlyStringKeys == false)
        #expect(dict.entries[0].key.dataValue?.count == 11)
        #expect(dict.entries[0].value == "39110FF6-EE38-473D-831B-C395BCC4C399")
    }

    @Test func lazyObjectAccessMatchesMaterializedTree() throws {
        let bytes = try FixtureFiles.bytes("bplist/bpylist2/dict_nested.plist")
        let document = try BinaryPlistDocument(bytes)
        let (keys, values): ([Int], [Int]) = try document.withObjects { objects throws(PlistError) in
            guard case .dictionary(let d) = try objects.object(objects.topObject) else { return ([], []) }
            return (try (0..<d.count).map { i throws(PlistError) in try objects.keyReference(d, i) },
                    try (0..<d.count).map { i throws(PlistError) in try objects.valueReference(d, i) })
        }
        let tree = try #require(try document.decodeTopObject().dictionaryValue)
        #expect(keys.count == tree.count && keys.count > 0)
        for i in 0..<keys.count {
            let key = try document.decodeObject(keys[i])
            #expect(tree[key] == (try document.decodeObject(values[i])))
        }
    }

    @Test func readsASCIIStringsHoldingUTF8LenientlyAndRefusesThemStrictly() throws {
        let bytes = try FixtureFiles.bytes("bplist/node-bplist-parser/sample1.bplist")
        let lenient = try PropertyList.decode(bytes)
        #expect(lenient.dictionaryValue != nil)
        var strict = PlistLimits()
        strict.stringPolicy = .strict
        let error = #expect(throws: PlistError.self) { try PropertyList.decode(bytes, limits: strict) }
        #expect(error?.code == .invalidString)
        #expect(error?.objectIndex != nil)
    }

    /// Both self-referencing fixtures also have an offset table that does not end at the trailer, which
    /// CoreFoundation refuses before looking at any object; so do we. Cycles are tested in HostileInputTests.
    @Test func refusesCircularFixturesByTheirTrailer() throws {
        for name in ["bplist/rust-plist/binary_circular_array.plist", "bplist/libplist-LGPL/recursion.bplist"] {
            let bytes = try FixtureFiles.bytes(name)
            let error = #expect(throws: PlistError.self) { try PropertyList.decode(bytes) }
            #expect(error?.code == .invalidTrailer, "\(name)")
        }
    }

    @Test func sharedButAcyclicObjectsAreNotCycles() throws {
        // [x, x] where x = ["a"]: the same array referenced twice is legal.
        var b: [UInt8] = Array("bplist00".utf8)
        b += [0xA2, 1, 1]  // object 0 at 8: array of two refs to 1
        b += [0xA1, 2]  // object 1 at 11: array [ref 2]
        b += [0x51, 0x61]  // object 2 at 13: "a"
        let table = b.count
        b += [8, 11, 13]
        b += [0, 0, 0, 0, 0, 0, 1, 1] + be(3) + be(0) + be(UInt64(table))
        let value = try PropertyList.decode(b)
        #expect(value == [["a"], ["a"]])
    }
}

/// 8 big-endian bytes.
func be(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> UInt64(56 - 8 * $0)) } }
