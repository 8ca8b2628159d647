import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TypedStream

/// What the archiver writes, the unarchiver reads back as the same values, and the same graph always
/// writes the same bytes.
@Suite("Typedstream writer round trips")
struct WriterRoundTripTests {
    func roundTrip(_ value: Any) throws -> Any? {
        try TypedStreamUnarchiver.unarchiveObject(with: try TypedStreamArchiver.archivedData(withRootObject: value) as [UInt8])
    }

    @Test func foundationValues() throws {
        #expect(try roundTrip("héllo ✓") as? String == "héllo ✓")
        #expect(try roundTrip(-42) as? Int == -42)
        #expect(try roundTrip(UInt64.max) as? UInt64 == .max)
        #expect(try roundTrip(2.5) as? Double == 2.5)
        #expect(try roundTrip(Float(1.25)) as? Double == 1.25)
        #expect(try roundTrip(Data([0, 255, 7])) as? Data == Data([0, 255, 7]))
        #expect((try roundTrip(Date(timeIntervalSinceReferenceDate: 12.75)) as? Date)?.timeIntervalSinceReferenceDate == 12.75)
        #expect(try roundTrip(URL(string: "https://swift.org/a?b=c")!) as? URL == URL(string: "https://swift.org/a?b=c"))
        #expect(try roundTrip(ArchivedNull()) is ArchivedNull)
        #expect(try roundTrip(Set<AnyHashable>(["a", 1])) as? Set<AnyHashable> == ["a", 1])
        let d = try #require(try roundTrip(["a": [1, 2], "b": ["c": "d"]] as [String: Any]) as? [AnyHashable: Any])
        #expect((d["a"] as? [Any])?.compactMap { $0 as? Int } == [1, 2])
        #expect((d["b"] as? [AnyHashable: Any])?["c"] as? String == "d")
    }

    @Test func aBoolIsWrittenAsAppleWritesABOOLAndReadsBackAsAnInteger() throws {
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: true) as [UInt8]
        // NSNumber's "*" group holds the C string "c", then a "c" group (a reference to that shared string) holds 1.
        #expect(Array(bytes.suffix(8)) == [0x2a, 0x84, 0x84, 0x01, UInt8(ascii: "c"), 0x97, 0x01, 0x86])
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: bytes) as? Int == 1)
    }

    @Test(arguments: [ArchivedValue.range(location: 3, length: 9), .point(x: 1.5, y: -2), .size(width: 640, height: 480),
                      .rect(x: 0, y: 0.5, width: 10, height: 20), .edgeInsets(top: 1, left: 2, bottom: 3, right: 4)])
    func geometryValues(_ value: ArchivedValue) throws {
        #expect(try roundTrip(value) as? ArchivedValue == value)
    }

    @Test func attributedStringRunsAndValues() throws {
        let body = ArchivedAttributedString("a😀b", runs: [
            .init(range: 0..<1, attributes: ["__kIMMessagePartAttributeName": 0]),
            .init(range: 1..<3, attributes: ["__kIMMessagePartAttributeName": 1, "__kIMFileTransferGUIDAttributeName": "at_1"]),
            .init(range: 3..<4, attributes: [:]),
        ])
        let back = try #require(try roundTrip(body) as? ArchivedAttributedString)
        #expect(back.string == "a😀b")
        #expect(back.runs.map(\.range) == [0..<1, 1..<3, 3..<4])
        #expect(back.runs[1].attributes["__kIMFileTransferGUIDAttributeName"] as? String == "at_1")
        #expect(back.runs[1].attributes["__kIMMessagePartAttributeName"] as? Int == 1)
        #expect(back.runs[2].attributes.isEmpty)
    }

    @Test func theSameGraphWritesTheSameBytes() throws {
        func graph() -> [String: Any] {
            var d: [String: Any] = [:]
            for i in 0..<50 { d["k\(i)"] = ["v\(i)", i, Set<AnyHashable>(["x\(i)", "y\(i)"])] as [Any] }
            return d
        }
        let a = try TypedStreamArchiver.archivedData(withRootObject: graph()) as [UInt8]
        let b = try TypedStreamArchiver.archivedData(withRootObject: graph()) as [UInt8]
        #expect(a == b)
    }

    @Test func unknownObjectsWithCyclesWriteBackTheSameStream() throws {
        // The nibs are graphs of unknown classes with cycles (views and their superviews): read, written,
        // read and written again, the second writing equals the first.
        for path in ["JanX2-Rotater/MainMenu.nib/objects.nib", "fruitsamples-TLayer/TLayerDemo.nib/objects.nib", "pytypedstream/Emacs.clr"] {
            func rewrite(_ bytes: [UInt8]) throws -> [UInt8] {
                let archiver = TypedStreamArchiver()
                for v in try TypedStreamUnarchiver(forReadingWith: bytes, registry: .standard.allowingUnknownClasses()).decodeAllValues() {
                    archiver.encodeObject(v)
                }
                return try archiver.finishEncoding()
            }
            let first = try rewrite(try typedStreamFixture(path))
            #expect(try rewrite(first) == first, "\(path)")
        }
    }

    @Test func valuesATypedstreamCannotHoldAreErrors() {
        let uuid = typedStreamFailure { _ = try TypedStreamArchiver.archivedData(withRootObject: UUID()) as [UInt8] }
        #expect(uuid?.code == .unsupportedType)
        let keyed = ArchivedObject(classChain: ["Shape", "NSObject"], fields: [("radius", .value(.real(2)))])
        let fields = typedStreamFailure { _ = try TypedStreamArchiver.archivedData(withRootObject: keyed) as [UInt8] }
        #expect(fields?.code == .unsupportedType)
        let archiver = TypedStreamArchiver()
        archiver.encodeValue("text", ofObjCType: "i")
        #expect(typedStreamFailure { _ = try archiver.finishEncoding() }?.code == .typeMismatch)
        let range = TypedStreamArchiver()
        range.encodeValue(300, ofObjCType: "c")
        #expect(typedStreamFailure { _ = try range.finishEncoding() }?.code == .outOfRange)
    }
}
