import Testing
@testable import BinaryPlist

/// The event reader (and so the tree built on it) reads the common scalars (plain ASCII strings, integers of up
/// to 8 bytes, 8-byte reals and dates, booleans) inline and every other object through
/// ``BinaryPlistObjects/scalar(_:start:marker:)``; it checks each collection's references in one pass for the
/// largest. These tests hold both to what the object accessor reads and refuses, object by object.
@Suite("Binary plist tree: inline reads agree with the object accessor")
struct MaterializerFastPathTests {
    /// The tree below `index` built from ``BinaryPlistObjects/object(_:)`` alone (the general scalar path).
    static func viaAccessor(_ objects: BinaryPlistObjects, _ index: Int) throws(PlistError) -> PlistValue {
        switch try objects.object(index) {
        case .scalar(let value):
            return value
        case .array(let a):
            return .array(try elements(objects, a))
        case .set(let a):
            return .set(try elements(objects, a))
        case .dictionary(let d):
            var entries: [PlistDictionary.Entry] = []
            for i in 0..<d.count {
                entries.append(.init(key: try viaAccessor(objects, objects.keyReference(d, i)),
                                     value: try viaAccessor(objects, objects.valueReference(d, i))))
            }
            return .dictionary(PlistDictionary(entries: entries))
        }
    }

    static func elements(_ objects: BinaryPlistObjects, _ a: BinaryPlistObjects.ArrayView) throws(PlistError) -> [PlistValue] {
        var items: [PlistValue] = []
        for i in 0..<a.count { items.append(try viaAccessor(objects, objects.elementReference(a, i))) }
        return items
    }

    /// A dictionary of `values` under keys `k0`, `k1`, ... (one array holding them when `asArray`).
    static func plist(_ values: [[UInt8]], referenceWidth: Int = 1, asArray: Bool = false) -> [UInt8] {
        var b = BPlistBuilder()
        b.referenceWidth = referenceWidth
        b.offsetWidth = 2
        let n = values.count
        let collection: [UInt8] = asArray ? countMarker(0xA0, n) : countMarker(0xD0, n)
        var refs: [UInt8] = []
        let first = 1
        if !asArray {
            for i in 0..<n { refs += bigEndian(UInt64(first + n + i), width: referenceWidth) }
        }
        for i in 0..<n { refs += bigEndian(UInt64(first + i), width: referenceWidth) }
        _ = b.add(collection + refs)
        for v in values { _ = b.add(v) }
        if !asArray { for i in 0..<n { _ = b.add(ascii("k\(i)")) } }
        return b.build()
    }

    static func countMarker(_ kind: UInt8, _ n: Int) -> [UInt8] {
        if n < 15 { return [kind | UInt8(n)] }
        if n < 256 { return [kind | 0x0F, 0x10, UInt8(n)] }
        if n < 65_536 { return [kind | 0x0F, 0x11] + bigEndian(UInt64(n), width: 2) }
        return [kind | 0x0F, 0x12] + bigEndian(UInt64(n), width: 4)
    }

    /// An ASCII string object whose length is in the marker or in a count of `countWidth` bytes.
    static func ascii(_ s: String, countWidth: Int? = nil) -> [UInt8] {
        let bytes = Array(s.utf8)
        guard let countWidth else { return countMarker(0x50, bytes.count) + bytes }
        let m: UInt8 = switch countWidth { case 1: 0x10; case 2: 0x11; case 4: 0x12; default: 0x13 }
        return [0x5F, m] + bigEndian(UInt64(bytes.count), width: countWidth) + bytes
    }

