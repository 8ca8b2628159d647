import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// A registered type that reads an array: it gets a plain `[Any]` even where the unarchiver keeps classes.
private final class Shelf: KeyedArchivable {
    static var archivedClassName: String { "Shelf" }
    var books: [Any]
    init(books: [Any]) { self.books = books }
    init(coder: KeyedUnarchiver) throws { books = try coder.decode([Any].self, forKey: "books") }
    func encode(with coder: KeyedArchiver) {
        coder.encodeObject(ArchivedMutableObject(className: "NSMutableArray", value: books), forKey: "books")
    }
}

/// Objects of mutable Foundation classes kept as such where the unarchiver is asked to (conversion, the
/// inspector), written back with Apple's chains; plain values everywhere else, as before.
@Suite("Mutable classes")
struct MutableClassTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    static func keepingClasses(_ bytes: [UInt8], registry: ClassRegistry = generic) throws -> Any? {
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry) { u in
            u.keepsMutableClasses = true
            return try u.decodeTopLevelObject(forKey: "root")
        }
    }

    static func chains(_ keyed: [UInt8]) throws -> [[String]] {
        let objects = try #require(try PropertyList.decode(keyed).dictionaryValue?["$objects"]?.arrayValue)
        return objects.compactMap { $0.dictionaryValue?["$classes"]?.arrayValue?.compactMap(\.stringValue) }
    }

    @Test func applesMutableAttributedStringKeepsItsClassesThroughDecodeAndEncode() throws {
        let apple = try RepositoryFixtures.bytes("keyed/michaelwright235-nskeyedunarchiver/NSMutableAttributedString.plist")
        let root = try #require(try Self.keepingClasses(apple) as? ArchivedMutableObject)
        #expect(root.className == "NSMutableAttributedString")
        let value = try #require(root.value as? ArchivedAttributedString)
        #expect(value.string == "firstsecondthird")
        #expect(value.runs.map(\.range) == [0..<5, 5..<16])
        let again = try KeyedArchiver.archivedData(withRootObject: root) as [UInt8]
        let chains = try Self.chains(again)
        #expect(chains.contains(["NSMutableAttributedString", "NSAttributedString", "NSObject"]))
        #expect(chains.contains(["NSMutableString", "NSString", "NSObject"]))
        // The string is an NS.string field of an NSMutableString object, as Apple writes it.
        let objects = try #require(try PropertyList.decode(again).dictionaryValue?["$objects"]?.arrayValue)
        #expect(objects.contains { $0.dictionaryValue?["NS.string"] == .string("firstsecondthird") })
        // Without keeping classes the same bytes decode to the plain value, as before.
        let plain = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: apple, registry: Self.generic, requiresSecureCoding: false)
        #expect((plain as? ArchivedAttributedString)?.string == "firstsecondthird")
    }

    @Test func eachMutableClassRoundTripsWithItsChain() throws {
        let values: [(String, Any)] = [
            ("NSMutableString", "text"), ("NSMutableData", Data([1, 2, 3])), ("NSMutableArray", [1, "two"] as [Any]),
            ("NSMutableDictionary", ["k": 1] as [AnyHashable: Any]), ("NSMutableSet", Set<AnyHashable>([7])),
            ("NSMutableOrderedSet", ArchivedOrderedSet([3, 1])), ("NSMutableIndexSet", ArchivedIndexSet(ranges: [1..<4])),
        ]
        for (name, value) in values {
            let bytes = try KeyedArchiver.archivedData(withRootObject: ArchivedMutableObject(className: name, value: value)) as [UInt8]
            let base = String(name.dropFirst("NSMutable".count))
            #expect(try Self.chains(bytes) == [[name, "NS" + base, "NSObject"]], "\(name)")
            let back = try #require(try Self.keepingClasses(bytes) as? ArchivedMutableObject, "\(name)")
            #expect(back.className == name)
            #expect(String(describing: back.value) == String(describing: value), "\(name)")
        }
    }

    @Test func aSharedMutableObjectStaysOneObject() throws {
        let shared = ArchivedMutableObject(className: "NSMutableString", value: "once")
        let list = ArchivedMutableObject(className: "NSMutableArray", value: [shared, shared] as [Any])
        let bytes = try KeyedArchiver.archivedData(withRootObject: list) as [UInt8]
        let back = try #require(try Self.keepingClasses(bytes) as? ArchivedMutableObject)
        let elements = try #require(back.value as? [Any])
        #expect(elements.count == 2)
        let first = try #require(elements[0] as? ArchivedMutableObject)
        #expect(first === elements[1] as? ArchivedMutableObject)
        #expect(first.value as? String == "once")
    }

    @Test func aMutableArrayThatHoldsItselfIsACycleErrorWhenRead() throws {
        let list = ArchivedMutableObject(className: "NSMutableArray", value: [])
        list.value = ["a", list] as [Any]
        defer { list.value = [] }  // the cycle, broken
        let bytes = try KeyedArchiver.archivedData(withRootObject: list) as [UInt8]
        let error = expectKeyedError(.cycle) { try Self.keepingClasses(bytes) }
        #expect(error?.objectIndex == 1)
    }

    @Test func aCycleThroughAnUnknownObjectAndAMutableArrayIsFreedWithItsGraph() throws {
        let node = ArchivedObject(classChain: ["Node", "NSObject"])
        let children = ArchivedMutableObject(className: "NSMutableArray", value: [node] as [Any])
        node.fields = [("children", .object(children))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: node) as [UInt8]
        node.fields = []  // the cycle written, broken
        weak var read: ArchivedObject?
        try {
            let back = try #require(try Self.keepingClasses(bytes) as? ArchivedObject)
            read = back
            guard case .object(let value?)? = back["children"], let list = value as? ArchivedMutableObject,
                  let elements = list.value as? [Any] else {
                Issue.record("children is not an NSMutableArray")
                return
            }
            #expect(list.className == "NSMutableArray")
            #expect(elements.first as? ArchivedObject === back)
        }()
        #expect(read == nil)
    }

    @Test func aMutableObjectSharedOnACycleStaysOneObject() throws {
        let node = ArchivedObject(classChain: ["Node", "NSObject"])
        let shared = ArchivedMutableObject(className: "NSMutableArray", value: [node] as [Any])
        node.fields = [("a", .object(shared)), ("b", .object(shared))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: node) as [UInt8]
        node.fields = []  // the cycle written, broken
        let back = try #require(try Self.keepingClasses(bytes) as? ArchivedObject)
        guard case .object(let a?)? = back["a"], case .object(let b?)? = back["b"],
              let first = a as? ArchivedMutableObject, let second = b as? ArchivedMutableObject else {
            Issue.record("a and b are not mutable arrays")
            return
        }
        #expect(first === second)
        #expect((first.value as? [Any])?.first as? ArchivedObject === back)
        #expect(try KeyedArchiver.archivedData(withRootObject: back) as [UInt8] == bytes)
    }

    @Test func aRegisteredTypeReadsPlainValuesWhileClassesAreKept() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Shelf(books: ["a", "b"])) as [UInt8]
        #expect(try Self.chains(bytes).contains(["NSMutableArray", "NSArray", "NSObject"]))
        let shelf = try #require(try Self.keepingClasses(bytes, registry: ClassRegistry([Shelf.self])) as? Shelf)
        #expect(shelf.books.compactMap { $0 as? String } == ["a", "b"])
    }

    @Test func aValueTheClassCannotHoldIsAnError() throws {
        let wrong = expectKeyedError(.unsupportedType) {
            try KeyedArchiver.archivedData(withRootObject: ArchivedMutableObject(className: "NSMutableArray", value: 5)) as [UInt8]
        }
        #expect(wrong?.reason == "an NSMutableArray cannot hold a value of type Int")
        let unknown = expectKeyedError(.unsupportedType) {
            try KeyedArchiver.archivedData(withRootObject: ArchivedMutableObject(className: "NSMutableNothing", value: 5)) as [UInt8]
        }
        #expect(unknown?.reason == "NSMutableNothing is not a mutable Foundation class")
    }
}
