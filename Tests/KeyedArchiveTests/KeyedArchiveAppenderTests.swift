import BinaryPlist
import Foundation
import Testing
import TestSupport
@testable import KeyedArchive

/// A root object with an array of points under "items".
struct Bag: KeyedArchivable, Equatable {
    var label: String
    var items: [Point]
    init(label: String, items: [Point]) { (self.label, self.items) = (label, items) }
    init(coder: KeyedUnarchiver) throws {
        label = try coder.decode(String.self, forKey: "label")
        items = try coder.decode([Point].self, forKey: "items")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(label, forKey: "label")
        coder.encode(items, forKey: "items")
    }
}

@Suite("Appending to a keyed archive")
struct KeyedArchiveAppenderTests {
    let registry = ClassRegistry([Bag.self, Point.self])

    func decodeBag(_ bytes: [UInt8]) throws -> Bag? {
        try KeyedUnarchiver.unarchivedObject(ofType: Bag.self, from: bytes, registry: registry)
    }

    @Test func anAppendedObjectDecodesAtTheEndOfTheArray() throws {
        var bag = Bag(label: "points", items: (0..<5).map { Point(x: Double($0), y: 0.5) })
        var bytes = try KeyedArchiver.archivedData(withRootObject: bag)
        for round in 0..<30 {
            let point = Point(x: Double(round) + 0.25, y: -Double(round))
            let (appended, uid) = try #require(try KeyedArchiveAppender.appending(point, toArrayAt: ["root", "items"], in: bytes))
            bag.items.append(point)
            #expect(try decodeBag(appended) == bag, "round \(round)")
            #expect(try ArchiveGraph(bytes: appended).classChain(of: uid)?.first == "Point")
            bytes = appended
        }
    }

    @Test func storedObjectsKeepTheirUIDsAndTheClassDescriptionIsUsedAgain() throws {
        let bag = Bag(label: "points", items: [Point(x: 1, y: 2), Point(x: 3, y: 4)])
        let bytes = try KeyedArchiver.archivedData(withRootObject: bag)
        let before = try ArchiveGraph(bytes: bytes)
        let (appended, uid) = try #require(try KeyedArchiveAppender.appending(Point(x: 5, y: 6), toArrayAt: ["root", "items"], in: bytes))
        let after = try ArchiveGraph(bytes: appended)
        // One new object, the point's dictionary; its $class is the Point description already stored.
        #expect(after.objects.count == before.objects.count + 1)
        #expect(uid == before.objects.count)
        let arrayUID = try #require(before.fields(of: 1).first { $0.key == "items" }?.value.uidValue.map { Int($0.value) })
        for index in before.objects.indices where index != arrayUID {
            #expect(after.objects[index] == before.objects[index], "object \(index)")
        }
        let oldElements = before.fields(of: arrayUID).first { $0.key == "NS.objects" }?.value.arrayValue ?? []
        let newElements = after.fields(of: arrayUID).first { $0.key == "NS.objects" }?.value.arrayValue ?? []
        #expect(newElements == oldElements + [.uid(PlistUID(UInt64(uid)))])
        let firstPoint = try #require(oldElements.first?.uidValue.map { Int($0.value) })
        let pointClass = try #require(before.instance(firstPoint)?["$class"])
        #expect(after.instance(uid)?["$class"] == pointClass)
    }