    func agree(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> PlistValue {
        let document = try BinaryPlistDocument(bytes)
        let tree = try document.decodeTopObject()
        let accessor = try document.withObjects { objects throws(PlistError) in
            try Self.viaAccessor(objects, objects.topObject)
        }
        #expect(tree == accessor, sourceLocation: sourceLocation)
        return tree
    }

    @Test func asciiStringsOfEveryLengthAroundTheWordSizeInEveryCountWidth() throws {
        for length in 0...41 {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x21 + $0 % 90))) })
            for width in [nil, 1, 2, 4, 8] as [Int?] {
                let tree = try agree(Self.plist([Self.ascii(text, countWidth: width)]))
                #expect(tree["k0"] == .string(text), "length \(length), count width \(width ?? 0)")
            }
        }
    }

    @Test func aByteAboveASCIIAtEveryPositionGoesToTheGeneralPath() throws {
        // Lenient by default: valid UTF-8 reads as UTF-8, anything else as Latin-1; strict refuses both.
        for length in 1...20 {
            for position in 0..<length {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = 0xE9
                let object = Self.countMarker(0x50, length) + bytes
                let tree = try agree(Self.plist([object]))
                var expected = String(repeating: "a", count: length)
                expected = String(expected.prefix(position)) + "\u{E9}" + String(expected.dropFirst(position + 1))
                #expect(tree["k0"] == .string(expected), "length \(length), position \(position)")
                var strict = PlistLimits.default
                strict.stringPolicy = .strict
                let error = try #require(decodeError(Self.plist([object]), limits: strict))
                #expect(error.code == .invalidString)
                #expect(error.objectIndex == 1)
            }
        }
    }

    @Test func integersRealsDatesAndBooleansOfEveryWidth() throws {
        let values: [[UInt8]] = [
            [0x10, 0xFF], [0x11, 0x80, 0x01], [0x12] + bigEndian(0xFFFF_FFFF, width: 4),
            [0x13] + bigEndian(UInt64.max, width: 8),  // -1: 8-byte integers are signed
            [0x13] + bigEndian(1 << 63, width: 8),
            [0x14] + bigEndian(0, width: 8) + bigEndian(UInt64.max, width: 8),  // 16 bytes: the general path
            [0x22] + bigEndian(UInt64(Float(1.5).bitPattern), width: 4),
            [0x23] + bigEndian((-2.25).bitPattern, width: 8),
            [0x33] + bigEndian(Double(700_000_000.5).bitPattern, width: 8),
            [0x08], [0x09], [0x00],
            [0x42, 0xAB, 0xCD], [0x61, 0x00, 0xE9],
            [0x80, 0x05],
        ]
        let tree = try agree(Self.plist(values))
        #expect(tree["k0"] == .integer(PlistInteger(Int64(255))))
        #expect(tree["k1"] == .integer(PlistInteger(Int64(0x8001))))
        #expect(tree["k2"] == .integer(PlistInteger(UInt64(0xFFFF_FFFF))))
        #expect(tree["k3"] == .integer(PlistInteger(Int64(-1))))
        #expect(tree["k4"] == .integer(PlistInteger(Int64.min)))
        #expect(tree["k5"] == .integer(PlistInteger(high: 0, low: UInt64.max)))
        #expect(tree["k6"] == .real(1.5))
        #expect(tree["k7"] == .real(-2.25))
        #expect(tree["k8"] == .date(PlistDate(secondsSinceReferenceDate: 700_000_000.5)))
        #expect(tree["k9"] == .bool(false))
        #expect(tree["k10"] == .bool(true))
        #expect(tree["k11"] == .null)
        #expect(tree["k12"] == .data([0xAB, 0xCD]))
        #expect(tree["k13"] == .string("\u{E9}"))
        #expect(tree["k14"] == .uid(PlistUID(5)))
    }

    @Test func scalarsCutShortByTheOffsetTableAreRefusedAsTheAccessorRefusesThem() throws {
        // Each object is the last of the object area and one byte short: the offset table follows it at once.
        let shortened: [([UInt8], PlistError.Code)] = [
            ([0x13] + bigEndian(1, width: 7), .truncated),
            ([0x23] + bigEndian(1, width: 7), .truncated),
            ([0x33] + bigEndian(1, width: 7), .truncated),
            ([0x55] + Array("abcd".utf8), .invalidCount),
            ([0x5F, 0x10, 40] + Array(repeating: UInt8(ascii: "x"), count: 39), .invalidCount),
        ]
        for (object, code) in shortened {
            var b = BPlistBuilder()
            _ = b.add([0xA1, 1])
            _ = b.add(object)
            let bytes = b.build()
            let error = try #require(decodeError(bytes), "\(object.prefix(3))")
            #expect(error.code == code, "\(object.prefix(3))")
            #expect(error.objectIndex == 1)
            let viaAccessor: PlistError.Code? = try BinaryPlistDocument(bytes).withObjects { objects in
                do throws(PlistError) {
                    _ = try objects.object(1)
                    return nil
                } catch {
                    return error.code
                }
            }
            #expect(viaAccessor == code)
        }
    }

    @Test(arguments: [1, 2, 3, 4, 8])
    func theFirstReferenceOutOfRangeIsReportedAtItsByteOffset(referenceWidth: Int) throws {
        // An array of 12 elements whose references 5 and 9 are out of range (9's is the larger): the error names
        // reference 5, with its value and its position, before any element is read.
        func twelveSevens(_ refs: [UInt64]) -> [UInt8] {
            var b = BPlistBuilder()
            b.referenceWidth = referenceWidth
            _ = b.add(Self.countMarker(0xA0, 12) + refs.flatMap { bigEndian($0, width: referenceWidth) })
            _ = b.add([0x10, 7])
            return b.build()
        }
        var refs = (0..<12).map { _ in UInt64(1) }
        refs[5] = 40
        refs[9] = 200
        let error = try #require(decodeError(twelveSevens(refs)))
        #expect(error.code == .invalidReference)
        #expect(error.description.contains("reference 40 "))
        #expect(error.byteOffset == 8 + 1 + 5 * referenceWidth)
        #expect(error.objectIndex == 0)
        // In range, the same layout reads.
        refs[5] = 1
        refs[9] = 1
        #expect(try agree(twelveSevens(refs)) == .array(Array(repeating: 7, count: 12)))
    }

    @Test func randomPlistsReadTheSameThroughTheTreeAndTheAccessor() throws {
        var random = RandomPlist(seed: 31, profile: .binary)
        for _ in 0..<300 {
            let value = random.value()
            let bytes = try PropertyList.encode(value, format: .binary)
            #expect(try agree(bytes) == value)
        }
    }

    @Test func repeatedKeysThroughTheKeyCacheReadAsTheirOwnObjects() throws {
        // 300 dictionaries share 3 key objects (so the key cache fills and is hit), and a value string object is
        // also used as a key: each reads as itself.
        var value: [PlistValue] = []
        for i in 0..<300 {
            value.append(["name": .string("n\(i % 7)"), "n\(i % 7)": .integer(PlistInteger(Int64(i))), "id": .integer(PlistInteger(Int64(i)))])
        }
        let bytes = try PropertyList.encode(.array(value), format: .binary)
        #expect(try agree(bytes) == .array(value))
    }
}
