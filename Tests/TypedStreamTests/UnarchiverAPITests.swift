import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TypedStream

/// A class that reads and writes itself, version 2 (version 1 had no `visits`).
final class Bookmark: KeyedArchivable, TypedStreamCodable {
    var title = ""
    var visits = 0
    var frame: [Any?] = []
    init(title: String, visits: Int) {
        self.title = title
        self.visits = visits
    }
    static var typedStreamVersion: Int { 2 }
    init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
        title = try coder.decodeObject(of: String.self) ?? ""
        if (coder.version(forClassName: "Bookmark") ?? 0) >= 2 {
            visits = Int(try coder.decodeValue(ofObjCType: "i") as? Int32 ?? 0)
        }
    }
    func encode(with coder: TypedStreamArchiver) {
        coder.encodeObject(title)
        coder.encodeValue(Int32(visits), ofObjCType: "i")
    }
    init(coder: KeyedUnarchiver) throws {
        title = try coder.decode(String.self, forKey: "title")
        visits = try coder.decode(Int.self, forKey: "visits")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "title")
        coder.encode(visits, forKey: "visits")
    }
}

/// A keyed-only class: registered, but it cannot read a typedstream.
final class KeyedOnly: KeyedArchivable {
    init(coder: KeyedUnarchiver) throws {}
    func encode(with coder: KeyedArchiver) {}
}