    @Test("Foundation reads an archive we appended to", arguments: 1...20)
    func foundationReadsTheResult(seed: UInt64) throws {
        var rng = splitMix64(seed: 500 + seed)
        let values = (0..<3).map { _ in RandomGraph.value(&rng, depth: 1) }
        let added = RandomGraph.value(&rng, depth: 1)
        let bytes = try KeyedArchiver.archivedData(withRootObject: values)
        let (appended, _) = try #require(try KeyedArchiveAppender.appending(added, toArrayAt: ["root"], in: bytes))
        let theirs = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: FoundationDifferentialTests.foundationClasses, from: Data(appended))
        #expect(Canonical.text(theirs) == Canonical.text(values + [added]))
    }

    @Test("we append to an archive Foundation made", arguments: 1...20)
    func appendsToFoundationArchives(seed: UInt64) throws {
        var rng = splitMix64(seed: 900 + seed)
        let values = (0..<3).map { _ in RandomGraph.value(&rng, depth: 1) }
        let added = RandomGraph.value(&rng, depth: 1)
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: RandomGraph.foundationObject(values), requiringSecureCoding: false)
        let (appended, _) = try #require(try KeyedArchiveAppender.appending(added, toArrayAt: ["root"], in: [UInt8](data)))
        #expect(Canonical.text(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: appended)) == Canonical.text(values + [added]))
        let theirs = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: FoundationDifferentialTests.foundationClasses, from: Data(appended))
        #expect(Canonical.text(theirs) == Canonical.text(values + [added]))
    }

    @Test func appleArchivesWithAnArrayRootGainOneElementAndKeepEverythingElse() throws {
        var appendedTo = 0
        for file in KeyedFixtures.appleArchives {
            let bytes = try KeyedFixtures.bytes(file)
            guard PropertyList.detectFormat(bytes) == .binary, let before = try? ArchiveGraph(bytes: bytes),
                  let root = before.topObject(), before.classChain(of: root)?.first.map({ ["NSArray", "NSMutableArray"].contains($0) }) == true
            else { continue }
            guard let (appended, uid) = try KeyedArchiveAppender.appending("appended element", toArrayAt: ["root"], in: bytes)
            else { continue }
            let after = try ArchiveGraph(bytes: appended)
            for index in before.objects.indices where index != root {
                #expect(after.objects[index] == before.objects[index], "\(file): object \(index)")
            }
            let old = before.fields(of: root).first { $0.key == "NS.objects" }?.value.arrayValue ?? []
            let new = after.fields(of: root).first { $0.key == "NS.objects" }?.value.arrayValue ?? []
            #expect(new == old + [.uid(PlistUID(UInt64(uid)))], "\(file)")
            #expect(after.objects[uid] == "appended element", "\(file)")
            appendedTo += 1
        }
        #expect(appendedTo >= 3)
    }

    @Test func xmlArchivesAreLeftToAFullWrite() throws {
        let xml = try KeyedArchiver.archivedData(withRootObject: ["a", "b"], format: .xml)
        #expect(try KeyedArchiveAppender.appending("c", toArrayAt: ["root"], in: xml) == nil)
    }

    @Test func aPathThatDoesNotReachAnArrayIsAnError() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Bag(label: "x", items: []))
        let missing = #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiveAppender.appending(Point(x: 0, y: 0), toArrayAt: ["root", "nothing"], in: bytes)
        }
        #expect(missing?.code == .valueNotFound)
        #expect(missing?.keyPath == "root.nothing")
        let notArray = #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiveAppender.appending(Point(x: 0, y: 0), toArrayAt: ["root"], in: bytes)
        }
        #expect(notArray?.code == .typeMismatch)
    }

    @Test func anEmptyArrayTakesItsFirstElement() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Bag(label: "empty", items: []))
        let (appended, _) = try #require(try KeyedArchiveAppender.appending(Point(x: 7, y: 8), toArrayAt: ["root", "items"], in: bytes))
        #expect(try decodeBag(appended) == Bag(label: "empty", items: [Point(x: 7, y: 8)]))
    }

    /// Random damage: appending throws a typed error, declines, or gives an archive that decodes as the
    /// damaged one did plus the new element. It never traps and never changes what was readable.
    @Test func damagedArchivesAreNeverMadeWorse() throws {
        let bag = Bag(label: "points", items: (0..<6).map { Point(x: Double($0), y: 1) })
        let original = try KeyedArchiver.archivedData(withRootObject: bag)
        var rng = SeededGenerator(seed: 31)
        var appendedCount = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[at] = Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : bytes[at] ^ 0x04
            }
            let point = Point(x: 99, y: 99)
            let result: (bytes: [UInt8], uid: Int)?
            do {
                result = try KeyedArchiveAppender.appending(point, toArrayAt: ["root", "items"], in: bytes)
            } catch is KeyedArchiveError {
                continue
            }
            guard let result, let damaged = try? decodeBag(bytes) else { continue }
            var expected = damaged
            expected.items.append(point)
            #expect(try decodeBag(result.bytes) == expected)
            appendedCount += 1
        }
        #expect(appendedCount > 0)
    }
}
