import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// Object substitution on both sides: replacementObject / classForKeyedArchiver / willEncode when encoding,
/// awakeAfter / didDecode after decoding, and a fallback for unknown class names.
@Suite("Object substitution")
struct SubstitutionTests {
    // MARK: Encoding

    @Test func replacementObjectIsAskedOncePerInstanceAndItsResultIsShared() throws {
        let style = Style(name: "ink", strokeWidth: 2)
        let proxy = StyleProxy(target: style)
        let bytes = try KeyedArchiver.archivedData(withRootObject: [proxy, proxy, style] as [Any])
        #expect(proxy.replacementCalls == 1)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Style].self, from: bytes, registry: shapeRegistry))
        #expect(decoded.map(\.name) == ["ink", "ink", "ink"])
        #expect(decoded[0] === decoded[1] && decoded[1] === decoded[2])
        // Nothing of the proxy was written: the same bytes as the style alone.
        #expect(bytes == (try KeyedArchiver.archivedData(withRootObject: [style, style, style])))
    }

    @Test func aNilReplacementWritesNull() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: ShapeHolder(shape: nil, any: StyleProxy(target: nil)))
        let holder = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ShapeHolder.self, from: bytes, registry: shapeRegistry.registering(ShapeHolder.self)))
        #expect(holder.any == nil)
        let graph = try ArchiveGraph(bytes: bytes)
        let root = try #require(graph.topObject())
        #expect(graph.fields(of: root).map(\.key) == ["shape", "any"])
        #expect(graph.fields(of: root).map(\.value) == [.uid(PlistUID(0)), .uid(PlistUID(0))])
        #expect(graph.objects.count == 3)  // $null, the holder, its class
    }

    @Test func classForKeyedArchiverWritesAnotherClassWithTheObjectsOwnFields() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: PrivateBadge(label: "x", secret: 42))
        let registry = ClassRegistry([PublicBadge.self, PrivateBadge.self])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: PublicBadge.self, from: bytes, registry: registry))
        #expect(type(of: decoded) == PublicBadge.self)
        #expect(decoded.label == "x")
        // The class chain written is the public class's; the private field is still there.
        let object = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()))
        #expect(object.classChain == ["PublicBadge", "NSObject"])
        #expect(object.fields.map(\.key) == ["label", "secret"])
        // setClassName applies to the class written.
        let archiver = KeyedArchiver()
        archiver.setClassName("Badge", for: PublicBadge.self)
        archiver.encode(PrivateBadge(label: "y", secret: 1), forKey: "root")
        let renamed = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: try archiver.finishEncoding(), registry: ClassRegistry.standard.allowingUnknownClasses()))
        #expect(renamed.classChain == ["Badge", "NSObject"])
    }

    @Test func willEncodeSeesEveryObjectOncePerInstanceAfterReplacement() throws {
        let style = Style(name: "ink", strokeWidth: 2)
        let shapes: [any Shape] = [Circle(centerX: 0, centerY: 0, radius: 1, style: style),
                                   Rectangle(x: 0, y: 0, width: 1, height: 1, style: style)]
        var seen: [String] = []
        let archiver = KeyedArchiver()
        archiver.willEncode = { object in
            seen.append(String(describing: type(of: object)))
            if let string = object as? String { return string.uppercased() }
            if object is Rectangle { return nil }
            return object
        }
        archiver.encode(shapes, forKey: "root")
        let bytes = try archiver.finishEncoding()
        #expect(seen == ["Array<Shape>", "Circle", "Style", "String", "Rectangle"])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: bytes, registry: shapeRegistry))
        #expect(decoded.count == 2)
        #expect((decoded[0] as? Circle)?.style?.name == "INK")
        #expect(decoded[1] is ArchivedNull)
    }

    @Test func willEncodeRunsAfterReplacementObject() throws {
        let style = Style(name: "ink", strokeWidth: 2)
        var seen: [Any] = []
        let archiver = KeyedArchiver()
        archiver.willEncode = { object in
            seen.append(object)
            return object
        }
        archiver.encode(StyleProxy(target: style), forKey: "root")
        _ = try archiver.finishEncoding() as [UInt8]
        #expect(seen.count == 2)
        #expect((seen.first as? Style) === style)
        #expect(seen.last as? String == "ink")
    }

    // MARK: Decoding

    @Test func awakeAfterReplacesTheObjectForEveryReference() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: [Palette(name: "mine"), Palette(name: "mine")] as [Any])
        let registry = ClassRegistry([Palette.self])
        let decoded = try #require(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Palette.self, from: bytes, registry: registry))
        #expect(decoded.count == 2)
        #expect(decoded.allSatisfy { $0 === Palette.shared })
        // One instance archived twice is decoded once, and replaced once, for both references.
        let one = Palette(name: "one")
        let shared = try KeyedArchiver.archivedData(withRootObject: [one, one])
        let twice = try #require(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Palette.self, from: shared, registry: registry))
        #expect(twice[0] === Palette.shared && twice[1] === Palette.shared)
    }

    @Test func awakeAfterMayReturnAValueOrNil() throws {
        let registry = ClassRegistry([Reading.self])
        let bytes = try KeyedArchiver.archivedData(withRootObject: [Reading(value: 3), Reading(value: -1)] as [Any])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: bytes, registry: registry))
        #expect(decoded.count == 2)
        #expect(decoded[0] as? Double == 3)
        #expect(decoded[1] is ArchivedNull)
    }

    @Test func didDecodeSeesEachObjectOnceAndReplacesItEverywhere() throws {
        let (contents, _) = makeContents(count: 21)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        var styles = 0
        var strings: [String] = []
        let replacement = Style(name: "replaced", strokeWidth: 9)
        let decoded = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: shapeRegistry, requiresSecureCoding: true) { (u: KeyedUnarchiver) throws in
            u.didDecode = { object in
                if object is Style {
                    styles += 1
                    return replacement
                }
                if let s = object as? String { strings.append(s) }
                return object
            }
            return try u.decodeTopLevelObject(of: Contents.self, forKey: "root")
        }
        #expect(styles == 1)
        #expect(strings == ["Default Stroke"])
        let found = try #require(decoded).shapes.compactMap(\.style)
        #expect(found.count == 3)
        #expect(found.allSatisfy { $0 === replacement })
    }

    @Test func didDecodeReplacesStandardValues() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: ["a": "x", "b": "y"])
        let decoded = try KeyedUnarchiver.withUnarchiver(for: bytes) { (u: KeyedUnarchiver) throws in
            u.didDecode = { ($0 as? String).map { $0.uppercased() } ?? $0 }
            return try u.decode([String: String].self, forKey: "root")
        }
        #expect(decoded == ["A": "X", "B": "Y"])
    }

    @Test func didDecodeMayReplaceAnObjectWithAValueForEveryReference() throws {
        let hexagon = ArchivedObject(classChain: ["Hexagon", "NSObject"], fields: [("sides", .value(.integer(6)))])
        let bytes = try KeyedArchiver.archivedData(withRootObject: [hexagon, hexagon])
        var calls = 0
        let decoded = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()) {
            (u: KeyedUnarchiver) throws in
            u.didDecode = { object in
                guard let generic = object as? ArchivedObject else { return object }
                calls += 1
                return "a \(generic.className)"
            }
            return try u.decode([String].self, forKey: "root")
        }
        #expect(decoded == ["a Hexagon", "a Hexagon"])
        #expect(calls == 1)
    }

    // MARK: Unknown class names

    @Test func aFallbackResolvesUnknownClassNamesOncePerClass() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("Hexagon", for: Circle.self)
        archiver.encode([Circle(centerX: 0, centerY: 0, radius: 1), Circle(centerX: 1, centerY: 1, radius: 2)], forKey: "root")
        let bytes = try archiver.finishEncoding()
        let log = FallbackLog()
        let registry = shapeRegistry.resolvingUnknownClasses { name, chain in
            log.withLock { $0.append("\(name) \(chain)") }
            return name == "Hexagon" ? Circle.self : nil
        }
        let decoded = try #require(try KeyedUnarchiver.unarchivedArrayOfObjects(ofType: Circle.self, from: bytes, registry: registry))
        #expect(decoded.map(\.radius) == [1, 2])
        #expect(log.withLock { $0 } == [#"Hexagon ["Hexagon", "NSObject"]"#])
        // Registered names and standard classes never reach the fallback.
        let plain = try KeyedArchiver.archivedData(withRootObject: [Circle(centerX: 0, centerY: 0, radius: 1)] as [Any])
        _ = try KeyedUnarchiver.unarchivedObject(ofType: [Circle].self, from: plain, registry: registry)
        #expect(log.withLock { $0.count } == 1)
    }

    @Test func whatTheFallbackReturnsIsCheckedBySecureCoding() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("Hexagon", for: Circle.self)
        archiver.encode(Circle(centerX: 0, centerY: 0, radius: 1), forKey: "root")
        let bytes = try archiver.finishEncoding()
        let toTripwire = shapeRegistry.resolvingUnknownClasses { _, _ in Tripwire.self }
        let error = expectKeyedError(.classNotAllowed) {
            try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: toTripwire)
        }
        #expect(error?.classChain == ["Hexagon", "NSObject"])
        // A fallback that answers nil leaves the class unknown (or an ArchivedObject when allowed).
        let none = shapeRegistry.resolvingUnknownClasses { _, _ in nil }
        expectKeyedError(.unknownClass) { try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: none) }
        let generic = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: none.allowingUnknownClasses())
        #expect(generic?.className == "Hexagon")
    }
}

