import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// How the unarchiver reads: typed values, defaults, ranges, secure decoding, the registry, cycles.
@Suite("Unarchiver behaviour")
struct UnarchiverBehaviourTests {
    let samplerRegistry = ClassRegistry([Sampler.self])

    @Test func everyScalarAndValueKindRoundTrips() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Sampler())
        let s = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Sampler.self, from: bytes, registry: samplerRegistry))
        let o = Sampler()
        #expect(s.flag == o.flag && s.int == o.int && s.int32 == o.int32 && s.int64 == o.int64)
        #expect(s.float == o.float && s.double == o.double && s.bytes == o.bytes)
        #expect(s.string == "text" && s.missing == nil)
        #expect(s.date == o.date && s.data == o.data && s.uuid == o.uuid)
        #expect(s.url.absoluteString == "https://example.com/docs/index.html" && s.url.relativeString == "index.html")
        #expect(s.names == o.names && s.scores == o.scores && s.tags == o.tags)
    }

    @Test func missingScalarKeysDecodeToZeroAndFalse() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Point(x: 1, y: 2))
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry([Point.self])) { (u: KeyedUnarchiver) throws in
            #expect(try u.containsValue(forKey: "root"))
            #expect(try !u.containsValue(forKey: "nothing"))
            #expect(try u.decode(Bool.self, forKey: "nothing") == false)
            #expect(try u.decode(Int.self, forKey: "nothing") == 0)
            #expect(try u.decode(Int32.self, forKey: "nothing") == 0)
            #expect(try u.decode(Int64.self, forKey: "nothing") == 0)
            #expect(try u.decode(Float.self, forKey: "nothing") == 0)
            #expect(try u.decode(Double.self, forKey: "nothing") == 0)
            #expect(try u.decodeBytes(forKey: "nothing") == nil)
            #expect(try u.decodeIfPresent(String.self, forKey: "nothing") == nil)
            expectKeyedError(.valueNotFound) { try u.decode(String.self, forKey: "nothing") }
        }
    }

    /// `decode` and `decodeIfPresent` of `String`, `Date` and `Data` go through functions made for each type;
    /// they answer as the general path does (reached here through `Any`): the value, `nil` or
    /// `valueNotFound` for a missing key or `$null`, `typeMismatch` for another class, with the key path.
    @Test(arguments: [false, true])
    func typeMadeDecodesAnswerAsTheGeneralPath(secure: Bool) throws {
        let archiver = KeyedArchiver()
        let date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        archiver.encode("text", forKey: "string")
        archiver.encode(date, forKey: "date")
        archiver.encode(Data([1, 2, 3]), forKey: "data")
        archiver.encode(Optional<String>.none, forKey: "null")
        archiver.encode(7, forKey: "number")
        let bytes = try archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: bytes, requiresSecureCoding: secure) { (u: KeyedUnarchiver) throws in
            #expect(try u.decode(String.self, forKey: "string") == "text")
            #expect(try u.decodeIfPresent(String.self, forKey: "string") == "text")
            #expect(try u.decode(Date.self, forKey: "date") == date)
            #expect(try u.decodeIfPresent(Date.self, forKey: "date") == date)
            #expect(try u.decode(Data.self, forKey: "data") == Data([1, 2, 3]))
            #expect(try u.decodeIfPresent(Data.self, forKey: "data") == Data([1, 2, 3]))
            for key in ["null", "absent"] {
                #expect(try u.decodeIfPresent(String.self, forKey: key) == nil)
                #expect(try u.decodeIfPresent(Date.self, forKey: key) == nil)
                #expect(try u.decodeIfPresent(Data.self, forKey: key) == nil)
                for error in [expectKeyedError(.valueNotFound) { try u.decode(String.self, forKey: key) },
                              expectKeyedError(.valueNotFound) { try u.decode(Date.self, forKey: key) },
                              expectKeyedError(.valueNotFound) { try u.decode(Data.self, forKey: key) }] {
                    #expect(error?.keyPath == key)
                }
            }
            // Another class under the key: a type mismatch naming the key.
            let mismatches: [(String, KeyedArchiveError?)] = [
                ("date", expectKeyedError(.typeMismatch) { try u.decode(String.self, forKey: "date") }),
                ("data", expectKeyedError(.typeMismatch) { try u.decode(Date.self, forKey: "data") }),
                ("string", expectKeyedError(.typeMismatch) { try u.decodeIfPresent(Data.self, forKey: "string") }),
                ("number", expectKeyedError(.typeMismatch) { try u.decode(String.self, forKey: "number") }),
            ]
            for (key, error) in mismatches { #expect(error?.keyPath == key) }
        }
    }

    @Test func a64BitValueReadAsInt32IsARangeError() throws {
        let archiver = KeyedArchiver()
        archiver.encode(Int64(1) << 40, forKey: "big")
        archiver.encode(Int64(-5), forKey: "small")
        let bytes = try archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: bytes) { (u: KeyedUnarchiver) throws in
            let error = expectKeyedError(.outOfRange) { try u.decode(Int32.self, forKey: "big") }
            #expect(error?.keyPath == "big")
            #expect(try u.decode(Int64.self, forKey: "big") == 1 << 40)
            #expect(try u.decode(Int32.self, forKey: "small") == -5)
        }
    }

    @Test func aValueOfTheWrongTypeIsATypeMismatch() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Style(name: "s", strokeWidth: 1))
        // Without secure coding the Style is decoded, then found not to be what was asked for.
        expectKeyedError(.typeMismatch) {
            try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: shapeRegistry, requiresSecureCoding: false)
        }
        expectKeyedError(.typeMismatch) {
            try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes, registry: shapeRegistry, requiresSecureCoding: false)
        }
        // With secure coding (the one-call default) its class is refused before Style's init runs.
        expectKeyedError(.classNotAllowed) { try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: shapeRegistry) }
        expectKeyedError(.classNotAllowed) { try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes, registry: shapeRegistry) }
    }

    @Test func numbersConvertExactlyBetweenSwiftTypes() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: [1, 2, 3])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Double].self, from: bytes) == [1, 2, 3])
        let reals = try KeyedArchiver.archivedData(withRootObject: [1.5])
        expectKeyedError(.typeMismatch) { try KeyedUnarchiver.unarchivedObject(ofType: [Int].self, from: reals) }
    }

    @Test func oneCallDecodingOfOneOfSeveralAllowedTypes() throws {
        let (contents, _) = makeContents(count: 9)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let allowed: [Any.Type] = [Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self]
        let decoded = try KeyedUnarchiver.unarchivedObject(ofTypes: allowed, from: bytes, registry: shapeRegistry)
        #expect((decoded as? Contents)?.shapes.count == 9)
        // Secure decoding: Style is registered but not allowed, so the graph is refused before Style's init runs.
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofTypes: [Contents.self, Circle.self, Rectangle.self], from: bytes, registry: shapeRegistry)
        }
        // RoundedRectangle is allowed (a subclass of Rectangle, see below): Style, first met as shapes[0].style
        // (object 4: Contents, NSArray, Circle, Style), is the one class refused.
        #expect(error?.classChain == ["Style", "NSObject"])
        #expect(error?.objectIndex == 4)
        // A subclass of an allowed class is allowed.
        let rounded = try KeyedArchiver.archivedData(withRootObject: RoundedRectangle(x: 0, y: 0, width: 1, height: 1, cornerRadius: 2))
        #expect(try KeyedUnarchiver.unarchivedObject(ofTypes: [Rectangle.self], from: rounded, registry: shapeRegistry) is RoundedRectangle)
        // The root must be one of the named types.
        expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofTypes: [String.self], from: rounded, registry: shapeRegistry)
        }
    }

    @Test func registryRenamesAndModuleQualifiedNamesResolve() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("OldCircle", for: Circle.self)
        archiver.encode(Circle(centerX: 0, centerY: 0, radius: 4), forKey: "root")
        let bytes = try archiver.finishEncoding()
        expectKeyedError(.unknownClass) { try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: shapeRegistry) }
        let renamed = shapeRegistry.renaming("OldCircle", to: Circle.self)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: renamed)?.radius == 4)
        #expect(shapeRegistry.type(forClassName: "MyApp.Circle") == Circle.self)
        #expect(shapeRegistry.type(forClassName: "Deeply.Nested.Style") == Style.self)
        #expect(shapeRegistry.type(forClassName: "MyApp.Hexagon") == nil)
    }

    @Test func unknownClassesBecomeArchivedObjectsThatReEncodeLosslessly() throws {
        let (contents, _) = makeContents(count: 7)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let generic = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()))
        #expect(generic.classChain == ["Contents", "NSObject"])
        guard case .object(let shapes as [Any])? = generic["shapes"] else { Issue.record("shapes"); return }
        let rounded = try #require(shapes[2] as? ArchivedObject)
        #expect(rounded.classChain == ["RoundedRectangle", "Rectangle", "NSObject"])
        guard case .value(.real(let corner))? = rounded["cornerRadius"] else { Issue.record("corner"); return }
        #expect(corner == 2.0 / 7)
        // Shared Style stays one instance.
        guard case .object(let s0 as ArchivedObject)? = (shapes[0] as? ArchivedObject)?["style"] else { Issue.record("style"); return }
        #expect(s0.className == "Style")
        let again = try KeyedArchiver.archivedData(withRootObject: generic)
        #expect(again == bytes)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: again, registry: shapeRegistry)?.shapes.count == 7)
    }

    @Test func parentChildCyclesRoundTripWithDeferredDecoding() throws {
        let root = TreeNode(name: "root")
        let a = TreeNode(name: "a"), b = TreeNode(name: "b")
        root.add(a)
        root.add(b)
        a.add(TreeNode(name: "a1"))
        let bytes = try KeyedArchiver.archivedData(withRootObject: root)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: TreeNode.self, from: bytes, registry: ClassRegistry([TreeNode.self])))
        #expect(decoded.children.map(\.name) == ["a", "b"])
        #expect(decoded.children[0].parent === decoded && decoded.children[1].parent === decoded)
        #expect(decoded.children[0].children[0].parent === decoded.children[0])
        #expect(decoded.parent == nil)
    }

    @Test func theUnarchiverCannotBeUsedAfterItsScope() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: "x")
        let escaped = try KeyedUnarchiver.withUnarchiver(for: bytes) { $0 }
        expectKeyedError(.invalidValue) { try escaped.decode(String.self, forKey: "root") }
    }

    @Test func topLevelKeysOtherThanRootAreReadable() throws {
        let archiver = KeyedArchiver(outputFormat: .xml)
        archiver.encode("v", forKey: "name")
        archiver.encode(3, forKey: "count")
        let bytes = try archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: bytes) { (u: KeyedUnarchiver) throws in
            #expect(try u.decode(String.self, forKey: "name") == "v")
            #expect(try u.decode(Int.self, forKey: "count") == 3)
            #expect(try Set(u.allKeys()) == ["name", "count"])
        }
        expectKeyedError(.valueNotFound) { try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes) }
    }

    @Test func standardValuesDecodeToNaturalSwiftTypes() throws {
        let value: [String: Any] = [
            "null": ArchivedNull(), "range": ArchivedValue.range(location: 3, length: 4),
            "rect": ArchivedValue.rect(x: 1, y: 2, width: 3, height: 4.5), "point": ArchivedValue.point(x: -1, y: 0.25),
            "size": ArchivedValue.size(width: 5, height: 6), "insets": ArchivedValue.edgeInsets(top: 1, left: 2, bottom: 3, right: 4),
            "ordered": ArchivedOrderedSet(["z", "a", "m"]), "big": UInt64.max, "set": Set([1, 2]),
        ]
        let bytes = try KeyedArchiver.archivedData(withRootObject: value)
        let d = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: bytes))
        #expect(d["null"] is ArchivedNull)
        #expect(d["range"] as? ArchivedValue == .range(location: 3, length: 4))
        #expect(d["rect"] as? ArchivedValue == .rect(x: 1, y: 2, width: 3, height: 4.5))
        #expect(d["point"] as? ArchivedValue == .point(x: -1, y: 0.25))
        #expect(d["size"] as? ArchivedValue == .size(width: 5, height: 6))
        #expect(d["insets"] as? ArchivedValue == .edgeInsets(top: 1, left: 2, bottom: 3, right: 4))
        #expect((d["ordered"] as? ArchivedOrderedSet)?.elements == ["z", "a", "m"])
        #expect(d["big"] as? UInt64 == .max)
        #expect(d["set"] as? Set<AnyHashable> == [1, 2])
    }
}
