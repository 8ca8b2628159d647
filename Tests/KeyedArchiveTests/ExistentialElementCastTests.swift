import BinaryPlist
@testable import KeyedArchive
import Testing

/// A class-bound protocol (one witness table), and one to compose with it (two).
private protocol Drawable: AnyObject, KeyedArchivable {
    func area() -> Double
}

private protocol Named: AnyObject {
    var label: String { get }
}

/// The instances of the element classes alive (the suite is serialized, and only it makes them).
private enum Alive {
    nonisolated(unsafe) static var count = 0
}

private class Square: Drawable, Named {
    class var archivedClassName: String { "Square" }
    let side: Double
    init(side: Double) {
        self.side = side
        Alive.count += 1
    }
    required init(coder: KeyedUnarchiver) throws {
        side = try coder.decode(Double.self, forKey: "side")
        Alive.count += 1
    }
    deinit { Alive.count -= 1 }
    func encode(with coder: KeyedArchiver) { coder.encode(side, forKey: "side") }
    func area() -> Double { side * side }
    var label: String { "square \(side)" }
}

/// A subclass that overrides the requirement: its elements must dispatch to the override.
private final class FramedSquare: Square {
    override class var archivedClassName: String { "FramedSquare" }
    override func area() -> Double { side * side + 1 }
    override var label: String { "framed \(side)" }
}

private final class Disc: Drawable, Named {
    static var archivedClassName: String { "Disc" }
    let radius: Double
    init(radius: Double) {
        self.radius = radius
        Alive.count += 1
    }
    init(coder: KeyedUnarchiver) throws {
        radius = try coder.decode(Double.self, forKey: "radius")
        Alive.count += 1
    }
    deinit { Alive.count -= 1 }
    func encode(with coder: KeyedArchiver) { coder.encode(radius, forKey: "radius") }
    func area() -> Double { 3 * radius * radius }
    var label: String { "disc \(radius)" }
}

/// Registered, archivable, but not `Drawable`.
private final class Plain: KeyedArchivable {
    static var archivedClassName: String { "Plain" }
    init() { Alive.count += 1 }
    init(coder: KeyedUnarchiver) throws { Alive.count += 1 }
    deinit { Alive.count -= 1 }
    func encode(with coder: KeyedArchiver) {}
}

/// Reads `items` as `[any Drawable]`, `[any Drawable & Named]`, `[any Shape]` (opaque) or `[Any]`.
private final class Holder: KeyedArchivable {
    enum Form: Int { case drawable, composed, any }
    var drawables: [any Drawable] = []
    var composed: [any Drawable & Named] = []
    var anything: [Any] = []
    nonisolated(unsafe) static var form = Form.drawable
    init(_ items: [any Drawable]) { drawables = items }
    init(coder: KeyedUnarchiver) throws {
        switch Self.form {
        case .drawable: drawables = try coder.decode([any Drawable].self, forKey: "items")
        case .composed: composed = try coder.decode([any Drawable & Named].self, forKey: "items")
        case .any: anything = try coder.decode([Any].self, forKey: "items")
        }
    }
    func encode(with coder: KeyedArchiver) { coder.encode(drawables, forKey: "items") }
}

/// Writes and reads `items` as `[Any]`: classes, a struct and a string side by side. It writes them as
/// `elements` says: `[Any]`, `[any KeyedArchivable]` (opaque existentials) or `[AnyObject]`.
private final class AnyHolder: KeyedArchivable {
    enum Elements { case any, archivable, object }
    var items: [Any]
    var elements = Elements.any
    init(_ items: [Any], as elements: Elements = .any) { (self.items, self.elements) = (items, elements) }
    init(coder: KeyedUnarchiver) throws { items = try coder.decode([Any].self, forKey: "items") }
    func encode(with coder: KeyedArchiver) {
        switch elements {
        case .any: coder.encode(items, forKey: "items")
        case .archivable: coder.encode(items.compactMap { $0 as? any KeyedArchivable }, forKey: "items")
        case .object: coder.encode(items.map { $0 as AnyObject }, forKey: "items")
        }
    }
}

private let registry = ClassRegistry([Holder.self, AnyHolder.self, Square.self, FramedSquare.self, Disc.self, Plain.self,
                                      Point.self])

