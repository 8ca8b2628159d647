import Testing
import TestSupport
@testable import BinaryPlist

/// Hostile and malformed binary plists: each must fail with a typed error, never trap or blow up.
@Suite("Hostile binary input")
struct HostileInputTests {
    /// A small valid plist: {"key": [1, "two", 3.0]}.
    static let small: [UInt8] = {
        var b = BPlistBuilder()
        _ = b.add([0xD1, 1, 2])
        _ = b.add([0x53] + Array("key".utf8))
        _ = b.add([0xA3, 3, 4, 5])
        _ = b.add([0x10, 1])
        _ = b.add([0x53] + Array("two".utf8))
        _ = b.add([0x23] + bigEndian(3.0.bitPattern, width: 8))
        return b.build()
    }()

    /// References of 8 bytes whose value is above `Int32.max` (it would wrap into a valid object number when
    /// narrowed to a 32-bit `Int`) or above `Int.max` (it would turn negative on a 64-bit one): each is refused as
    /// out of range with its whole value, by the tree reader and by the object accessor, never truncated.
    @Test(arguments: [UInt64(1) << 32 | 1, UInt64(Int32.max) + 2, UInt64(Int.max) + 2, UInt64.max])
    func referencesAboveThePlatformsIntAreRefusedNotTruncated(reference: UInt64) throws {
        var b = BPlistBuilder()
        b.referenceWidth = 8
        _ = b.add([0xA2] + bigEndian(1, width: 8) + bigEndian(reference, width: 8))
        _ = b.add([0x10, 7])
        let bytes = b.build()
        let error = try #require(decodeError(bytes))
        #expect(error.code == .invalidReference)
        #expect(error.description.contains("reference \(reference) "))
        let document = try BinaryPlistDocument(bytes)
        let viaObjects: PlistError? = document.withObjects { objects -> PlistError? in
            guard case .array(let array)? = try? objects.value(0) else { return nil }
            do throws(PlistError) {
                _ = try objects.elementReference(array, 1)
                return nil
            } catch {
                return error
            }
        }
        #expect(viaObjects?.code == .invalidReference)
    }

    @Test func smallFixtureIsValid() throws {
        #expect(try PropertyList.decode(Self.small) == ["key": [1, "two", 3.0]])
    }

    @Test func truncationAtEveryLengthFailsWithATypedError() {
        for length in 0..<Self.small.count {
            let error = decodeError(Array(Self.small.prefix(length)))
            #expect(error != nil, "prefix of \(length) bytes")
        }
    }

    @Test func badMagic() {
        var bytes = Self.small
        bytes[0] = UInt8(ascii: "c")
        #expect(decodeError(bytes)?.code == .unknownFormat)
        var wrongVersion = Self.small
        wrongVersion[6] = UInt8(ascii: "1")  // "bplist10"
        #expect(decodeError(wrongVersion)?.code == .unknownFormat)
    }

    @Test func acceptsAnyBplist0Version() throws {
        var bytes = Self.small
        bytes[7] = UInt8(ascii: "1")  // "bplist01", as CoreFoundation accepts
        #expect(try PropertyList.decode(bytes) == ["key": [1, "two", 3.0]])
    }

    @Test(arguments: [0, 9, 200])
    func offsetWidthOutOfRange(width: Int) {
        var bytes = Self.small
        bytes[bytes.count - 26] = UInt8(width)
        #expect(decodeError(bytes)?.code == .invalidTrailer)
    }

    @Test(arguments: [0, 9, 255])
    func referenceWidthOutOfRange(width: Int) {
        var bytes = Self.small
        bytes[bytes.count - 25] = UInt8(width)
        #expect(decodeError(bytes)?.code == .invalidTrailer)
    }

    @Test(arguments: [UInt64(0), 7, 1 << 40, UInt64.max])
    func objectCountOutOfRange(count: UInt64) {
        var b = BPlistBuilder()
        b.objects = [[0xD1, 1, 2], [0x53] + Array("key".utf8), [0x10, 1]]
        b.objectCountOverride = count
        #expect(decodeError(b.build())?.code == .invalidTrailer)
    }

