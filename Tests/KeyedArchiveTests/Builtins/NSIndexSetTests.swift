import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// `NSIndexSet` as ``ArchivedIndexSet``: Apple's three layouts (none, one range, packed ranges), written back
/// as Apple writes them, and every malformed layout refused with the object's index.
@Suite("NSIndexSet")
struct NSIndexSetTests {
    typealias H = HostileArchive

    func root(_ path: String) throws -> ArchivedIndexSet? {
        try KeyedUnarchiver.unarchivedObject(ofType: ArchivedIndexSet.self, from: KeyedFixtures.bytes(path))
    }

    @Test func appleFixturesDecodeToTheirRanges() throws {
        let folder = "keyed/swift-corelibs-foundation/macOS-10.14/"
        #expect(try root(folder + "NSIndexSet-Empty.archive")?.ranges == [])
        #expect(try root(folder + "NSIndexSet-OneRange.archive")?.ranges == [0..<50])
        let many: [Range<Int>] = [0..<50, 100..<150, 1000..<1050, Int.max - 50..<Int.max]
        #expect(try root(folder + "NSIndexSet-ManyRanges.archive")?.ranges == many)
        #expect(try root(folder + "NSMutableIndexSet-ManyRanges.archive")?.ranges == many)
        #expect(try root(folder + "NSMutableIndexSet-OneRange.archive")?.count == 50)
    }

    @Test func writtenAsAppleWritesThemAndReadBack() throws {
        let set = ArchivedIndexSet(ranges: [5..<9, 0..<2, 1..<3, 200..<300])
        #expect(set.ranges == [0..<3, 5..<9, 200..<300])
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: set)
        let objects = try #require(PropertyList.decode(bytes).dictionaryValue?["$objects"]?.arrayValue)
        let object = try #require(objects[1].dictionaryValue)
        #expect(object["NSRangeCount"] == .integer(3))
        // 0,3  5,4  200,100: 200 is two packed bytes (0xC8 0x01), 100 one.
        let dataUID = try #require(object["NSRangeData"]?.uidValue)
        #expect(objects[Int(dataUID.value)].dataValue == [0, 3, 5, 4, 0xC8, 0x01, 100])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedIndexSet.self, from: bytes) == set)

        let one: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: [7..<10]))
        let oneObject = try #require(PropertyList.decode(one).dictionaryValue?["$objects"]?.arrayValue?[1].dictionaryValue)
        #expect(oneObject["NSLocation"] == .integer(7))
        #expect(oneObject["NSLength"] == .integer(3))
        #expect(oneObject["NSRangeData"] == nil)
        let none: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: []))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedIndexSet.self, from: none)?.ranges == [])
    }

    /// The packed integers at the width boundaries of their prefix: 127 is one byte, 128 two, 16383 two, 16384 three.
    @Test(arguments: [(127, [UInt8(127)]), (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01])])
    func packedLengthsAtTheirWidthBoundaries(length: Int, packed: [UInt8]) throws {
        let set = ArchivedIndexSet(ranges: [0..<1, 2..<2 + length])
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: set)
        let objects = try #require(PropertyList.decode(bytes).dictionaryValue?["$objects"]?.arrayValue)
        let dataUID = try #require(objects[1].dictionaryValue?["NSRangeData"]?.uidValue)
        #expect(objects[Int(dataUID.value)].dataValue == [0, 1, 2] + packed)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedIndexSet.self, from: bytes) == set)
    }

    static let malformed: [(String, [(String, PlistValue)], Bool)] = [
        ("no count", [], false),
        ("negative count", [("NSRangeCount", -1)], false),
        ("one range without its length", [("NSRangeCount", 1), ("NSLocation", 3)], false),
        ("an empty range", [("NSRangeCount", 1), ("NSLocation", 3), ("NSLength", 0)], false),
        ("a range past Int.max", [("NSRangeCount", 1), ("NSLocation", .integer(PlistInteger(Int64.max))), ("NSLength", 2)], false),
        ("packed data cut off", [("NSRangeCount", 2)], true),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedIndexSetsAreInvalidValuesAtTheirObject(_ index: Int) throws {
        let (_, fields, withData) = Self.malformed[index]
        var d = PlistDictionary()
        d["$class"] = H.uid(2)
        for (k, v) in fields { d[k] = v }
        var objects: [PlistValue] = ["$null", .dictionary(d), H.classEntry("NSIndexSet")]
        if withData {
            d["NSRangeData"] = H.uid(3)
            objects[1] = .dictionary(d)
            objects.append(.data([0, 3, 5, 0x84]))  // the fourth integer's byte says another follows
        }
        let bytes = try H.bytes(objects)
        let error = expectKeyedError(.invalidValue) {
            try KeyedUnarchiver.unarchivedObject(ofType: ArchivedIndexSet.self, from: bytes)
        }
        #expect(error?.objectIndex == 1)
    }
}