/// The class names a fallback was asked about. Behind an `NSLock`, not `Synchronization.Mutex` (macOS 15 and
/// iOS 18), so that the tests build at the package's minimums.
final class FallbackLog: @unchecked Sendable {  // Sendable: `names` is only touched while `lock` is held.
    private let lock = NSLock()
    private var names: [String] = []

    func withLock<R>(_ body: (inout [String]) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&names)
    }
}

/// Archives as its target (or $null), counting the calls.
final class StyleProxy: KeyedArchiveSubstituting {
    let target: Style?
    var replacementCalls = 0
    init(target: Style?) { self.target = target }
    init(coder: KeyedUnarchiver) throws { target = nil }
    func encode(with coder: KeyedArchiver) {}
    func replacementObject(for archiver: KeyedArchiver) -> Any? {
        replacementCalls += 1
        return target
    }
}

/// The public class; PrivateBadge archives as it.
class PublicBadge: KeyedArchiveSubstituting {
    var label: String
    init(label: String) { self.label = label }
    required init(coder: KeyedUnarchiver) throws { label = try coder.decode(String.self, forKey: "label") }
    func encode(with coder: KeyedArchiver) { coder.encode(label, forKey: "label") }
    var classForKeyedArchiver: any KeyedArchivable.Type { PublicBadge.self }
}

