import KeyedArchive
import Testing

/// Secure coding across the whole graph: every decode names its types; classes not asked for are refused
/// before their initializer runs.
@Suite("Secure coding")
struct SecureCodingTests {
    static let registry = shapeRegistry.registering(Tripwire.self).registering(ShapeHolder.self).registering(UntypedBag.self)
        .registering(Drawing.self).registering(AnyList.self)

    func archive(_ root: Any?) throws -> [UInt8] { try KeyedArchiver.archivedData(withRootObject: root) }

    @Test func theOneCallAPIsAreSecureByDefaultAndTypedNestedDecodesSatisfyThem() throws {
        let (contents, _) = makeContents(count: 12)
        let bytes = try archive(contents)
        // Contents decodes [any Shape], the shapes decode Style?: every nested decode names its type.
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: Self.registry))
        #expect(decoded.shapes.count == 12)
        #expect(decoded.shapes.compactMap(\.style).count == 2)
    }

    @Test func anUntypedNestedDecodeIsRefusedNamingWhatItFound() throws {
        let bytes = try archive(UntypedBag(item: Circle(centerX: 1, centerY: 2, radius: 3)))
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: UntypedBag.self, from: bytes, registry: Self.registry)
        }
        #expect(error?.keyPath == "root.item")
        #expect(error?.objectIndex == 1)
        #expect(error?.reason == #"secure coding: the decode asks for Any, which names no type; found class "Circle" (name its type, or list them with allowedTypes:)"#)
        // A string is refused too: `Any` names no type whatever is found.
        let text = try archive(UntypedBag(item: "hello"))
        let stringError = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: UntypedBag.self, from: text, registry: Self.registry)
        }
        #expect(stringError?.reason.hasSuffix("found a string (name its type, or list them with allowedTypes:)") == true)
        // A missing or $null value decodes as nil: nothing was found to refuse.
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: UntypedBag.self, from: try archive(UntypedBag(item: nil)), registry: Self.registry)?.item == nil)
        // Without secure coding the same archive decodes.
        let insecure = try KeyedUnarchiver.unarchivedObject(ofType: UntypedBag.self, from: bytes, registry: Self.registry, requiresSecureCoding: false)
        #expect((insecure?.item as? Circle)?.radius == 3)
    }

    @Test func collectionsOfAnyAreUntypedToo() throws {
        let bytes = try archive(AnyList(items: ["a", "b"], table: ["k": 1]))
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: AnyList.self, from: bytes, registry: Self.registry)
        }
        #expect(error?.keyPath == "root.items")
        #expect(error?.reason.hasPrefix("secure coding: the decode asks for Array<Any>, which names no type; found class \"NSArray\"") == true)
        let insecure = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: AnyList.self, from: bytes, registry: Self.registry, requiresSecureCoding: false))
        #expect(insecure.items as? [String] == ["a", "b"])
        #expect(insecure.table as? [String: Int] == ["k": 1])
    }

    @Test func aClassNotAskedForIsRefusedBeforeItsInitializerRuns() throws {
        // Tripwire's init throws: reaching it would be a different error.
        let bytes = try archive(ShapeHolder(shape: Tripwire()))
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: ShapeHolder.self, from: bytes, registry: Self.registry)
        }
        #expect(error?.keyPath == "root.shape")
        #expect(error?.classChain == ["Tripwire", "NSObject"])
        #expect(error?.description == #"keyed archive: object 2 (Tripwire < NSObject) at root.shape: secure coding: class "Tripwire" (Tripwire) is not among the types asked for: Circle"#)
        // Without secure coding the initializer runs (and throws).
        #expect(throws: Tripwire.Sprung.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: ShapeHolder.self, from: bytes, registry: Self.registry, requiresSecureCoding: false)
        }
    }

    @Test func arrayElementsAreCheckedAgainstTheElementTypeWithTheirKeyPath() throws {
        let bytes = try archive([Circle(centerX: 0, centerY: 0, radius: 1), Tripwire()] as [Any])
        // Before: "expected Array<Circle>, found Array<Any>", after Tripwire's init had run.
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: [Circle].self, from: bytes, registry: Self.registry)
        }
        #expect(error?.keyPath == "root.NS.objects.1")
        #expect(error?.reason == #"secure coding: class "Tripwire" (Tripwire) is not among the types asked for: Array<Circle>"#)
        let arrayError = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: bytes, registry: Self.registry)
        }
        #expect(arrayError?.classChain == ["Tripwire", "NSObject"])
        #expect(arrayError?.reason == #"secure coding: class "Tripwire" (Tripwire) is not among the types asked for: Array<Circle>"#)
    }

    @Test func anElementOfANestedArrayIsNamedByBothIndexes() throws {
        let bytes = try archive([[Circle(centerX: 0, centerY: 0, radius: 1)], [Circle(centerX: 1, centerY: 1, radius: 1), Tripwire()]] as [Any])
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: [[Circle]].self, from: bytes, registry: Self.registry)
        }
        #expect(error?.keyPath == "root.NS.objects.1.NS.objects.1")
        #expect(error?.classChain == ["Tripwire", "NSObject"])
    }

    @Test func aVerdictForOneListIsNotTakenForTheNext() throws {
        let archiver = KeyedArchiver()
        archiver.encode(Circle(centerX: 1, centerY: 1, radius: 2), forKey: "a")
        archiver.encode(Circle(centerX: 2, centerY: 2, radius: 3), forKey: "b")
        let bytes = try archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: Self.registry, requiresSecureCoding: true) { (u: KeyedUnarchiver) throws in
            #expect((try u.decodeIfPresent(Any.self, forKey: "a", allowedTypes: [Circle.self, Style.self]) as? Circle)?.radius == 2)
            // The same class under a list that leaves it out, in the same place of the unarchiver's list stack.
            let error = expectKeyedError(.classNotAllowed) { try u.decodeIfPresent(Any.self, forKey: "b", allowedTypes: [Style.self]) }
            #expect(error?.reason == #"secure coding: class "Circle" (Circle) is not among the types asked for: Style"#)
        }
    }

    @Test func aSubclassOfTheTypeAskedForIsAllowed() throws {
        let shapes = [Rectangle(x: 0, y: 0, width: 1, height: 2), RoundedRectangle(x: 1, y: 1, width: 3, height: 4, cornerRadius: 1)]
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Rectangle].self, from: try archive(shapes), registry: Self.registry))
        #expect(decoded.count == 2)
        #expect((decoded[1] as? RoundedRectangle)?.cornerRadius == 1)
        // The superclass is not allowed where the subclass is asked for.
        expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: [RoundedRectangle].self, from: try archive(shapes), registry: Self.registry)
        }
    }

    @Test func anExistentialIsCheckedOnceDecoded() throws {
        // No metatype comparison can tell whether Style conforms to Shape before it is decoded: it is
        // decoded (it is registered), then found not to be a Shape.
        let bytes = try archive(Contents(shapes: []))
        let withStyle = try KeyedArchiver.archivedData(withRootObject: ShapeHolder(shape: nil, any: Style(name: "s", strokeWidth: 1)))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: Self.registry)?.shapes.isEmpty == true)
        let error = expectKeyedError(.typeMismatch) {
            try KeyedUnarchiver.unarchivedObject(ofType: ShapeHolder.self, from: withStyle, registry: Self.registry)
        }
        #expect(error?.reason == "expected Shape, found Style")
        #expect(error?.keyPath == "root.any")
    }

    @Test func decodeWithAllowedTypesChecksTheListForOneKey() throws {
        let circle = try archive(Drawing(shape: Circle(centerX: 0, centerY: 0, radius: 5)))
        #expect((try KeyedUnarchiver.unarchivedObject(ofType: Drawing.self, from: circle, registry: Self.registry)?.shape as? Circle)?.radius == 5)
        let rounded = try archive(Drawing(shape: RoundedRectangle(x: 0, y: 0, width: 1, height: 1, cornerRadius: 0.5)))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Drawing.self, from: rounded, registry: Self.registry)?.shape is RoundedRectangle)
        let tripwire = try archive(Drawing(shape: Tripwire()))
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: Drawing.self, from: tripwire, registry: Self.registry)
        }
        #expect(error?.keyPath == "root.shape")
        #expect(error?.reason == #"secure coding: class "Tripwire" (Tripwire) is not among the types asked for: Circle, Rectangle"#)
        // The list holds with secure coding off as well: it is what the caller asked for.
        expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: Drawing.self, from: tripwire, registry: Self.registry, requiresSecureCoding: false)
        }
    }

    @Test func decodeIfPresentWithAllowedTypesReturnsWhatWasFound() throws {
        let archiver = KeyedArchiver()
        archiver.encode(Circle(centerX: 1, centerY: 1, radius: 2), forKey: "a")
        archiver.encode([Style(name: "x", strokeWidth: 1)], forKey: "b")
        archiver.encode(Tripwire(), forKey: "c")
        archiver.encode("text", forKey: "d")
        archiver.encode(4, forKey: "e")
        archiver.encodeObject(4, forKey: "f")
        let bytes = try archiver.finishEncoding()
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: Self.registry, requiresSecureCoding: true) { (u: KeyedUnarchiver) throws in
            let a = try u.decodeIfPresent(Any.self, forKey: "a", allowedTypes: [Circle.self, Style.self])
            #expect((a as? Circle)?.radius == 2)
            // Elements of a collection are checked against the same list.
            let b = try u.decodeIfPresent(Any.self, forKey: "b", allowedTypes: [Circle.self, Style.self])
            #expect((b as? [Any])?.first is Style)
            #expect(try u.decodeIfPresent(Any.self, forKey: "missing", allowedTypes: [Circle.self]) == nil)
            expectKeyedError(.classNotAllowed) { try u.decodeIfPresent(Any.self, forKey: "c", allowedTypes: [Circle.self]) }
            expectKeyedError(.valueNotFound) { try u.decode(Circle.self, forKey: "missing", allowedTypes: [Circle.self]) }
            // A standard value must be listed too, as Apple requires NSString to be.
            let text = expectKeyedError(.classNotAllowed) { try u.decodeIfPresent(Any.self, forKey: "d", allowedTypes: [Circle.self]) }
            #expect(text?.reason == "secure coding: found String, which is not among the types asked for: Circle")
            #expect(try u.decodeIfPresent(Any.self, forKey: "d", allowedTypes: [String.self]) as? String == "text")
            // Numbers convert exactly to a listed number type, inline or as an object.
            #expect(try u.decodeIfPresent(Any.self, forKey: "e", allowedTypes: [Double.self]) as? Int == 4)
            #expect(try u.decodeIfPresent(Any.self, forKey: "f", allowedTypes: [Int.self]) as? Int == 4)
            expectKeyedError(.classNotAllowed) { try u.decodeIfPresent(Any.self, forKey: "f", allowedTypes: [String.self]) }
        }
    }

    @Test func anyAtTheTopLevelAcceptsWhatTheRegistryDecodes() throws {
        let (contents, _) = makeContents(count: 3)
        let value = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: try archive(contents), registry: Self.registry)
        #expect((value as? Contents)?.shapes.count == 3)
        let plist: [String: Any] = ["a": [1, 2], "b": "text"]
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: try archive(plist)))
        #expect(decoded["a"] as? [Int] == [1, 2])
        #expect(decoded["b"] as? String == "text")
    }

    @Test func withUnarchiverIsNotSecureUnlessAsked() throws {
        let bytes = try archive(UntypedBag(item: "hello"))
        let item = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: Self.registry) { (u: KeyedUnarchiver) throws in
            #expect(!u.requiresSecureCoding)
            return try u.decode(UntypedBag.self, forKey: "root").item
        }
        #expect(item as? String == "hello")
        expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.withUnarchiver(for: bytes, registry: Self.registry, requiresSecureCoding: true) { (u: KeyedUnarchiver) throws in
                try u.decode(UntypedBag.self, forKey: "root")
            }
        }
    }
}