@Suite("Typedstream unarchiver API")
struct UnarchiverAPITests {
    @Test func everyCTypeReadsAsItsSwiftType() throws {
        let archiver = TypedStreamArchiver()
        archiver.encodeValues([Int8(-3), UInt8(250), Int16(-300), UInt16(60000), Int32(-70000), UInt32(4_000_000_000),
                               Int32(5), UInt32(6), Int64(-1) << 40, UInt64.max, Float(0.25), 0.125, true],
                              ofObjCTypes: "cCsSiIlLqQfdB")
        archiver.encodeValues(["text", "sel:", "NSObject", Data([1, 2]), [Int32(1), Int32(2)], Data([7, 8, 9]), nil],
                              ofObjCTypes: "*:#+[2i][3c]@")
        archiver.encodeValue([Int64(3), UInt64(4)], ofObjCType: "{_NSRange=qQ}")
        archiver.encodeValue(nil, ofObjCType: "v")
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: try archiver.finishEncoding())
        let scalars = try unarchiver.decodeValues(ofObjCTypes: "cCsSiIlLqQfdB")
        #expect(scalars[0] as? Int8 == -3)
        #expect(scalars[1] as? UInt8 == 250)
        #expect(scalars[2] as? Int16 == -300)
        #expect(scalars[3] as? UInt16 == 60000)
        #expect(scalars[4] as? Int32 == -70000)
        #expect(scalars[5] as? UInt32 == 4_000_000_000)
        #expect(scalars[6] as? Int32 == 5)
        #expect(scalars[7] as? UInt32 == 6)
        #expect(scalars[8] as? Int64 == -1 << 40)
        #expect(scalars[9] as? UInt64 == .max)
        #expect(scalars[10] as? Float == 0.25)
        #expect(scalars[11] as? Double == 0.125)
        #expect(scalars[12] as? Bool == true)
        let others = try unarchiver.decodeValues(ofObjCTypes: "*:#+[2i][3c]@")
        #expect(others[0] as? String == "text")
        #expect(others[1] as? String == "sel:")
        #expect(others[2] as? String == "NSObject")
        #expect(others[3] as? Data == Data([1, 2]))
        #expect((others[4] as? [Any?])?.map { $0 as? Int32 } == [1, 2])
        #expect(others[5] as? Data == Data([7, 8, 9]))
        #expect(others[6] == nil)
        let range = try #require(try unarchiver.decodeValue(ofObjCType: "{_NSRange=qQ}") as? [Any?])
        #expect(range[0] as? Int64 == 3)
        #expect(range[1] as? UInt64 == 4)
        #expect(try unarchiver.decodeValue(ofObjCType: "v") == nil)
        #expect(unarchiver.isAtEnd)
    }

    @Test func integersOfAnotherWidthAreAcceptedWhenTheyFit() throws {
        let archiver = TypedStreamArchiver()
        archiver.encodeValue(Int64(70000), ofObjCType: "q")
        archiver.encodeValue(Int32(-1), ofObjCType: "i")
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: try archiver.finishEncoding())
        #expect(try unarchiver.decodeValue(ofObjCType: "i") as? Int32 == 70000)
        let e = typedStreamFailure { _ = try unarchiver.decodeValue(ofObjCType: "Q") }
        #expect(e?.code == .outOfRange)
    }

    @Test func aRegisteredClassReadsItselfWithItsVersion() throws {
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: [Bookmark(title: "Swift", visits: 12)]) as [UInt8]
        let list = try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: ClassRegistry([Bookmark.self])) as? [Any])
        let bookmark = try #require(list.first as? Bookmark)
        #expect(bookmark.title == "Swift")
        #expect(bookmark.visits == 12)
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: ClassRegistry([Bookmark.self]))
        _ = try unarchiver.decodeObject()
        #expect(unarchiver.version(forClassName: "Bookmark") == 2)
        #expect(unarchiver.version(forClassName: "NSArray") == 0)
        #expect(unarchiver.version(forClassName: "Missing") == nil)
        // Migrating: the object read from the typedstream writes a keyed archive.
        let keyed = try KeyedArchiver.archivedData(withRootObject: bookmark) as [UInt8]
        let migrated = try KeyedUnarchiver.unarchivedObject(ofType: Bookmark.self, from: keyed, registry: ClassRegistry([Bookmark.self]))
        #expect(migrated?.visits == 12)
    }

    @Test func aSharedInstanceIsWrittenOnceAndReadAsOne() throws {
        let b = Bookmark(title: "once", visits: 1)
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: [b, b]) as [UInt8]
        let list = try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: ClassRegistry([Bookmark.self])) as? [Any])
        #expect(list.count == 2)
        #expect((list[0] as? Bookmark) === (list[1] as? Bookmark))
        #expect(bytes.count(where: { $0 == UInt8(ascii: "o") }) == 3)  // "once" once, "NSObject" once, "Bookmark" once
    }

    @Test func aRegisteredClassThatOnlyReadsKeyedArchivesIsAnError() throws {
        let object = ArchivedObject(classChain: ["KeyedOnly", "NSObject"], fields: [
            (TypedStreamUnarchiver.versionsKey, .value(.array([0, 0]))), (TypedStreamUnarchiver.typesKey, .value(.array([]))),
        ])
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: object) as [UInt8]
        let e = typedStreamFailure { _ = try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: ClassRegistry([KeyedOnly.self])) }
        #expect(e?.code == .unknownClass)
        #expect(e?.className == "KeyedOnly")
        #expect(e?.objectIndex == 0)
    }

    @Test func anUnknownClassKeepsItsChainVersionsTypesAndValues() throws {
        let bytes = try typedStreamFixture("crabstep/objects/HugeWithRefs")
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: .standard.allowingUnknownClasses())
        let root = try #require(try unarchiver.decodeObject() as? [Any])
        func firstObject(_ value: Any) -> ArchivedObject? {
            if let o = value as? ArchivedObject { return o }
            return (value as? [Any])?.lazy.compactMap(firstObject).first
        }
        let first = try #require(firstObject(root))
        #expect(first.classChain.last == "NSObject")
        guard case .value(.array(let versions))? = first[TypedStreamUnarchiver.versionsKey],
              case .value(.array(let types))? = first[TypedStreamUnarchiver.typesKey] else {
            Issue.record("no versions or types")
            return
        }
        #expect(versions.count == first.classChain.count)
        #expect(!types.isEmpty)
        #expect(first["$0"] != nil)
    }

    @Test func errorsDescribeWhereTheyHappened() {
        let e = TypedStreamError(.truncated, "a 200-byte string runs past the 12 bytes left", offset: 57, objectIndex: 4, className: "NSString")
        #expect(e.description == "typedstream: byte 57 in object 4 (NSString): a 200-byte string runs past the 12 bytes left")
        #expect(TypedStreamError(.unsupportedType, "no").description == "typedstream: no")
        #expect(TypedStreamError.Code.truncated ~= e)
    }

    @Test func headersAreSniffed() throws {
        #expect(TypedStreamHeader.isTypedStream(try typedStreamFixture("crabstep/messages/Mention")))
        #expect(TypedStreamHeader.isTypedStream(try typedStreamFixture("JanX2-Rotater/MainMenu.nib/objects.nib")))
        #expect(!TypedStreamHeader.isTypedStream(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40)))
        #expect(!TypedStreamHeader.isTypedStream([4, 11]))
    }

    @Test func typeEncodingsParseAndPrintBack() throws {
        #expect(try ObjCType.parseList("iI") == [.int, .unsignedInt])
        let rect = try ObjCType.parse("{CGRect={CGPoint=dd}{CGSize=dd}}")
        #expect(rect == .structure(name: "CGRect", fields: [.structure(name: "CGPoint", fields: [.double, .double]),
                                                               .structure(name: "CGSize", fields: [.double, .double])]))
        #expect(rect.encoding == "{CGRect={CGPoint=dd}{CGSize=dd}}")
        #expect(try ObjCType.parse("{{?=ii}}") == .structure(name: nil, fields: [.structure(name: "?", fields: [.int, .int])]))
        #expect(try ObjCType.parse("[12{a=*@}]") == .array(count: 12, element: .structure(name: "a", fields: [.cString, .object])))
        for bad in ["", "{i", "[c]", "[5", "[5i", "x", "{a=i"] {
            let e = typedStreamFailure { _ = try ObjCType.parseList(bad) }
            #expect(e?.code == .invalidTypeEncoding, "\(bad)")
        }
        #expect(typedStreamFailure { _ = try ObjCType.parse("ii") }?.code == .invalidTypeEncoding)
        #expect(typedStreamFailure { _ = try ObjCType.parse("[99999999999c]") }?.code == .invalidTypeEncoding)
    }
}
