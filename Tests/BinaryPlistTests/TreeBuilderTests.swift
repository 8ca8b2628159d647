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