/// A class whose initializer must never run: it throws.
final class Tripwire: KeyedArchivable, Shape {
    struct Sprung: Error {}
    var style: Style? { nil }
    init() {}
    init(coder: KeyedUnarchiver) throws { throw Sprung() }
    func encode(with coder: KeyedArchiver) {}
}

/// Reads `shape` as a Circle, and `any` as `any Shape`.
final class ShapeHolder: KeyedArchivable {
    var shape: (any Shape)?
    var any: Any?
    init(shape: (any Shape)?, any: Any? = nil) { (self.shape, self.any) = (shape, any) }
    init(coder: KeyedUnarchiver) throws {
        shape = try coder.decodeIfPresent(Circle.self, forKey: "shape")
        any = try coder.decodeIfPresent((any Shape).self, forKey: "any")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encodeObject(shape, forKey: "shape")
        coder.encodeObject(any, forKey: "any")
    }
}

/// Reads `item` untyped.
final class UntypedBag: KeyedArchivable {
    var item: Any?
    init(item: Any?) { self.item = item }
    init(coder: KeyedUnarchiver) throws { item = try coder.decodeIfPresent(Any.self, forKey: "item") }
    func encode(with coder: KeyedArchiver) { coder.encodeObject(item, forKey: "item") }
}

/// Reads collections of `Any`.
final class AnyList: KeyedArchivable {
    var items: [Any]
    var table: [String: Any]
    init(items: [Any], table: [String: Any]) { (self.items, self.table) = (items, table) }
    init(coder: KeyedUnarchiver) throws {
        items = try coder.decode([Any].self, forKey: "items")
        table = try coder.decode([String: Any].self, forKey: "table")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(items, forKey: "items")
        coder.encode(table, forKey: "table")
    }
}

/// Reads `shape` as `any Shape`, allowing Circle and Rectangle (and subclasses).
final class Drawing: KeyedArchivable {
    var shape: any Shape
    init(shape: any Shape) { self.shape = shape }
    init(coder: KeyedUnarchiver) throws {
        shape = try coder.decode((any Shape).self, forKey: "shape", allowedTypes: [Circle.self, Rectangle.self])
    }
    func encode(with coder: KeyedArchiver) { coder.encode(shape, forKey: "shape") }
}
