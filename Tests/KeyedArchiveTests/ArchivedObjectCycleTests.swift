import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// Unknown-class objects that refer to themselves, decoded as ``ArchivedObject``s: the decoded graph keeps
/// its cycles (shared identity, lossless re-encoding) and is freed when the caller lets it go.
@Suite("ArchivedObject cycles", .serialized)
struct ArchivedObjectCycleTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    /// `Loop` refers to itself (`me`), to a `Back` (`other`) that refers back (`back`), and holds both in an
    /// array and a dictionary; `Back` holds a set with the loop in it.
    static func loopArchive() throws -> [UInt8] {
        let loop = ArchivedObject(classChain: ["Loop", "NSObject"])
        let back = ArchivedObject(classChain: ["Back", "NSObject"])
        loop.fields = [("name", .object("loop")), ("me", .object(loop)), ("other", .object(back)),
                       ("all", .object([loop, back] as [Any])), ("byName", .object(["b": back] as [AnyHashable: Any]))]
        back.fields = [("back", .object(loop)), ("set", .object(Set<AnyHashable>([AnyHashable(loop), AnyHashable("x")]))),
                       ("n", .value(.integer(7)))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: loop)
        // The cycle built here is this test's own: broken so that the test itself does not leak.
        loop.fields = []
        back.fields = []
        return bytes
    }

    /// Decodes `bytes` `count` times, each time running `check` on the root and collecting weak references
    /// to every object reachable from it; afterwards none may be alive.
    func expectFreed(_ bytes: [UInt8], count: Int = 200, _ check: (ArchivedObject) throws -> Void) throws {
        final class Weak { weak var object: ArchivedObject?; init(_ o: ArchivedObject) { object = o } }
        var weaks: [Weak] = []
        for _ in 0..<count {
            try autoreleasepoolIfAvailable {
                let root = try #require(try KeyedUnarchiver.unarchivedObject(
                    ofType: ArchivedObject.self, from: bytes, registry: Self.generic))
                try check(root)
                for o in reachable(from: root) { weaks.append(Weak(o)) }
            }
        }
        #expect(!weaks.isEmpty)
        #expect(weaks.allSatisfy { $0.object == nil }, "\(weaks.filter { $0.object != nil }.count) objects still alive")
    }

    @Test func circularFixtureIsFreedAfterDecoding() throws {
        let bytes = try KeyedFixtures.bytes("keyed/bpylist2/circular_archive.plist")
        try expectFreed(bytes) { foo in
            #expect(foo.className == "crap.Foo")
            guard case .object(let inner as ArchivedObject)? = foo["recursive"] else { Issue.record("recursive"); return }
            #expect(inner === foo)
            guard case .object(let title as String)? = foo["title"] else { Issue.record("title"); return }
            #expect(title == "hello")
        }
    }

    @Test func selfAndMutualReferencesAreFreedAfterDecoding() throws {
        let bytes = try Self.loopArchive()
        try expectFreed(bytes) { loop in try Self.checkLoop(loop) }
    }

    @Test func circularFixtureReEncodesWithTheCycle() throws {
        let bytes = try KeyedFixtures.bytes("keyed/bpylist2/circular_archive.plist")
        var again: [UInt8] = []
        do {
            let foo = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: Self.generic))
            again = try KeyedArchiver.archivedData(withRootObject: foo)
        }
        try expectFreed(again) { foo in
            #expect(foo.classChain == ["crap.Foo", "NSCoder", "NSObject"])
            guard case .object(let inner as ArchivedObject)? = foo["recursive"] else { Issue.record("recursive"); return }
            #expect(inner === foo)
        }
    }

    @Test func selfAndMutualReferencesReEncodeWithTheCycle() throws {
        let bytes = try Self.loopArchive()
        var again: [UInt8] = []
        do {
            let loop = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: Self.generic))
            again = try KeyedArchiver.archivedData(withRootObject: loop)
        }
        // Same object count: every shared object written once (a set's order may differ).
        #expect(try objectCount(again) == objectCount(bytes))
        try expectFreed(again, count: 20) { loop in try Self.checkLoop(loop) }
    }

    @Test func anObjectReachingACycleStillBeingReadJoinsIt() throws {
        // A -> B -> A, then A -> D -> B: D reaches B after B was read but before A's cycle is complete, so
        // D belongs to the cycle too (D -> B -> A -> D) and must not hold B strongly.
        let a = ArchivedObject(classChain: ["A", "NSObject"])
        let b = ArchivedObject(classChain: ["B", "NSObject"])
        let d = ArchivedObject(classChain: ["D", "NSObject"])
        let e = ArchivedObject(classChain: ["E", "NSObject"], fields: [("n", .value(.integer(1)))])
        a.fields = [("b", .object(b)), ("d", .object(d)), ("e", .object(e))]
        b.fields = [("a", .object(a)), ("e", .object(e))]
        d.fields = [("b", .objects([b, e]))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: a)
        a.fields = []
        b.fields = []
        d.fields = []
        try expectFreed(bytes) { a in
            guard case .object(let b as ArchivedObject)? = a["b"], case .object(let d as ArchivedObject)? = a["d"],
                  case .object(let e as ArchivedObject)? = a["e"] else { Issue.record("a"); return }
            guard case .object(let toA as ArchivedObject)? = b["a"] else { Issue.record("b"); return }
            #expect(toA === a)
            guard case .object(let e2 as ArchivedObject)? = b["e"] else { Issue.record("b.e"); return }
            #expect(e2 === e)
            guard case .objects(let list)? = d["b"], list.count == 2 else { Issue.record("d"); return }
            #expect(list[0] as? ArchivedObject === b)
            #expect(list[1] as? ArchivedObject === e)
            #expect(e.className == "E")
        }
    }

    @Test func aCycleWhoseReferencesFollowScalarFieldsIsFound() throws {
        // The cycle finder takes an object up at its first reference: A and B read scalars first, then refer
        // to each other; C, scalars only, is shared by both and is on no cycle.
        let a = ArchivedObject(classChain: ["A", "NSObject"])
        let b = ArchivedObject(classChain: ["B", "NSObject"])
        let c = ArchivedObject(classChain: ["C", "NSObject"], fields: [("n", .value(.integer(3))), ("r", .value(.real(0.5)))])
        a.fields = [("n", .value(.integer(1))), ("c", .object(c)), ("b", .object(b))]
        b.fields = [("n", .value(.integer(2))), ("flag", .value(.bool(true))), ("a", .object(a)), ("c", .object(c))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: a)
        a.fields = []
        b.fields = []
        try expectFreed(bytes) { a in
            #expect(a.fields.map(\.key) == ["n", "c", "b"])
            guard case .object(let b as ArchivedObject)? = a["b"], case .object(let c as ArchivedObject)? = a["c"] else {
                Issue.record("a"); return
            }
            guard case .object(let toA as ArchivedObject)? = b["a"], case .object(let c2 as ArchivedObject)? = b["c"] else {
                Issue.record("b"); return
            }
            #expect(toA === a)
            #expect(c2 === c)
            #expect(b.fields.map(\.key) == ["n", "flag", "a", "c"])
            guard case .value(.real(let r))? = c["r"] else { Issue.record("c"); return }
            #expect(r == 0.5)
        }
    }

    @Test func anInnerObjectKeepsItsWholeCycleAlive() throws {
        let bytes = try Self.loopArchive()
        weak var weakRoot: ArchivedObject?
        weak var weakBack: ArchivedObject?
        do {
            let back: ArchivedObject = try {
                let root = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: Self.generic))
                weakRoot = root
                guard case .object(let back as ArchivedObject)? = root["other"] else { throw CycleTestFailure() }
                return back
            }()
            weakBack = back
            // The root was let go; the back reference still reads an object with all its fields.
            #expect(weakRoot == nil)
            guard case .object(let loop as ArchivedObject)? = back["back"] else { Issue.record("back"); return }
            try Self.checkLoop(loop)
            // A field set to another object of the same graph is stored without a strong cycle either.
            loop.fields.append(("again", .object(back)))
            guard case .object(let same as ArchivedObject)? = loop["again"] else { Issue.record("again"); return }
            #expect(same === back)
        }
        #expect(weakBack == nil)
    }

    @Test func editsToAnObjectOnACycleAreKept() throws {
        let bytes = try Self.loopArchive()
        weak var weakLoop: ArchivedObject?
        do {
            let loop = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: Self.generic))
            weakLoop = loop
            loop.classChain[0] = "Loop2"
            loop.fields.append(("again", .object(loop)))
            guard case .object(let same as ArchivedObject)? = loop["again"] else { Issue.record("again"); return }
            #expect(same === loop)
            let again = try KeyedArchiver.archivedData(withRootObject: loop)
            let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: again, registry: Self.generic))
            #expect(decoded.className == "Loop2")
            guard case .object(let me as ArchivedObject)? = decoded["again"] else { Issue.record("again"); return }
            #expect(me === decoded)
        }
        #expect(weakLoop == nil)
    }

    @Test func aFailedDecodeLeavesNoCycle() throws {
        // Loop -> Back -> Loop, then a field that fails: the objects read so far are freed.
        let loop = ArchivedObject(classChain: ["Loop", "NSObject"])
        let back = ArchivedObject(classChain: ["Back", "NSObject"])
        loop.fields = [("other", .object(back)), ("bad", .object(FailingWitness(owner: loop)))]
        back.fields = [("back", .object(loop))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: loop)
        loop.fields = []
        back.fields = []
        let registry = Self.generic.registering(FailingWitness.self)
        for _ in 0..<50 {
            FailingWitness.seen = []
            #expect(throws: KeyedArchiveError.self) {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: registry)
            }
            #expect(FailingWitness.seen.count == 1)
            #expect(FailingWitness.seen.allSatisfy { $0.object == nil })
        }
        FailingWitness.seen = []
    }

    static func checkLoop(_ loop: ArchivedObject) throws {
        #expect(loop.classChain == ["Loop", "NSObject"])
        guard case .object(let me as ArchivedObject)? = loop["me"] else { Issue.record("me"); return }
        #expect(me === loop)
        guard case .object(let back as ArchivedObject)? = loop["other"] else { Issue.record("other"); return }
        #expect(back.className == "Back")
        guard case .object(let toLoop as ArchivedObject)? = back["back"] else { Issue.record("back"); return }
        #expect(toLoop === loop)
        guard case .object(let all as [Any])? = loop["all"], all.count == 2 else { Issue.record("all"); return }
        #expect(all[0] as? ArchivedObject === loop)
        #expect(all[1] as? ArchivedObject === back)
        guard case .object(let byName as [AnyHashable: Any])? = loop["byName"] else { Issue.record("byName"); return }
        #expect(byName["b"] as? ArchivedObject === back)
        guard case .object(let set as Set<AnyHashable>)? = back["set"] else { Issue.record("set"); return }
        #expect(set.contains(AnyHashable(loop)))
        #expect(set.contains(AnyHashable("x")))
        guard case .value(.integer(let n))? = back["n"] else { Issue.record("n"); return }
        #expect(n.int64Value == 7)
    }
}