    @Test(arguments: [UInt64(6), 7, UInt64.max])
    func topObjectOutOfRange(top: UInt64) {
        var bytes = Self.small
        let at = bytes.count - 16
        bytes.replaceSubrange(at..<(at + 8), with: bigEndian(top, width: 8))
        #expect(decodeError(bytes)?.code == .invalidTrailer)
    }

    @Test(arguments: [UInt64(0), 8, 3, UInt64.max, 1 << 63])
    func offsetTablePositionOutOfRange(position: UInt64) {
        var b = BPlistBuilder()
        b.objects = [[0x10, 1]]
        b.tableOffsetOverride = position
        #expect(decodeError(b.build())?.code == .invalidTrailer)
    }

    @Test func offsetTableRunningIntoTheTrailer() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 0], [0x10, 1]]
        b.objectCountOverride = 3  // the table claims one entry more than it has
        #expect(decodeError(b.build())?.code == .invalidTrailer)
    }

    @Test func referenceWidthTooSmallForTheObjectCount() {
        // 256 objects cannot be addressed with 1-byte references (CoreFoundation's rule).
        var b = BPlistBuilder()
        b.objects = [[0xA1, 1]] + Array(repeating: [0x10, 7], count: 255)
        b.offsetWidth = 2
        #expect(decodeError(b.build())?.code == .invalidTrailer)
    }

    @Test func offsetsIntoTheHeader() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 1], [0x10, 1]]
        b.offsetOverrides = [1: 3]
        let error = decodeError(b.build())
        #expect(error?.code == .invalidOffset)
        #expect(error?.objectIndex == 1)
    }

    @Test func offsetsIntoTheOffsetTableOrTrailer() {
        for target in [UInt64(12), 13, 20, 40] {
            var b = BPlistBuilder()
            b.objects = [[0xA1, 1], [0x10, 1]]
            b.offsetOverrides = [1: target]
            let bytes = b.build()
            #expect(decodeError(bytes)?.code == .invalidOffset, "offset \(target) in \(bytes.count) bytes")
        }
    }

    /// Markers followed by an extended count of 2^62: data, ASCII, UTF-16, array, set, dictionary.
    @Test(arguments: [UInt8(0x4F), 0x5F, 0x6F, 0xAF, 0xCF, 0xDF])
    func countOf2To62(marker: UInt8) {
        var b = BPlistBuilder()
        b.objects = [[marker, 0x13] + bigEndian(1 << 62, width: 8)]
        let error = decodeError(b.build())
        #expect(error?.code == .invalidCount)
        #expect(error?.description.contains("2^62") == true)
        #expect(error?.objectIndex == 0)
    }

    @Test(arguments: [UInt8(0x4F), 0x5F, 0x6F, 0xAF, 0xCF, 0xDF])
    func countOf2To63AndMore(marker: UInt8) {
        var b = BPlistBuilder()
        b.objects = [[marker, 0x13] + bigEndian(UInt64.max, width: 8)]
        #expect(decodeError(b.build())?.code == .invalidCount)
    }

    @Test func countMarkerThatIsNotAnInteger() {
        var b = BPlistBuilder()
        b.objects = [[0x5F, 0x23] + bigEndian(1, width: 8)]
        #expect(decodeError(b.build())?.code == .invalidCount)
    }

    @Test func selfReferencingArray() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 0]]
        #expect(decodeError(b.build())?.code == .cycle)
    }

    @Test func selfReferencingDictionaryValue() {
        var b = BPlistBuilder()
        b.objects = [[0xD1, 1, 0], [0x51, 0x61]]
        #expect(decodeError(b.build())?.code == .cycle)
    }

    @Test func mutuallyReferencingCollections() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 1], [0xC1, 2], [0xD1, 3, 0], [0x51, 0x6B]]
        let error = decodeError(b.build())
        #expect(error?.code == .cycle)
    }

    @Test func depth10000() {
        // 10,000 nested one-element arrays, 2-byte refs and 2-byte offsets... then a leaf.
        var b = BPlistBuilder()
        b.offsetWidth = 3
        b.referenceWidth = 2
        for i in 0..<10_000 { b.objects.append([0xA1] + bigEndian(UInt64(i + 1), width: 2)) }
        b.objects.append([0x10, 1])
        let error = decodeError(b.build())
        #expect(error?.code == .depthLimitExceeded)
        var deep = PlistLimits()
        deep.maxDepth = 20_000
        // With a raised limit the same file decodes (the reader does not depend on stack depth below it).
        #expect(decodeError(b.build(), limits: deep) == nil)
    }

    @Test func depthLimitIsConfigurable() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 1], [0xA1, 2], [0xA1, 3], [0x10, 1]]
        var limits = PlistLimits()
        limits.maxDepth = 2
        #expect(decodeError(b.build(), limits: limits)?.code == .depthLimitExceeded)
        limits.maxDepth = 3
        #expect(decodeError(b.build(), limits: limits) == nil)
    }

    /// A ~200-byte file: 60 arrays each holding the next twice. Expanded it would hold 2^60 values.
    @Test func exponentialExpansionIsBounded() {
        var b = BPlistBuilder()
        for i in 0..<60 { b.objects.append([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        b.objects.append([0x10, 1])
        let bytes = b.build()
        #expect(bytes.count < 300)
        let error = decodeError(bytes)
        #expect(error?.code == .elementLimitExceeded)
        var small = PlistLimits()
        small.maxElements = 1000
        #expect(decodeError(bytes, limits: small)?.code == .elementLimitExceeded)
    }

    @Test func sixteenByteIntegers() throws {
        var b = BPlistBuilder()
        b.objects = [[0xA3, 1, 2, 3],
                     [0x14] + bigEndian(0, width: 8) + bigEndian(UInt64.max, width: 8),
                     [0x14] + bigEndian(UInt64.max, width: 8) + bigEndian(UInt64.max, width: 8),
                     [0x14] + bigEndian(1, width: 8) + bigEndian(0, width: 8)]
        let value = try PropertyList.decode(b.build())
        let items = try #require(value.arrayValue)
        #expect(items[0] == .integer(PlistInteger(UInt64.max)))
        #expect(items[1] == .integer(PlistInteger(-1)))
        #expect(items[2].integerValue?.description == "18446744073709551616")  // 2^64
        // Integers wider than 16 bytes (marker 0x15) are refused.
        var wide = BPlistBuilder()
        wide.objects = [[0x15] + Array(repeating: 0, count: 32)]
        #expect(decodeError(wide.build())?.code == .invalidMarker)
    }

    @Test func threeByteOffsetsAndReferences() throws {
        var b = BPlistBuilder()
        b.offsetWidth = 3
        b.referenceWidth = 3
        b.objects = [[0xA2, 0, 0, 1, 0, 0, 2], [0x51, 0x78], [0x10, 9]]
        #expect(try PropertyList.decode(b.build()) == ["x", 9])
        b.offsetWidth = 5
        b.referenceWidth = 7
        b.objects = [[0xA2] + bigEndian(1, width: 7) + bigEndian(2, width: 7), [0x51, 0x78], [0x10, 9]]
        #expect(try PropertyList.decode(b.build()) == ["x", 9])
    }

    @Test func referenceOutOfRange() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 9], [0x10, 1]]
        let error = decodeError(b.build())
        #expect(error?.code == .invalidReference)
        #expect(error?.objectIndex == 0)
    }

    @Test(arguments: [UInt8(0x0F), 0x01, 0x70, 0x90, 0xB0, 0xE0, 0xF0, 0x21, 0x24, 0x32, 0x15])
    func unknownMarkers(marker: UInt8) {
        var b = BPlistBuilder()
        b.objects = [[marker] + Array(repeating: 0, count: 16)]
        #expect(decodeError(b.build())?.code == .invalidMarker)
    }

    @Test func collectionAsDictionaryKey() {
        var b = BPlistBuilder()
        b.objects = [[0xD1, 1, 2], [0xA0], [0x10, 1]]
        #expect(decodeError(b.build())?.code == .invalidKey)
    }

    @Test func invalidUTF16InStrictMode() throws {
        var b = BPlistBuilder()
        b.objects = [[0x61, 0xD8, 0x00]]  // a lone high surrogate
        var strict = PlistLimits()
        strict.stringPolicy = .strict
        #expect(decodeError(b.build(), limits: strict)?.code == .invalidString)
        // Lenient (default): U+FFFD.
        #expect(try PropertyList.decode(b.build()) == .string("\u{FFFD}"))
    }

    @Test func nonASCIIBytesInASCIIStringsAreReadAsLatin1WhenNotUTF8() throws {
        var b = BPlistBuilder()
        b.objects = [[0x52, 0xE9, 0x41]]  // "éA" in Latin-1; not valid UTF-8
        #expect(try PropertyList.decode(b.build()) == .string("éA"))
        var u = BPlistBuilder()
        u.objects = [[0x52, 0xC3, 0xA9]]  // "é" in UTF-8
        #expect(try PropertyList.decode(u.build()) == .string("é"))
    }

    @Test func inputLargerThanTheLimit() {
        var limits = PlistLimits()
        limits.maxInputBytes = 16
        #expect(decodeError(Self.small, limits: limits)?.code == .invalidCount)
    }

    @Test func errorsSayWhereAndWhy() {
        var b = BPlistBuilder()
        b.objects = [[0xA1, 1], [0x5F, 0x13] + bigEndian(1 << 62, width: 8)]
        let error = decodeError(b.build())
        #expect(error?.description == "bplist: object 1 at byte 10: count 2^62 exceeds the 0 bytes left")
    }

    /// A chain of 40 one-element arrays whose last refers back to object `target`.
    static func chain(backTo target: UInt64) -> [UInt8] {
        var b = BPlistBuilder()
        for i in 0..<40 { b.objects.append([0xA1, UInt8(i + 1)]) }
        b.objects[39] = [0xA1, UInt8(target)]
        return b.build()
    }

    @Test(arguments: [3, 30])
    func aCycleFarBelowTheTopIsFound(target: UInt64) {
        let error = decodeError(Self.chain(backTo: target))
        #expect(error?.code == .cycle)
        #expect(error?.objectIndex == Int(target))
    }

    @Test func aCollectionSharedDeepDownIsNotACycle() throws {
        // [A, A], A a chain of 30 one-element arrays ending in 1: the path leaves A before meeting it again.
        var b = BPlistBuilder()
        b.objects.append([0xA2, 1, 1])
        for i in 1...30 { b.objects.append([0xA1, UInt8(i + 1)]) }
        b.objects.append([0x10, 1])
        var a: PlistValue = 1
        for _ in 0..<30 { a = .array([a]) }
        #expect(try PropertyList.decode(b.build()) == .array([a, a]))
    }

    @Test func materializingEachOfManyObjectsAloneTakesLinearTime() throws {
        // 150,000 arrays of a 300,001-object document decoded one by one: nothing in proportion to the document
        // is set up for each (it was, quadratically: over a minute in a debug build; now under a second).
        var b = BPlistBuilder()
        b.offsetWidth = 4
        b.referenceWidth = 4
        let count = 150_000
        b.objects.append([0xAF, 0x12] + bigEndian(UInt64(count), width: 4) + (0..<count).flatMap { bigEndian(UInt64(2 * $0 + 1), width: 4) })
        for i in 0..<count {
            b.objects.append([0xA1] + bigEndian(UInt64(2 * i + 2), width: 4))
            b.objects.append([0x10, UInt8(i & 0x7F)])
        }
        let document = try BinaryPlistDocument(b.build())
        var total = 0
        let seconds = try Stopwatch.seconds {
            for i in stride(from: 1, to: document.objectCount, by: 2) {
                if case .array(let items) = try document.decodeObject(i) { total += items.count }
            }
        }
        #expect(total == count)
        #expect(seconds < 15)
    }
}
