#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import Testing

// Models for the round trips.
private struct Spot: Codable, Equatable { var x: Double; var y: Double }
private struct Frame: Codable, Equatable { var origin: Spot; var name: String; var tags: [String] }
private struct Outer: Codable, Equatable { var frame: Frame; var count: Int; var ratio: Float; var flag: Bool }

private enum Command: Codable, Equatable {
    case move(x: Double, y: Double)
    case label(String)
    case stop
}

private enum Weekday: String, Codable { case monday, tuesday }

private struct Optionals: Codable, Equatable {
    var present: Int?
    var absent: String?
    var elements: [Int?]
}

private struct Standard: Codable, Equatable {
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
}

private struct Collections: Codable, Equatable {
    var numbers: [Double]
    var byName: [String: Int]
    var byNumber: [Int: String]
    var members: Set<String>
    var nested: [[Int]]
}

private struct Empty: Codable, Equatable {}
private struct Empties: Codable, Equatable {
    var array: [Int]
    var dictionary: [String: Int]
    var set: Set<Int>
    var string: String
    var empty: Empty
}

private struct Integers: Codable, Equatable {
    var i8: Int8, i16: Int16, i32: Int32, i64: Int64, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, u: UInt
}

/// Every depth at which an existential may sit.
private struct Gallery: Codable {
    @Polymorphic var one: any CodableShape
    @Polymorphic var maybe: (any CodableShape)?
    @Polymorphic var none: (any CodableShape)?
    @Polymorphic var list: [any CodableShape]
    @Polymorphic var byName: [String: any CodableShape]
    @Polymorphic var rows: [[any CodableShape]]
    @Polymorphic var groups: [String: [any CodableShape]]
}

private func roundTrip<T: Codable>(_ value: T, registry: ClassRegistry = codableShapeRegistry) throws -> T {
    let bytes = try ArchiveEncoder().encode(value)
    return try ArchiveDecoder(registry: registry).decode(T.self, from: bytes)
}

@Suite("Codable bridge: round trips through ArchiveEncoder and ArchiveDecoder")
struct CodableRoundTripTests {
    /// Found by the `decoder` fuzz target (session 6): every string `ArchiveDecoder` read that the archive held
    /// as UTF-16 (any non-ASCII text) came back wrong ("é" as "\0"), as fields, dictionary keys and elements.
    @Test func nonASCIIStringsRoundTripAsFieldsKeysAndElements() throws {
        let texts = ["é", "kא", "k\u{80}\u{02}", "日本語 😀", ""]
        for text in texts {
            let frame = Frame(origin: Spot(x: 1, y: 2), name: text, tags: [text, "ascii"])
            #expect(try ArchiveDecoder().decode(Frame.self, from: ArchiveEncoder().encode(frame)) == frame)
            let keyed = [text: frame]
            #expect(try ArchiveDecoder().decode([String: Frame].self, from: ArchiveEncoder().encode(keyed)) == keyed)
            // And what the NSCoding archiver writes reads the same through the bridge.
            let archived = try KeyedArchiver.archivedData(withRootObject: [text])
            #expect(try ArchiveDecoder().decode([String].self, from: archived) == [text])
        }
    }

    @Test func nestedStructsRoundTrip() throws {
        let value = Outer(frame: Frame(origin: Spot(x: 1.5, y: -2), name: "main", tags: ["a", "b"]), count: 42,
                          ratio: 0.25, flag: true)
        #expect(try roundTrip(value) == value)
    }

    @Test func enumsWithAssociatedValuesRoundTrip() throws {
        let commands: [Command] = [.move(x: 1, y: 2), .label("hello"), .stop, .move(x: -3.5, y: 0)]
        #expect(try roundTrip(commands) == commands)
    }