struct CycleTestFailure: Error {}

/// A registered class whose decoding fails after it has seen the object that holds it.
final class FailingWitness: KeyedArchivable {
    final class Weak { weak var object: ArchivedObject?; init(_ o: ArchivedObject?) { object = o } }
    nonisolated(unsafe) static var seen: [Weak] = []

    let owner: ArchivedObject?
    init(owner: ArchivedObject) { self.owner = owner }
    static var archivedClassName: String { "FailingWitness" }
    init(coder: KeyedUnarchiver) throws {
        // The owner is still being read: the unarchiver gives the object it registered for it.
        Self.seen.append(Weak(try coder.decode(ArchivedObject?.self, forKey: "owner")))
        throw KeyedArchiveError(.invalidValue, "FailingWitness always fails")
    }
    func encode(with coder: KeyedArchiver) { coder.encode(owner, forKey: "owner") }
}

/// Every ArchivedObject reachable from `root` through fields, arrays, dictionaries and sets.
func reachable(from root: ArchivedObject) -> [ArchivedObject] {
    var seen: Set<ObjectIdentifier> = []
    var result: [ArchivedObject] = []
    var work: [Any] = [root]
    while let next = work.popLast() {
        switch next {
        case let o as ArchivedObject:
            guard seen.insert(ObjectIdentifier(o)).inserted else { continue }
            result.append(o)
            for (_, f) in o.fields {
                switch f {
                case .value: break
                case .object(let v): if let v { work.append(v) }
                case .objects(let list): work.append(contentsOf: list.compactMap { $0 })
                }
            }
        case let a as [Any]: work.append(contentsOf: a)
        case let d as [AnyHashable: Any]:
            work.append(contentsOf: d.keys.map(\.base))
            work.append(contentsOf: d.values)
        case let s as Set<AnyHashable>: work.append(contentsOf: s.map(\.base))
        default: break
        }
    }
    return result
}

/// The number of entries in an archive's `$objects`.
func objectCount(_ bytes: [UInt8]) throws -> Int {
    guard case .array(let objects)? = try BinaryPlistDocument(bytes).decodeTopObject()["$objects"] else {
        throw CycleTestFailure()
    }
    return objects.count
}

@inline(__always)
func autoreleasepoolIfAvailable<R>(_ body: () throws -> R) rethrows -> R {
    #if canImport(ObjectiveC)
    return try autoreleasepool(invoking: body)
    #else
    return try body()
    #endif
}