final class PrivateBadge: PublicBadge {
    var secret: Int
    init(label: String, secret: Int) {
        self.secret = secret
        super.init(label: label)
    }
    required init(coder: KeyedUnarchiver) throws {
        secret = try coder.decode(Int.self, forKey: "secret")
        try super.init(coder: coder)
    }
    override func encode(with coder: KeyedArchiver) {
        super.encode(with: coder)
        coder.encode(secret, forKey: "secret")
    }
}

/// Every decoded palette becomes the shared one.
final class Palette: KeyedArchiveSubstituting, Sendable {
    static let shared = Palette(name: "shared")
    let name: String
    init(name: String) { self.name = name }
    init(coder: KeyedUnarchiver) throws { name = try coder.decode(String.self, forKey: "name") }
    func encode(with coder: KeyedArchiver) { coder.encode(name, forKey: "name") }
    func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any? { Palette.shared }
}

/// Decodes as its number, or as nothing when negative.
final class Reading: KeyedArchiveSubstituting {
    let value: Double
    init(value: Double) { self.value = value }
    init(coder: KeyedUnarchiver) throws { value = try coder.decode(Double.self, forKey: "value") }
    func encode(with coder: KeyedArchiver) { coder.encode(value, forKey: "value") }
    func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any? { value < 0 ? nil : value }
}