/// The casts of decoded class instances to an existential element type, answered by the runtime once per
/// dynamic class (`ExistentialElementCasts`): the same elements, dispatch and errors as `as?` on each.
@Suite("Existential element casts", .serialized)
struct ExistentialElementCastTests {
    /// The holder read with `items` in `form` (`[Any]` without secure coding, which refuses it).
    private func decode(_ bytes: [UInt8], _ form: Holder.Form) throws -> Holder {
        Holder.form = form
        let holder = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: form != .any) {
            try $0.decodeTopLevelObject(of: Holder.self, forKey: "root")
        }
        return try #require(holder)
    }

    private func mixed(_ count: Int) -> [any Drawable] {
        (0..<count).map { i -> any Drawable in
            switch i % 3 {
            case 0: Square(side: Double(i))
            case 1: Disc(radius: Double(i))
            default: FramedSquare(side: Double(i))
            }
        }
    }

    @Test func onlyExistentialsOfProtocolsWithWitnessTablesTakeTheCache() {
        #expect(ExistentialElementCasts.forElements((any Drawable).self) != nil)
        #expect(ExistentialElementCasts.forElements((any Drawable & Named).self) != nil)
        #expect(ExistentialElementCasts.forElements((any Shape).self) != nil)
        for type: Any.Type in [Any.self, AnyObject.self, (any Error).self, Square.self, Int.self, String.self,
                               (any Drawable)?.self, [any Drawable].self] {
            func check<T>(_: T.Type) { #expect(ExistentialElementCasts.forElements(T.self) == nil, "\(T.self)") }
            _openExistential(type, do: check)
        }
    }

    @Test func classBoundElementsDispatchToTheirOwnClass() throws {
        let items = mixed(30)
        let bytes = try KeyedArchiver.archivedData(withRootObject: Holder(items))
        let drawables = try decode(bytes, .drawable).drawables
        #expect(drawables.map { $0.area() } == items.map { $0.area() })
        #expect(drawables.map { "\(type(of: $0))" } == items.map { "\(type(of: $0))" })
        // The general path: each element of `[Any]` cast by the runtime.
        let general = try decode(bytes, .any).anything.map { try #require($0 as? any Drawable) }
        #expect(general.map { $0.area() } == drawables.map { $0.area() })
    }

    @Test func aCompositionKeepsBothWitnessTables() throws {
        let items = mixed(12)
        let bytes = try KeyedArchiver.archivedData(withRootObject: Holder(items))
        let composed = try decode(bytes, .composed).composed
        #expect(composed.map(\.label) == items.map { ($0 as? any Named)?.label ?? "" })
        #expect(composed.map { $0.area() } == items.map { $0.area() })
    }

    @Test func opaqueExistentialElementsKeepTheirValuesAndSharedStyle() throws {
        let (contents, style) = makeContents(count: 40)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry))
        #expect(decoded.shapes.count == 40)
        for (a, b) in zip(decoded.shapes, contents.shapes) {
            #expect(type(of: a) == type(of: b))
            #expect(a.style?.name == b.style?.name)
            switch (a, b) {
            case let (a as RoundedRectangle, b as RoundedRectangle):
                #expect([a.x, a.y, a.width, a.height, a.cornerRadius] == [b.x, b.y, b.width, b.height, b.cornerRadius])
            case let (a as Rectangle, b as Rectangle): #expect([a.x, a.y, a.width, a.height] == [b.x, b.y, b.width, b.height])
            case let (a as Circle, b as Circle): #expect([a.centerX, a.centerY, a.radius] == [b.centerX, b.centerY, b.radius])
            default: Issue.record("\(type(of: a)) for \(type(of: b))")
            }
        }
        let styles = decoded.shapes.compactMap(\.style)
        #expect(styles.count == 4 && styles.allSatisfy { $0 === styles[0] } && styles[0].name == style.name)
    }

    @Test func elementsAreReleasedWithTheArray() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Holder(mixed(9)))
        weak var first: AnyObject?
        weak var last: AnyObject?
        do {
            let drawables = try decode(bytes, .drawable).drawables
            first = drawables[0]
            last = drawables[8]
            #expect(first != nil && last != nil)
        }
        #expect(first == nil && last == nil)
    }

    /// Holder → NSArray of Square, Disc, Square, `element` (a class object), Disc.
    private func archive(fourth element: PlistValue) throws -> [UInt8] {
        let uid = HostileArchive.uid
        return try HostileArchive.bytes([
            "$null",
            .dictionary(["$class": uid(9), "items": uid(2)]),                                       // 1
            .dictionary(["$class": uid(10), "NS.objects": .array([uid(3), uid(4), uid(5), uid(6), uid(7)])]),
            .dictionary(["$class": uid(11), "side": .real(2)]),                                     // 3
            .dictionary(["$class": uid(12), "radius": .real(1)]),                                   // 4
            .dictionary(["$class": uid(11), "side": .real(3)]),                                     // 5
            element,                                                                                 // 6
            .dictionary(["$class": uid(12), "radius": .real(2)]),                                   // 7
            .dictionary(["$class": uid(13)]),                                                       // 8: a Plain
            HostileArchive.classEntry("Holder"), HostileArchive.classEntry("NSArray"),              // 9, 10
            HostileArchive.classEntry("Square"), HostileArchive.classEntry("Disc"), HostileArchive.classEntry("Plain"),
        ])
    }

    @Test func anElementOfAnotherClassIsTheSameMismatchAfterCachedOnes() throws {
        let bytes = try archive(fourth: .dictionary(["$class": .uid(PlistUID(13))]))
        // The element's error from the element cast, as before the cache: its index, the array's chain.
        for (form, type) in [(Holder.Form.drawable, "Drawable"), (.composed, "Drawable & Named")] {
            let error = expectKeyedError(.typeMismatch) { try decode(bytes, form) }
            #expect(error?.objectIndex == 6)
            #expect(error?.description == "keyed archive: object 6 (NSArray < NSObject) at root.items.items: expected \(type), found Plain")
        }
        // Read as [Any], the same elements are there, the Plain among them.
        let anything = try decode(bytes, .any).anything
        #expect(anything.map { "\(type(of: $0))" } == ["Square", "Disc", "Square", "Plain", "Disc"])
    }

    /// The elements built before a failing one (three, two of them of a cached class) are freed with the failed
    /// decode, once each: none is left alive, and none is released twice (which would trap).
    @Test func theElementsBeforeAFailingOneAreReleased() throws {
        let bytes = try archive(fourth: .dictionary(["$class": .uid(PlistUID(13))]))
        let before = Alive.count
        let error = expectKeyedError(.typeMismatch) { try decode(bytes, .drawable) }
        #expect(error?.objectIndex == 6)
        #expect(Alive.count == before)
        // The same elements, kept by a decode that succeeds, are alive until the array goes.
        do {
            let drawables = try decode(try archive(fourth: .dictionary(["$class": .uid(PlistUID(12)), "radius": .real(4)])), .drawable).drawables
            #expect(drawables.count == 5)
            #expect(Alive.count == before + 5)
        }
        #expect(Alive.count == before)
    }

    @Test func aCachedClassStillReadsEachElementsOwnFields() throws {
        let bytes = try archive(fourth: .dictionary(["$class": .uid(PlistUID(11)), "side": .real(5)]))
        let drawables = try decode(bytes, .drawable).drawables
        #expect(drawables.map { $0.area() } == [4, 3, 9, 25, 12])
        #expect(Set(drawables.map { ObjectIdentifier($0) }).count == 5)
        // A broken element of a cached class fails as it would alone: its own object index.
        let broken = try archive(fourth: .dictionary(["$class": .uid(PlistUID(11)), "side": "wide"]))
        let error = expectKeyedError(.typeMismatch) { try decode(broken, .drawable) }
        #expect(error?.description == "keyed archive: object 6 (Square < NSObject) at root.items.items.side: expected Double, found a string")
    }

    @Test func manySmallArraysOfOneElementTypeShareWhatWasLearned() throws {
        // One unarchiver, one cache for `any Drawable`: each holder's array finds the classes of the ones before.
        let holders = (0..<9).map { i in Holder(Array(mixed(3 + i).suffix(1 + i % 3))) }
        let bytes = try KeyedArchiver.archivedData(withRootObject: holders)
        Holder.form = .drawable
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Holder].self, from: bytes, registry: registry))
        #expect(decoded.map { $0.drawables.map { $0.area() } } == holders.map { $0.drawables.map { $0.area() } })
        #expect(decoded.map { $0.drawables.map { "\(type(of: $0))" } } == holders.map { $0.drawables.map { "\(type(of: $0))" } })
    }

    @Test func aSharedElementIsTheSameInstanceEachTime() throws {
        let square = Square(side: 4)
        let bytes = try KeyedArchiver.archivedData(withRootObject: Holder([square, Disc(radius: 1), square, square]))
        let drawables = try decode(bytes, .drawable).drawables
        #expect(drawables[0] === drawables[2] && drawables[2] === drawables[3])
        #expect(drawables[0] !== drawables[1])
        #expect(drawables.map { $0.area() } == [16, 3, 16, 16])
    }

    /// A `didDecode` hook may hand back an object boxed under another static type (an `any Shape` erased by
    /// generic code keeps the existential, out of line, in its `Any`): such an element is cast by the runtime,
    /// and elements of the same class given plainly keep the shortcut, each with its own instance.
    @Test func elementsAHookBoxesUnderTheirExistentialAreCastByTheRuntime() throws {
        func erase<T>(_ value: T) -> Any { value }
        let (contents, _) = makeContents(count: 60)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        var seen = 0
        let decoded = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: shapeRegistry) { (u: KeyedUnarchiver) throws in
            u.didDecode = { object in
                guard let shape = object as? any Shape else { return object }
                seen += 1
                return seen % 2 == 0 ? erase(shape) : object  // every other shape boxed as an `any Shape`
            }
            return try u.decodeTopLevelObject(of: Contents.self, forKey: "root")
        }
        #expect(seen == 60)
        let shapes = try #require(decoded).shapes
        #expect(shapes.map { "\(type(of: $0))" } == (0..<60).map { ["Circle", "Rectangle", "RoundedRectangle"][$0 % 3] })
        for (i, shape) in shapes.enumerated() {
            let d = Double(i)
            switch shape {
            case let c as Circle: #expect(c.centerX == d && c.radius == d / 3)
            case let r as RoundedRectangle: #expect(r.x == d && r.cornerRadius == d / 7)
            case let r as Rectangle: #expect(r.x == d && r.width == 2 * d)
            default: Issue.record("element \(i) is \(type(of: shape))")
            }
        }
        #expect(Set(shapes.map { ObjectIdentifier($0 as AnyObject) }).count == 60)
    }

    /// The archiver reaches an element of `[Any]` or `[any Drawable]` through an `Any`: a class instance by its
    /// reference (its class checked to be the one cached), a struct by the cast. Both kinds, a subclass and a
    /// shared instance, twice each so that the second round takes the cache.
    @Test func theArchiverTakesClassesByReferenceAndStructsByCast() throws {
        let square = Square(side: 2)
        let framed = FramedSquare(side: 3)
        let items: [Any] = [square, Point(x: 1, y: 2), framed, "text", square, Point(x: 1, y: 2), framed, square]
        let bytes = try KeyedArchiver.archivedData(withRootObject: AnyHolder(items))
        #expect(try KeyedArchiver.archivedData(withRootObject: AnyHolder(items)) == bytes)
        let read = try #require(try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, requiresSecureCoding: false) {
            try $0.decodeTopLevelObject(of: AnyHolder.self, forKey: "root")
        }).items
        #expect(read.count == 8)
        #expect(read.map { "\(type(of: $0))" } == ["Square", "Point", "FramedSquare", "String", "Square", "Point",
                                                      "FramedSquare", "Square"])
        let first = try #require(read[0] as? Square)
        #expect(read[4] as? Square === first && read[7] as? Square === first)
        #expect(read[2] as? FramedSquare === read[6] as? FramedSquare)
        #expect((read[2] as? FramedSquare)?.area() == 10)
        #expect(read[1] as? Point == Point(x: 1, y: 2) && read[5] as? Point == Point(x: 1, y: 2))
        #expect(read[3] as? String == "text")
        // Two equal structs are two objects, a shared instance one: 2 Squares' fields + 2 Points' fields.
        let objects = try PropertyList.decode(bytes).dictionaryValue?["$objects"]?.arrayValue ?? []
        #expect(objects.filter { $0.dictionaryValue?["side"] != nil }.count == 2)
        #expect(objects.filter { $0.dictionaryValue?["x"] != nil }.count == 2)
    }

    /// The reference read from a class-bound existential (`[any Drawable]`), from a bare reference (`[Any]`,
    /// `[AnyObject]`) and the runtime's cast of an opaque existential (`[any KeyedArchivable]`) write the same
    /// archive.
    @Test func everyElementFormOfTheSameInstancesWritesTheSameBytes() throws {
        let square = Square(side: 2)
        let disc = Disc(radius: 1)
        let framed = FramedSquare(side: 3)
        let instances: [any Drawable] = [square, disc, framed, square, disc, framed]
        let expected = try KeyedArchiver.archivedData(withRootObject: AnyHolder(instances))
        for elements in [AnyHolder.Elements.archivable, .object] {
            #expect(try KeyedArchiver.archivedData(withRootObject: AnyHolder(instances, as: elements)) == expected)
        }
        // `Holder` writes the `[any Drawable]` itself; its class name differs, its elements do not.
        let drawables = try decode(try KeyedArchiver.archivedData(withRootObject: Holder(instances)), .drawable).drawables
        #expect(drawables.map { "\(type(of: $0))" } == ["Square", "Disc", "FramedSquare", "Square", "Disc", "FramedSquare"])
        #expect(drawables[0] === drawables[3] && drawables[1] === drawables[4] && drawables[2] === drawables[5])
        #expect(drawables.map { $0.area() } == [4, 3, 10, 4, 3, 10])
    }
}
