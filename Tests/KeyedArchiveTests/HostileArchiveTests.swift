import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing

/// Malformed and malicious archives: each fails with a typed error, never a trap or a hang.
@Suite("Hostile keyed archives")
struct HostileArchiveTests {
    typealias H = HostileArchive
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    func decodeRoot(_ bytes: [UInt8], registry: ClassRegistry = generic) throws -> Any? {
        try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: registry)
    }

    let plain: [PlistValue] = ["$null", "hello"]

    @Test func missingArchiverIsRejected() throws {
        let bytes = try H.bytes(objects: .array(plain), archiver: nil)
        expectKeyedError(.invalidHeader) { try decodeRoot(bytes) }
        expectKeyedError(.invalidHeader) { try ArchiveGraph(bytes: bytes) }
    }

    @Test func wrongArchiverIsRejected() throws {
        let foreign = expectKeyedError(.foreignArchiver) {
            try decodeRoot(try H.bytes(objects: .array(plain), archiver: "NSArchiver"))
        }
        #expect(foreign?.archiver == "NSArchiver")
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array(plain), archiver: 7)) }
    }

    @Test func missingVersionIsRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array(plain), version: nil)) }
    }

    @Test func wrongVersionIsRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array(plain), version: 99_999)) }
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array(plain), version: "100000")) }
    }

    @Test func missingTopIsRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array(plain), top: nil)) }
    }

    @Test func topThatIsNotADictionaryIsRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array(plain), top: .array([]))) }
    }

    @Test func missingObjectsIsRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: nil)) }
    }

    @Test func objectsThatAreNotAnArrayAreRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .dictionary([:]))) }
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(objects: .array([]))) }
    }

    @Test func firstObjectThatIsNotNullIsRejected() throws {
        expectKeyedError(.invalidHeader) { try decodeRoot(try H.bytes(["nil", "hello"])) }
    }

    @Test func extraTopLevelKeysAndAnyKeyOrderAreAccepted() throws {
        let bytes = try PropertyList.encode(.dictionary([
            "$objects": .array(plain), "extra": 1, "$top": .dictionary(["root": H.uid(1)]),
            "$archiver": "NSKeyedArchiver", "$version": 100_000,
        ]))
        #expect(try decodeRoot(bytes) as? String == "hello")
    }

    @Test func uidOutOfRangeInTopIsRejected() throws {
        let bytes = try H.bytes(objects: .array(plain), top: .dictionary(["root": H.uid(2)]))
        let error = expectKeyedError(.invalidReference) { try decodeRoot(bytes) }
        #expect(error?.objectIndex == 2)
        expectKeyedError(.invalidReference) { try ArchiveJSON.render(bytes) }
    }

    @Test func uidOutOfRangeInAFieldIsRejected() throws {
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "x": H.uid(99)]), H.classEntry("Thing")])
        let error = expectKeyedError(.invalidReference) { try decodeRoot(bytes) }
        #expect(error?.keyPath == "root.x")
    }

    @Test func uidOutOfRangeInAnArrayIsRejected() throws {
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "NS.objects": .array([H.uid(40)])]),
                                 H.classEntry("NSArray")])
        expectKeyedError(.invalidReference) { try decodeRoot(bytes) }
    }

    @Test func missingClassIsRejected() throws {
        let bytes = try H.bytes(["$null", .dictionary(["name": H.uid(2)]), "x"])
        expectKeyedError(.invalidClass) { try decodeRoot(bytes) }
        expectKeyedError(.invalidClass) { try ArchiveJSON.render(bytes) }
    }

    @Test func classThatIsNotAUIDIsRejected() throws {
        expectKeyedError(.invalidClass) { try decodeRoot(try H.bytes(["$null", .dictionary(["$class": "NSArray"])])) }
    }

    @Test func classPointingAtAStringIsRejected() throws {
        expectKeyedError(.invalidClass) { try decodeRoot(try H.bytes(["$null", .dictionary(["$class": H.uid(2)]), "NSArray"])) }
    }

    @Test func classDictionaryWithoutAStringClassnameIsRejected() throws {
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2)]), .dictionary(["$classname": 5])])
        expectKeyedError(.invalidClass) { try decodeRoot(bytes) }
    }

    @Test func classPointingAtNullIsRejected() throws {
        expectKeyedError(.invalidClass) { try decodeRoot(try H.bytes(["$null", .dictionary(["$class": H.uid(0)])])) }
    }

    @Test func dictionaryKeysAndObjectsOfDifferentLengthsAreRejected() throws {
        let bytes = try H.bytes(["$null",
                                 .dictionary(["$class": H.uid(3), "NS.keys": .array([H.uid(2), H.uid(2)]), "NS.objects": .array([H.uid(2)])]),
                                 "k", H.classEntry("NSDictionary")])
        expectKeyedError(.invalidValue) { try decodeRoot(bytes) }
        expectKeyedError(.invalidValue) { try ArchiveJSON.render(bytes) }
    }

    @Test func uuidBytesThatAreNot16BytesAreRejected() throws {
        for count in [0, 15, 17] {
            let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "NS.uuidbytes": .data(Array(repeating: 7, count: count))]),
                                     H.classEntry("NSUUID")])
            expectKeyedError(.invalidValue) { try decodeRoot(bytes) }
        }
    }

    @Test func nanDatesAreRejected() throws {
        for t in [Double.nan, .infinity] {
            let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "NS.time": .real(t)]), H.classEntry("NSDate")])
            expectKeyedError(.invalidValue) { try decodeRoot(bytes) }
        }
    }

    @Test func aTypeThatChangesOnASecondDecodeOfTheSameUIDIsRejected() throws {
        // Two keys refer to the same Style object; the second asks for a Circle.
        let bytes = try H.bytes(["$null",
                                 .dictionary(["$class": H.uid(5), "a": H.uid(2), "b": H.uid(2)]),
                                 .dictionary(["$class": H.uid(4), "name": H.uid(3), "strokeWidth": 1.5]), "s",
                                 H.classEntry("Style"), H.classEntry("Pair")])
        let registry = shapeRegistry.registering(Pair.self)
        let error = expectKeyedError(.typeMismatch) {
            try KeyedUnarchiver.unarchivedObject(ofTypes: [Pair.self, Style.self, Circle.self], from: bytes, registry: registry)
        }
        #expect(error?.keyPath == "root.b")
        #expect(error?.objectIndex == 2)
    }

    @Test func anArrayContainingItselfIsACycleError() throws {
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "NS.objects": .array([H.uid(1)])]),
                                 H.classEntry("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"])])
        expectKeyedError(.cycle) { try decodeRoot(bytes) }
        #expect(try ArchiveJSON.render(bytes) == #"[{"ref": "NSMutableArray"}]"#)
    }

    @Test func aClassCycleWithoutDeferredDecodingIsACycleError() throws {
        // A Node whose child refers back to it, decoded by a type that reads `parent` eagerly.
        let bytes = try H.bytes(["$null",
                                 .dictionary(["$class": H.uid(3), "child": H.uid(2)]),
                                 .dictionary(["$class": H.uid(3), "parent": H.uid(1)]),
                                 H.classEntry("EagerNode")])
        let error = expectKeyedError(.cycle) {
            try KeyedUnarchiver.unarchivedObject(ofType: EagerNode.self, from: bytes, registry: ClassRegistry([EagerNode.self]))
        }
        #expect(error?.keyPath == "root.child.parent")
    }

    @Test func nestingTenThousandDeepIsADepthError() throws {
        var objects: [PlistValue] = ["$null"]
        let depth = 10_000
        for i in 1...depth {
            let children: [PlistValue] = i < depth ? [H.uid(UInt64(i + 1))] : []
            objects.append(.dictionary(["$class": H.uid(UInt64(depth + 1)), "NS.objects": .array(children)]))
        }
        objects.append(H.classEntry("NSArray"))
        let bytes = try H.bytes(objects)
        expectKeyedError(.depthLimitExceeded) { try decodeRoot(bytes) }
        expectKeyedError(.depthLimitExceeded) { try ArchiveJSON.render(bytes) }
        #expect(try ArchiveDump.render(bytes).contains("[1] NSArray"))
    }

    @Test func sharedArraysSixtyLevelsDeepHitTheObjectBudget() throws {
        // Each array holds the next one twice: 2^60 paths through 61 objects.
        var objects: [PlistValue] = ["$null"]
        for i in 1...60 {
            let next = H.uid(UInt64(i + 1))
            objects.append(.dictionary(["$class": H.uid(62), "NS.objects": .array([next, next])]))
        }
        objects.append("leaf")
        objects.append(H.classEntry("NSArray"))
        let bytes = try H.bytes(objects)
        expectKeyedError(.elementLimitExceeded) {
            try KeyedUnarchiver.withUnarchiver(for: bytes, maxObjects: 100_000) { try $0.decodeIfPresent(Any.self, forKey: "root") }
        }
        expectKeyedError(.elementLimitExceeded) { try ArchiveJSON.render(bytes) }
    }

    @Test func unknownClassErrorNamesTheClassAndItsChain() throws {
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2)]), H.classEntry("Hexagon", ["Hexagon", "Shape", "NSObject"])])
        let error = expectKeyedError(.unknownClass) { try decodeRoot(bytes, registry: shapeRegistry) }
        #expect(error?.classChain == ["Hexagon", "Shape", "NSObject"])
        #expect(error?.description.contains("Hexagon") == true)
    }

    @Test func classesClaimsNeverWidenWhatIsAllowed() throws {
        // The file claims its unknown class descends from Circle; that is never used to pick a type.
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "radius": 2.0]),
                                 H.classEntry("Evil", ["Evil", "Circle", "NSObject"])])
        expectKeyedError(.unknownClass) { try decodeRoot(bytes, registry: shapeRegistry) }
        expectKeyedError(.unknownClass) {
            try KeyedUnarchiver.unarchivedObject(ofTypes: [Circle.self], from: bytes, registry: shapeRegistry)
        }
    }

    @Test func inlineCollectionsAsScalarsAreTypeMismatches() throws {
        let bytes = try H.bytes(["$null", .dictionary(["$class": H.uid(2), "center.x": .array([1, 2])]), H.classEntry("Circle")])
        expectKeyedError(.typeMismatch) { try decodeRoot(bytes, registry: shapeRegistry) }
    }

    @Test func garbageBytesAreAPlistError() throws {
        expectKeyedError(.invalidPlist) { try decodeRoot(Array("not a plist".utf8)) }
        expectKeyedError(.invalidPlist) { try decodeRoot([]) }
        var truncated = try H.bytes(plain)
        truncated.removeLast(10)
        expectKeyedError(.invalidPlist) { try decodeRoot(truncated) }
    }

    @Test func invalidArchiveJSONIsRejected() {
        let expected: [(text: String, description: String)] = [
            ("{", "archive-json: at byte 1: expected a string key"),
            (#"{"nope": 1}"#, #"archive-json: unknown wrapper {"nope": ...}"#),
            (#"{"uuid": "zzz"}"#, #"archive-json: invalid UUID "zzz""#),
            (#"{"ref": "Nothing"}"#, #"archive-json: {"ref": "Nothing"} has no enclosing object of that class"#),
            ("1.5", #"archive-json: 1.5 is not an integer (write reals as {"real": x})"#),
            (#"{"data": "!!"}"#, "archive-json: invalid base64"),
        ]
        for (text, description) in expected {
            let error = expectArchiveJSONError { try ArchiveJSON.encode(text) }
            #expect(error?.description == description, "\(text)")
        }
    }
}

/// A pair of references, for the second-decode test.
final class Pair: KeyedArchivable {
    var a: Style?
    var b: Circle?
    required init(coder: KeyedUnarchiver) throws {
        a = try coder.decodeIfPresent(Style.self, forKey: "a")
        b = try coder.decodeIfPresent(Circle.self, forKey: "b")
    }
    func encode(with coder: KeyedArchiver) {}
}

/// A node that reads its parent eagerly: a cycle through it cannot be decoded.
final class EagerNode: KeyedArchivable {
    var child: EagerNode?
    var parent: EagerNode?
    required init(coder: KeyedUnarchiver) throws {
        child = try coder.decodeIfPresent(EagerNode.self, forKey: "child")
        parent = try coder.decodeIfPresent(EagerNode.self, forKey: "parent")
    }
    func encode(with coder: KeyedArchiver) {}
}
