import BinaryPlist
import Testing
@testable import KeyedArchive

/// Reading one element of an array without decoding the others (what the store's `get` and `add` use).
@Suite("Visiting single objects")
struct ObjectVisitingTests {
    let registry = ClassRegistry([Bag.self, Point.self])

    @Test func elementsAreVisitedOneByOneAndDecodedOnDemand() throws {
        let bag = Bag(label: "b", items: [Point(x: 1, y: 2), Point(x: 3, y: 4), Point(x: 5, y: 6)])
        let bytes = try KeyedArchiver.archivedData(withRootObject: bag)
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry) { coder in
            let root = try #require(try coder.objectUID(forKey: "root"))
            try coder.visitObject(root, key: "root") { () throws in
                #expect(try coder.decode(String.self, forKey: "label") == "b")
                let uids = try coder.elementUIDs(forKey: "items")
                #expect(uids.count == 3)
                let xs = try uids.map { uid in try coder.visitObject(uid, key: "items") { try coder.decode(Double.self, forKey: "x") } }
                #expect(xs == [1, 3, 5])
                #expect(try coder.decodeObject(Point.self, uid: uids[1], key: "items") == Point(x: 3, y: 4))
            }
        }
    }

    @Test func elementUIDsReportsWhatIsWrong() throws {
        let uid = HostileArchive.uid
        let objects: [PlistValue] = [
            "$null",
            .dictionary(["$class": uid(2), "list": uid(3), "text": uid(5), "holes": uid(6)]),
            HostileArchive.classEntry("Bag"),
            .dictionary(["$class": uid(4), "NS.objects": .array([uid(5)])]),
            HostileArchive.classEntry("NSArray"),
            "just a string",
            .dictionary(["$class": uid(4), "NS.objects": .array([uid(0)])]),
        ]
        let bytes = try HostileArchive.bytes(objects)
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry) { coder in
            try coder.visitObject(1, key: "root") { () throws in
                #expect(try coder.elementUIDs(forKey: "list") == [5])
                let missing = #expect(throws: KeyedArchiveError.self) { try coder.elementUIDs(forKey: "absent") }
                #expect(missing?.code == .valueNotFound)
                let notArray = #expect(throws: KeyedArchiveError.self) { try coder.elementUIDs(forKey: "text") }
                #expect(notArray?.code == .typeMismatch)
                let hole = #expect(throws: KeyedArchiveError.self) { try coder.elementUIDs(forKey: "holes") }
                #expect(hole?.code == .invalidValue)
                #expect(hole?.keyPath?.hasSuffix("holes") == true)
            }
        }
    }

    @Test func visitingChecksTheAllowedClasses() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Bag(label: "b", items: []))
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, allowedTypes: [Point.self]) { coder in
            let root = try #require(try coder.objectUID(forKey: "root"))
            let error = #expect(throws: KeyedArchiveError.self) { try coder.visitObject(root, key: "root") {} }
            #expect(error?.code == .classNotAllowed)
        }
    }
}
