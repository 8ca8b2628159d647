import Foundation
import KeyedArchive
import Testing
import TypedStream

/// Hostile and broken streams: each gets its exact error code, byte offset and object, never a trap.
@Suite("Hostile typedstreams")
struct HostileStreamTests {
    static let arrayHead: [UInt8] = header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x07] + Array("NSArray".utf8)
        + [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85, 0x84, 0x01, UInt8(ascii: "i")]
    static let stringHead: [UInt8] = header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8)
        + [0x01, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85, 0x84, 0x01, 0x2b]

    func rootFailure(_ bytes: [UInt8], registry: ClassRegistry = .standard) -> TypedStreamError? {
        typedStreamFailure { _ = try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: registry) }
    }

    @Test func headersThatAreNotTypedstreams() {
        #expect(rootFailure([])?.code == .invalidHeader)
        #expect(rootFailure([])?.offset == 0)
        #expect(rootFailure(Array("bplist00".utf8) + [0, 0, 0, 0, 0])?.offset == 1)
        let version3 = rootFailure([3, 11] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03])
        #expect(version3?.code == .unsupportedVersion)
        #expect(version3?.offset == 0)
        let signature = rootFailure([4, 11] + Array("streamtypeX".utf8) + [0x00])
        #expect(signature?.code == .invalidHeader)
        #expect(signature?.offset == 2)
    }

    @Test func everyCutOfAMessageBodyIsTruncated() throws {
        let bytes = try typedStreamFixture("crabstep/messages/Mention")
        for length in 16..<bytes.count {
            // A cut inside a count's elements leaves a count larger than the bytes left.
            let e = rootFailure(Array(bytes.prefix(length)))
            #expect(e?.code == .truncated || e?.code == .elementLimitExceeded, "cut at \(length)")
            #expect(e?.offset ?? 0 <= length, "cut at \(length)")
        }
    }

    @Test func reservedTagWhereAReferenceStands() {
        let e = rootFailure(header + [0x84, 0x01, 0x40, 0x80])
        #expect(e?.code == .invalidTag)
        #expect(e?.offset == 19)
    }

    @Test func referenceToNothingReadYet() {
        let e = rootFailure(header + [0x84, 0x01, 0x40, 0x95])
        #expect(e?.code == .invalidReference)
        #expect(e?.offset == 19)
    }

    @Test func endOfObjectOutsideAnObject() {
        let e = rootFailure(header + [0x86])
        #expect(e?.code == .invalidTag)
        #expect(e?.offset == 16)
    }

    @Test func arrayCountPastTheBytesLeft() {
        let e = rootFailure(Self.arrayHead + [0x82, 0xff, 0xff, 0xff, 0x7f])
        #expect(e?.code == .elementLimitExceeded)
        #expect(e?.offset == 47)
        #expect(e?.objectIndex == 0)
        #expect(e?.className == "NSArray")
    }

    @Test func negativeArrayCount() {
        let e = rootFailure(Self.arrayHead + [0xff])
        #expect(e?.code == .invalidValue)
        #expect(e?.offset == 47)
    }

    @Test func arrayThatHoldsItself() {
        let e = rootFailure(Self.arrayHead + [0x01, 0x92, 0x92, 0x86])
        #expect(e?.code == .cycle)
        #expect(e?.offset == 49)
    }

    @Test func stringLengthPastTheBytesLeft() {
        let e = rootFailure(Self.stringHead + [0x82, 0xff, 0xff, 0xff, 0x7f, 0x41, 0x86])
        #expect(e?.code == .truncated)
        #expect(e?.offset == 48)
        #expect(e?.className == "NSString")
    }

    @Test func stringThatIsNotUTF8() {
        let e = rootFailure(Self.stringHead + [0x02, 0xff, 0xfe, 0x86])
        #expect(e?.code == .invalidValue)
        #expect(e?.offset == 48)
    }

    @Test func booleanThatIsNeitherZeroNorOne() {
        let e = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: header + [0x84, 0x01, 0x42, 0x02]).decodeValue(ofObjCType: "B") }
        #expect(e?.code == .invalidValue)
        #expect(e?.offset == 19)
    }

    @Test func typeEncodingsNestedPastTheLimit() {
        let encoding = Array(String(repeating: "[1", count: 70).utf8) + [UInt8(ascii: "c")] + Array(String(repeating: "]", count: 70).utf8)
        let e = typedStreamFailure {
            _ = try TypedStreamUnarchiver(forReadingWith: header + [0x84, 0x81, UInt8(encoding.count), 0x00] + encoding).decodeAllValues()
        }
        #expect(e?.code == .depthLimitExceeded)
        #expect(e?.offset == 16)
    }

    @Test func arrayOfElementsThatTakeNoBytes() {
        let e = typedStreamFailure {
            _ = try TypedStreamUnarchiver(forReadingWith: header + [0x84, 13] + Array("[2000000000v]".utf8)).decodeAllValues()
        }
        #expect(e?.code == .elementLimitExceeded)
        #expect(e?.offset == 31)
    }

    @Test func malformedTypeEncoding() {
        let e = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: header + [0x84, 0x02] + Array("{i".utf8)).decodeAllValues() }
        #expect(e?.code == .invalidTypeEncoding)
        #expect(e?.offset == 16)
    }

    @Test func objectsNestedPastTheDepthLimit() throws {
        var value: Any = "leaf"
        for _ in 0..<600 { value = [value] }
        let archiver = TypedStreamArchiver()
        archiver.maxDepth = 1000
        archiver.encodeRootObject(value)
        let bytes = try archiver.finishEncoding()
        let e = rootFailure(bytes)
        #expect(e?.code == .depthLimitExceeded)
        #expect(e?.objectIndex != nil)
        #expect(e?.className == "NSArray")
        // The writer refuses the same nesting at its default limit.
        let refused = typedStreamFailure { _ = try TypedStreamArchiver.archivedData(withRootObject: value) as [UInt8] }
        #expect(refused?.code == .depthLimitExceeded)
    }

    @Test func classChainsCannotHoldMoreNamesThanTheStreamHasBytesFor() throws {
        // 200 classes on one chain, then 3000 subclasses of the deepest (C000, entry 1: reference 0x93); each new
        // class stores its whole chain, 201 names.
        var stream = header + [0x84, 0x01, 0x40, 0x84]
        for i in 0..<200 { stream += [0x84, 0x84, 0x04] + Array(String(format: "C%03d", i).utf8) + [0x00] }
        stream += [0x85, 0x86]
        for i in 0..<3000 {
            stream += [0x92, 0x84, 0x84, 0x84, 0x05] + Array(String(format: "S%04d", i).utf8) + [0x00, 0x93, 0x86]
        }
        let e = typedStreamFailure {
            _ = try TypedStreamUnarchiver(forReadingWith: stream, registry: .standard.allowingUnknownClasses()).decodeAllValues()
        }
        #expect(e?.code == .elementLimitExceeded)
        #expect(e?.reason == "the class chains would hold more class names than the stream has bytes for")
    }

    @Test func unknownClassByDefault() throws {
        let bytes = try typedStreamFixture("crabstep/objects/HugeWithRefs")
        let e = rootFailure(bytes)
        #expect(e?.code == .unknownClass)
        #expect(e?.className != nil)
        #expect(e?.objectIndex != nil)
    }

    @Test func objectLimit() throws {
        let bytes = try typedStreamFixture("crabstep/foundation/NSArrayWithNull")
        let e = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: bytes, maxObjects: 2).decodeObject() }
        #expect(e?.code == .elementLimitExceeded)
    }

    @Test func attributeRunsPastTheString() throws {
        var bytes = try typedStreamFixture("crabstep/foundation/NSAttributedString")
        // The one run's length, 12, becomes 13.
        let run = try #require(bytes.indices.first { bytes[$0] == 0x49 && bytes[$0 + 1] == 0x01 && bytes[$0 + 2] == 0x0c })
        bytes[run + 2] = 13
        let e = rootFailure(bytes)
        #expect(e?.code == .invalidValue)
        #expect(e?.className == "NSAttributedString")
        #expect(e?.offset == run - 3)
    }

    @Test func typeMismatchAndRangeNameWhatWasFound() throws {
        let e = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: try typedStreamFixture("crabstep/foundation/NSString")).decodeValue(ofObjCType: "i") }
        #expect(e?.code == .typeMismatch)
        #expect(e?.offset == 16)
        let archiver = TypedStreamArchiver()
        archiver.encodeValue(Int64(1) << 40, ofObjCType: "q")
        let bytes = try archiver.finishEncoding()
        let range = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: bytes).decodeValue(ofObjCType: "i") }
        #expect(range?.code == .outOfRange)
        #expect(range?.offset == 19)
    }
}
