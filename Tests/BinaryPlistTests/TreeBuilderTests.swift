import Testing
@testable import BinaryPlist

/// The tree builder keeps every value read on one stack and moves a collection's values into its array when it
/// ends; it passes over keys it has read before (a cache of 256 slots); the event reader reads UIDs of up to 8
/// bytes inline; a document checks its offset table in one pass for the largest entry. These tests hold each
/// to what the object accessor (or the event walk) reads and refuses.
@Suite("Binary plist tree: value stack, key cache, inline UIDs, offset table")
struct TreeBuilderTests {
    /// The tree, held to the tree built from the object accessor alone.
    func agree(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> PlistValue {
        try MaterializerFastPathTests().agree(bytes, sourceLocation: sourceLocation)
    }

    /// The error of the tree read, held to the error of the event walk (the same code, offset and object).
    func sameError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> PlistError {
        let document = try BinaryPlistDocument(bytes)
        let treeError = try #require(decodeError(bytes), sourceLocation: sourceLocation)
        var walkError: PlistError?
        do {
            _ = try document.withObjects { objects in try BinaryPlistEventTree.value(of: objects.topObject, in: objects) }
        } catch let error as PlistError {
            walkError = error
        }
        #expect(walkError?.code == treeError.code, sourceLocation: sourceLocation)
        #expect(walkError?.byteOffset == treeError.byteOffset, sourceLocation: sourceLocation)
        #expect(walkError?.objectIndex == treeError.objectIndex, sourceLocation: sourceLocation)
        return treeError
    }

    // MARK: UIDs

    @Test func uidsOfEveryWidthReadAsTheAccessorReadsThem() throws {
        for width in 1...16 {
            // Leading bytes zero (any width reads), then the same with the first byte set (wider than 8 bytes: refused).
            let low: [UInt8] = (0..<min(width, 8)).map { UInt8(0x11 &* ($0 + 1)) }
            let zeroLed = Array(repeating: UInt8(0), count: width - low.count) + low
            let tree = try agree(MaterializerFastPathTests.plist([[0x80 | UInt8(width - 1)] + zeroLed]))
            let expected = low.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(tree["k0"] == .uid(PlistUID(expected)), "width \(width)")
            if width > 8 {
                let wide = [0x80 | UInt8(width - 1), 1] + zeroLed.dropFirst()
                let error = try sameError(MaterializerFastPathTests.plist([wide]))
                #expect(error.code == .unsupportedValue, "width \(width)")
            }
        }
    }

    @Test func aUIDCutShortByTheOffsetTableIsRefusedWhereTheAccessorRefusesIt() throws {
        for width in 1...9 {
            var b = BPlistBuilder()
            _ = b.add([0xA1, 1])
            _ = b.add([0x80 | UInt8(width - 1)] + Array(repeating: 7, count: width - 1))
            let error = try sameError(b.build())
            #expect(error.code == .truncated, "width \(width)")
            #expect(error.objectIndex == 1)
            #expect(error.byteOffset == 10)
        }
    }

    // MARK: The value stack

    @Test func nestedEmptyAndLargeCollectionsBuildTheValueThatWasWritten() throws {
        // Empty collections of every kind, a set, dictionaries holding collections, nesting 200 deep, and more
        // values open at once than the stack starts with.
        var deep: PlistValue = []
        for i in 0..<200 {
            switch i % 4 {
            case 0: deep = .array([deep, .integer(PlistInteger(Int64(i))), [], .set([])])
            case 1: deep = .dictionary(PlistDictionary([(.string("d\(i)"), deep), (.string("e"), .dictionary(PlistDictionary()))]))
            case 2: deep = .set([deep, .string("s\(i)")])
            default: deep = .array([.data([UInt8(i & 0xFF)]), deep])
            }
        }
        let wide: PlistValue = .array((0..<1_000).map { i in .array((0..<(i % 21)).map { .integer(PlistInteger(Int64($0 * i))) }) })
        for value: PlistValue in [[], .set([]), .dictionary(PlistDictionary()), deep, wide, [wide, deep]] {
            let bytes = try PropertyList.encode(value, format: .binary)
            #expect(try agree(bytes) == value)
        }
    }

    @Test func anErrorDeepInsideOpenCollectionsIsTheEventWalksError() throws {
        // [ {k: [1, 2, {k: [3, <reference past the objects>]}]} ]: the read stops four collections down, with values
        // of each on the stack.
        var b = BPlistBuilder()
        _ = b.add([0xA1, 1])                     // 0: [1]
        _ = b.add([0xD1, 2, 3])                  // 1: {2: 3}
        _ = b.add([0x51, UInt8(ascii: "k")])     // 2: "k"
        _ = b.add([0xA3, 4, 5, 6])               // 3: [4, 5, 6]
        _ = b.add([0x10, 1])                     // 4: 1
        _ = b.add([0x10, 2])                     // 5: 2
        _ = b.add([0xD1, 2, 7])                  // 6: {2: 7}
        _ = b.add([0xA2, 8, 40])                 // 7: [8, 40]
        _ = b.add([0x10, 3])                     // 8: 3
        let error = try sameError(b.build())
        #expect(error.code == .invalidReference)
        #expect(error.objectIndex == 7)
        // The same with the reference in range reads.
        b.objects[7] = [0xA2, 8, 4]
        #expect(try agree(b.build()) == [["k": [1, 2, ["k": [3, 1]]]]])
    }

    @Test func aCollectionAsAKeyAfterValuesOnTheStackIsRefused() throws {
        // [1, {[]: 2}]: the key of the inner dictionary is an array.
        var b = BPlistBuilder()
        _ = b.add([0xA2, 1, 2])
        _ = b.add([0x10, 1])
        _ = b.add([0xD1, 3, 1])
        _ = b.add([0xA0])
        let error = try sameError(b.build())
        #expect(error.code == .invalidKey)
        #expect(error.objectIndex == 2)
    }

    // MARK: The key cache

    @Test func moreKeyObjectsThanCacheSlotsReadAsTheirOwnObjects() throws {
        // 40 dictionaries share 300 key objects (more than the 256 slots: slots are replaced), and have more
        // than 24 entries (each with its index).
        let keys = (0..<300).map { "key\($0)" }
        let value: PlistValue = .array((0..<40).map { i in
            .dictionary(PlistDictionary(keys.enumerated().map { (PlistValue.string($1), PlistValue.integer(PlistInteger(Int64(i * 1_000 + $0)))) }))
        })
        let bytes = try PropertyList.encode(value, format: .binary)
        let tree = try agree(bytes)
        #expect(tree == value)
        let last = try #require(tree.arrayValue?.last?.dictionaryValue)
        #expect(last["key0"] == .integer(39_000))
        #expect(last["key299"] == .integer(39_299))
        #expect(last["key300"] == nil)
    }

    @Test func aKeyObjectRepeatedInOneDictionaryKeepsEveryEntryAndTheFirstIsFound() throws {
        // Dictionaries of 30 entries (an index) and of 4 (a scan) whose keys are the same two string objects in
        // turn, after enough values that the key cache is made, and a non-string key among them.
        for entries in [30, 4] {
            var b = BPlistBuilder()
            let filler = 40
            // 0: [1 ... filler, dictionary]
            _ = b.add(MaterializerFastPathTests.countMarker(0xA0, filler + 1) + (1...filler + 1).map { UInt8($0) })
            for i in 0..<filler { _ = b.add([0x10, UInt8(i)]) }
            let dictionary = filler + 1
            let a = dictionary + 1, z = dictionary + 2, number = dictionary + 3
            var keys: [UInt8] = [], values: [UInt8] = []
            for i in 0..<entries {
                keys.append(UInt8(i == entries - 1 ? number : (i % 2 == 0 ? a : z)))
                values.append(UInt8(1 + i % filler))
            }
            _ = b.add(MaterializerFastPathTests.countMarker(0xD0, entries) + keys + values)
            _ = b.add([0x51, UInt8(ascii: "a")])
            _ = b.add([0x51, UInt8(ascii: "z")])
            _ = b.add([0x10, 99])
            let tree = try agree(b.build())
            let d = try #require(tree.arrayValue?.last?.dictionaryValue)
            #expect(d.count == entries)
            #expect(d["a" as String] == .integer(0))
            #expect(d["z" as String] == .integer(1))
            #expect(d[PlistValue.integer(99)] == .integer(PlistInteger(Int64((entries - 1) % filler))))
            #expect(d.entries.filter { $0.key == .string("a") }.count == entries / 2)
        }
    }

    // MARK: The offset table

    @Test(arguments: [1, 2, 3, 8])
    func theFirstOffsetOutsideTheObjectAreaIsReportedAtItsEntry(offsetWidth: Int) throws {
        func plist(_ overrides: [Int: UInt64]) -> [UInt8] {
            var b = BPlistBuilder()
            b.offsetWidth = offsetWidth
            _ = b.add([0xA5, 1, 2, 3, 4, 5])
            for i in 1...5 { _ = b.add([0x10, UInt8(i)]) }
            b.offsetOverrides = overrides
            return b.build()
        }
        let table = 8 + 6 + 5 * 2
        for (overrides, first) in [([2: 3, 4: UInt64(table)], 2), ([4: UInt64(table)], 4), ([5: 7, 1: UInt64(table + 1)], 1),
                                   ([0: 0], 0), ([3: UInt64.max >> (64 - 8 * offsetWidth)], 3)] {
            let error = try #require(decodeError(plist(overrides)), "\(overrides)")
            #expect(error.code == .invalidOffset, "\(overrides)")
            #expect(error.objectIndex == first, "\(overrides)")
            #expect(error.byteOffset == table + first * offsetWidth, "\(overrides)")
        }
        // The first and last bytes of the object area are offsets a document accepts.
        #expect(throws: Never.self) { try BinaryPlistDocument(plist([1: 8, 2: UInt64(table - 1)])) }
        #expect(try agree(plist([:])) == [1, 2, 3, 4, 5])
    }
}
