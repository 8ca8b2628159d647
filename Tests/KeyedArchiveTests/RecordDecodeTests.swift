import BinaryPlist
import Testing
@testable import KeyedArchive

/// A store's record decode (``KeyedUnarchiver/unarchivedRecord(ofType:from:scratch:)``): a root of the record's
/// own class is made by its initializer directly, anything else takes the general path, and every result and
/// error is the general path's (a `$null` root is an error).
@Suite("Record decode")
struct RecordDecodeTests {
    static let registry = ClassRegistry([Style.self, Circle.self, Rectangle.self, RoundedRectangle.self])

    func general<T>(_ type: T.Type, _ bytes: [UInt8]) throws -> T? {
        try KeyedUnarchiver.unarchivedObject(ofType: T.self, from: bytes, registry: Self.registry, requiresSecureCoding: false)
    }

    @Test func aRootOfTheRecordsOwnClassDecodesAsTheGeneralPathDoes() throws {
        let style = Style(name: "thin", strokeWidth: 0.5)
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Rectangle(x: 1, y: 2, width: 3, height: 4, style: style))
        let scratch = KeyedUnarchiver.Scratch(registry: Self.registry)
        for _ in 0..<3 {  // the first decode resolves the classes, the next ones match them
            let record = try KeyedUnarchiver.unarchivedRecord(ofType: Rectangle.self, from: bytes, scratch: scratch)
            #expect(type(of: record) == Rectangle.self)
            #expect([record.x, record.y, record.width, record.height] == [1, 2, 3, 4])
            #expect(record.style?.name == "thin")
            #expect(record.style?.strokeWidth == 0.5)
        }
        let expected = try #require(try general(Rectangle.self, bytes))
        #expect(try KeyedArchiver.archivedData(withRootObject: KeyedUnarchiver.unarchivedRecord(ofType: Rectangle.self, from: bytes, scratch: scratch)) as [UInt8]
                == KeyedArchiver.archivedData(withRootObject: expected) as [UInt8])
    }

    @Test func aRootOfASubclassIsMadeAsTheSubclass() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: RoundedRectangle(x: 0, y: 0, width: 5, height: 6, cornerRadius: 2))
        let scratch = KeyedUnarchiver.Scratch(registry: Self.registry)
        let record = try KeyedUnarchiver.unarchivedRecord(ofType: Rectangle.self, from: bytes, scratch: scratch)
        let rounded = try #require(record as? RoundedRectangle)
        #expect(rounded.cornerRadius == 2)
        #expect(rounded.height == 6)
    }

    /// The errors of the record decode and of the general path for `bytes`, both expected.
    func errors(_ bytes: [UInt8], registry: ClassRegistry = Self.registry) -> (record: KeyedArchiveError?, general: KeyedArchiveError?) {
        let scratch = KeyedUnarchiver.Scratch(registry: registry)
        let record = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedRecord(ofType: Rectangle.self, from: bytes, scratch: scratch)
        }
        let general = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Rectangle.self, from: bytes, registry: registry, requiresSecureCoding: false)
        }
        return (record, general)
    }

    /// An archive of nothing but a `$top` of `top`.
    func archive(top: PlistValue) throws -> [UInt8] {
        try PropertyList.encode(["$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": top, "$objects": ["$null"]])
    }

    @Test func aRootOfAnotherClassIsTheGeneralPathsTypeMismatch() throws {
        let (record, general) = errors(try KeyedArchiver.archivedData(withRootObject: Style(name: "bold", strokeWidth: 3)))
        #expect(record?.code == .typeMismatch)
        #expect(record?.description == general?.description)
    }

    @Test func aNullRootIsValueNotFoundWhereTheGeneralPathReturnsNil() throws {
        let bytes = try archive(top: ["root": .uid(PlistUID(0))])
        #expect(try general(Rectangle.self, bytes) == nil)
        let scratch = KeyedUnarchiver.Scratch(registry: Self.registry)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedRecord(ofType: Rectangle.self, from: bytes, scratch: scratch)
        }
        #expect(error?.code == .valueNotFound)
    }

    @Test func aTopWithoutRootIsTheGeneralPathsError() throws {
        let (record, general) = errors(try archive(top: ["other": .uid(PlistUID(0))]))
        #expect(record?.code == .valueNotFound)
        #expect(record?.description == general?.description)
    }

    @Test func anUnregisteredClassIsTheGeneralPathsError() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Circle(centerX: 1, centerY: 1, radius: 1))
        let (record, general) = errors(bytes, registry: ClassRegistry([Style.self, Rectangle.self]))
        #expect(record?.code == .unknownClass)
        #expect(record?.description == general?.description)
    }

    /// The header's names of 15 bytes or more (`NSKeyedArchiver`) are compared as bytes; another archiver name of
    /// that length is still refused by name.
    @Test func aLongArchiverNameIsComparedExactly() throws {
        let foreign: PlistValue = [
            "$archiver": "NSKeyedArchives", "$version": 100_000, "$top": ["root": .uid(PlistUID(0))], "$objects": ["$null"],
        ]
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Rectangle.self, from: PropertyList.encode(foreign), registry: Self.registry)
        }
        #expect(error?.code == .foreignArchiver)
        #expect(error?.archiver == "NSKeyedArchives")
    }
}