    @Test func rawValueEnumsAreBareStrings() throws {
        let bytes = try ArchiveEncoder().encode([Weekday.monday, .tuesday])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: bytes) == ["monday", "tuesday"])
        #expect(try ArchiveDecoder().decode([Weekday].self, from: bytes) == [.monday, .tuesday])
    }

    @Test func optionalsRoundTripAndNilIsNull() throws {
        let value = Optionals(present: 7, absent: nil, elements: [1, nil, 3])
        #expect(try roundTrip(value) == value)
        let bytes = try ArchiveEncoder().encode([nil, 5] as [Int?])
        let generic = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: bytes))
        // The NSCoding-style API shows a `$null` element as ArchivedNull; no NSNull object was written.
        #expect(generic.count == 2 && generic[0] is ArchivedNull && generic[1] as? Int == 5)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("NSNull"))
        #expect(try ArchiveDecoder().decode([Int?].self, from: bytes) == [nil, 5])
    }

    @Test func arraysDictionariesAndSetsRoundTrip() throws {
        let value = Collections(numbers: [1, 2.5, -3], byName: ["one": 1, "two": 2], byNumber: [1: "one", 20: "twenty"],
                                members: ["x", "y", "z"], nested: [[1, 2], [], [3]])
        #expect(try roundTrip(value) == value)
    }

    @Test func dictionariesAndSetsAreFoundationCollections() throws {
        let bytes = try ArchiveEncoder().encode(["b": 2, "a": 1])
        let dictionary = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [AnyHashable: Any].self, from: bytes))
        #expect(dictionary.count == 2 && dictionary["a"] as? Int == 1)
        let setBytes = try ArchiveEncoder().encode(Set(["p", "q"]))
        let set = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Set<AnyHashable>.self, from: setBytes))
        #expect(set == Set(["p", "q"]))
    }

    @Test func dateDataUUIDAndURLRoundTripAsFoundationClasses() throws {
        let value = Standard(date: Date(timeIntervalSinceReferenceDate: 123_456.5), data: Data([0, 1, 255]),
                             uuid: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
                             url: try #require(URL(string: "https://example.com/a?b=c")))
        #expect(try roundTrip(value) == value)
        let bytes = try ArchiveEncoder().encode([value.date])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Date].self, from: bytes) == [value.date])
    }

    @Test func integersOfEveryWidthRoundTrip() throws {
        let value = Integers(i8: -8, i16: -16, i32: -32, i64: .min, u8: 8, u16: 16, u32: 32, u64: .max, u: 7)
        #expect(try roundTrip(value) == value)
    }

    @Test func emptyContainersRoundTrip() throws {
        let value = Empties(array: [], dictionary: [:], set: [], string: "", empty: Empty())
        #expect(try roundTrip(value) == value)
    }

    @Test func xmlArchivesRoundTrip() throws {
        let value = Outer(frame: Frame(origin: Spot(x: 3, y: 4), name: "xml", tags: []), count: -1, ratio: 1, flag: false)
        let xml = try ArchiveEncoder(outputFormat: .xml).encode(value)
        #expect(String(decoding: xml.prefix(5), as: UTF8.self) == "<?xml")
        #expect(try ArchiveDecoder().decode(Outer.self, from: xml) == value)
    }

    @Test func sameValueGivesSameBytes() throws {
        let value = Collections(numbers: [1], byName: ["k\(1)": 1, "k\(2)": 2, "k\(3)": 3], byNumber: [3: "c", 1: "a"],
                                members: ["m", "n", "o", "p"], nested: [])
        #expect(try ArchiveEncoder().encode(value) == ArchiveEncoder().encode(value))
    }

    @Test func classHierarchyDecodesAsTheRegisteredSubclass() throws {
        let rounded = CodableRoundedRectangle(x: 1, y: 2, width: 3, height: 4, cornerRadius: 5)
        let bytes = try ArchiveEncoder().encode(rounded)
        let decoded = try ArchiveDecoder(registry: codableShapeRegistry).decode(CodableRectangle.self, from: bytes)
        let subclass = try #require(decoded as? CodableRoundedRectangle)
        #expect(subclass.cornerRadius == 5 && subclass.x == 1 && subclass.height == 4)
    }

    @Test func superEncoderSharesTheObjectAndTheChainNamesTheSuperclass() throws {
        let bytes = try ArchiveEncoder().encode(CodableRoundedRectangle(x: 1, y: 2, width: 3, height: 4, cornerRadius: 5))
        let object = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()))
        #expect(object.classChain == ["RoundedRectangle", "Rectangle", "NSObject"])
        #expect(Set(object.fields.map(\.key)) == ["origin.x", "origin.y", "size.width", "size.height", "cornerRadius"])
    }

    @Test func existentialsRoundTripAtEveryDepth() throws {
        let circle = CodableCircle(centerX: 1, centerY: 2, radius: 3)
        let rect = CodableRectangle(x: 4, y: 5, width: 6, height: 7)
        let rounded = CodableRoundedRectangle(x: 8, y: 9, width: 10, height: 11, cornerRadius: 12)
        let gallery = Gallery(one: rounded, maybe: circle, none: nil, list: [circle, rect, rounded],
                              byName: ["c": circle, "r": rect], rows: [[rect], [], [rounded, circle]],
                              groups: ["all": [circle, rect, rounded]])
        let decoded = try roundTrip(gallery)
        #expect(decoded.one is CodableRoundedRectangle)
        #expect(decoded.maybe is CodableCircle && decoded.none == nil)
        #expect(decoded.list.map { "\(type(of: $0))" } == ["CodableCircle", "CodableRectangle", "CodableRoundedRectangle"])
        #expect(decoded.byName["c"] is CodableCircle && decoded.byName["r"].map { type(of: $0) == CodableRectangle.self } == true)
        #expect(decoded.rows.map(\.count) == [1, 0, 2] && decoded.rows[2][0] is CodableRoundedRectangle)
        #expect(decoded.groups["all"]?.count == 3)
        // One instance referenced from several places is still one instance.
        let maybe = try #require(decoded.maybe)
        #expect((decoded.list[0] as AnyObject) === (maybe as AnyObject) && (decoded.list[2] as AnyObject) === (decoded.one as AnyObject))
    }

    @Test func topLevelExistentialsRoundTrip() throws {
        let shapes: [any CodableShape] = [CodableCircle(centerX: 1, centerY: 1, radius: 1), CodableRectangle(x: 0, y: 0, width: 1, height: 1)]
        let bytes = try ArchiveEncoder().encode(shapes)
        let decoded = try ArchiveDecoder(registry: codableShapeRegistry).decode([any CodableShape].self, from: bytes)
        #expect(decoded.count == 2 && decoded[0] is CodableCircle && decoded[1] is CodableRectangle)
        let single = try ArchiveDecoder(registry: codableShapeRegistry).decode((any CodableShape).self,
                                                                              from: try ArchiveEncoder().encode(shapes[0]))
        #expect((single as? CodableCircle)?.radius == 1)
    }

    @Test func sharedInstancesAreArchivedOnceAndDecodeToOneInstance() throws {
        let contents = makeCodableContents(count: 30)
        let bytes = try ArchiveEncoder().encode(contents)
        let decoded = try ArchiveDecoder(registry: codableShapeRegistry).decode(CodableContents.self, from: bytes)
        let styles = decoded.shapes.compactMap(\.style)
        #expect(styles.count == 3 && styles.allSatisfy { $0 === styles[0] })
        #expect(styles[0].name == "Default Stroke" && styles[0].strokeWidth == 1.5)
        // One Style object in the archive.
        let graph = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()))
        guard case .object(let shapes as [Any])? = graph["shapes"] else { Issue.record("no shapes"); return }
        let archivedStyles = shapes.compactMap { ($0 as? ArchivedObject)?["style"] }.compactMap { field -> ArchivedObject? in
            if case .object(let o as ArchivedObject) = field { return o }
            return nil
        }
        #expect(archivedStyles.count == 3 && archivedStyles.allSatisfy { $0 === archivedStyles[0] })
    }

    @Test func userInfoReachesEncodeAndDecode() throws {
        struct Probe: Codable {
            static let key = CodingUserInfoKey(rawValue: "probe")!
            var seen: String
            init(seen: String) { self.seen = seen }
            init(from decoder: any Decoder) throws { seen = decoder.userInfo[Self.key] as? String ?? "none" }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.singleValueContainer()
                try c.encode(encoder.userInfo[Self.key] as? String ?? "none")
            }
        }
        var encoder = ArchiveEncoder()
        encoder.userInfo[Probe.key] = "written"
        var decoder = ArchiveDecoder()
        decoder.userInfo[Probe.key] = "read"
        let bytes = try encoder.encode(Probe(seen: ""))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes) == "written")
        #expect(try decoder.decode(Probe.self, from: bytes).seen == "read")
    }
}
