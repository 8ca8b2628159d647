import BinaryPlist
@testable import KeyedArchive
import Testing

/// One node of a chain of one class, each read inside its parent's `init(coder:)`.
private final class MemoNode: KeyedArchivable {
    static var archivedClassName: String { "Node" }
    let value: Int
    let child: MemoNode?
    init(_ value: Int, _ child: MemoNode?) { (self.value, self.child) = (value, child) }
    init(coder: KeyedUnarchiver) throws {
        value = try coder.decode(Int.self, forKey: "value")
        child = try coder.decodeIfPresent(MemoNode.self, forKey: "child")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(value, forKey: "value")
        if let child { coder.encode(child, forKey: "child") }
    }
    var values: [Int] { [value] + (child?.values ?? []) }
}

/// The key lookups of a class's objects kept across the archives of one scratch (`KeyAnswerMemo`): each archive
/// read through the scratch gives what a first read of it gives, whatever the archives before it held.
@Suite("Key answers kept across archives")
struct KeyAnswerMemoTests {
    private let registry = ClassRegistry([LookupProbe.self, MemoNode.self])

    /// An archive whose root is one `Reading` object with `entries` (and `$class`), in that order.
    private func reading(_ entries: [(String, PlistValue)]) throws -> [UInt8] {
        var d = PlistDictionary()
        for (k, v) in entries { d.append(key: .string(k), value: v) }
        d.append(key: "$class", value: HostileArchive.uid(2))
        return try HostileArchive.bytes(["$null", .dictionary(d), HostileArchive.classEntry("Reading")])
    }

    private func read(_ bytes: [UInt8], _ scratch: KeyedUnarchiver.Scratch?) throws -> String {
        if let scratch {
            return try #require(try KeyedUnarchiver.unarchivedObject(ofType: LookupProbe.self, from: bytes, requiresSecureCoding: false,
                                                                     scratch: scratch)).summary
        }
        return try #require(try KeyedUnarchiver.unarchivedObject(ofType: LookupProbe.self, from: bytes, registry: registry,
                                                                 requiresSecureCoding: false)).summary
    }

    @Test func eachArchiveReadsAsAFirstReadOfItWhateverCameBefore() throws {
        let archives: [[(String, PlistValue)]] = [
            [("kind", 0), ("x", .real(1)), ("note", "first")],
            [("kind", 0), ("x", .real(2)), ("note", "second")],        // the same keys: answered from the first
            [("x", .real(3)), ("kind", 0), ("note", "third")],         // the same keys in another order
            [("kind", 1), ("x", .real(4)), ("note", "fourth")],        // the same keys, other requests (y, absent)
            [("kind", 1), ("y", "why"), ("note", "fifth")],            // other keys
            [("x", .real(10)), ("kind", 0), ("x", .real(20)), ("note", "twice")],   // a key twice: never kept
            [("kind", 0), ("x", .real(7)), ("note", "after twice")],
            [("kind", 0), ("x", .real(8)), ("notë", "not ascii")],     // a key that is not ASCII: never kept
            [("kind", 0), ("x", .real(9)), ("note", "ninth")],
            [("kind", 0), ("x", .real(11)), ("note", "tenth")],
            [("kind", 0), ("note", "no x")],                           // a key fewer (a missing Double reads as 0)
            [("kind", 0), ("x", .real(12)), ("note", "twelfth"), ("extra", 1)],   // a key more
        ]
        let scratch = KeyedUnarchiver.Scratch(registry: registry)
        var summaries: [String] = []
        for (n, entries) in archives.enumerated() {
            let bytes = try reading(entries)
            let fresh = try read(bytes, nil)
            #expect(try read(bytes, scratch) == fresh, "archive \(n)")
            summaries.append(fresh)
        }
        #expect(summaries == [
            "0 1.0 - first true", "0 2.0 - second true", "0 3.0 - third true", "1 0.0 - fourth true",
            "1 0.0 why fifth false", "0 20.0 - twice true", "0 7.0 - after twice true", "0 8.0 - - true",
            "0 9.0 - ninth true", "0 11.0 - tenth true", "0 0.0 - no x false", "0 12.0 - twelfth true",
        ])
    }

    @Test func theKeptAnswersAreThoseOfTheLastObjectThatRecorded() throws {
        let scratch = KeyedUnarchiver.Scratch(registry: registry)
        let a = try reading([("kind", 0), ("x", .real(1)), ("note", "a")])
        let b = try reading([("note", "b"), ("kind", 0), ("x", .real(2))])
        // Alternating key orders: each archive is a miss for what the one before kept.
        for _ in 0..<3 {
            #expect(try read(a, scratch) == "0 1.0 - a true")
            #expect(try read(b, scratch) == "0 2.0 - b true")
        }
        #expect(try read(b, scratch) == "0 2.0 - b true")
    }

    @Test func nestedObjectsOfOneClassAcrossArchives() throws {
        let scratch = KeyedUnarchiver.Scratch(registry: registry)
        let chains = [MemoNode(1, MemoNode(2, MemoNode(3, nil))), MemoNode(4, nil), MemoNode(5, MemoNode(6, nil)),
                      MemoNode(7, MemoNode(8, MemoNode(9, MemoNode(10, nil))))]
        for chain in chains + chains {
            let bytes = try KeyedArchiver.archivedData(withRootObject: chain)
            let node = try #require(try KeyedUnarchiver.unarchivedObject(ofType: MemoNode.self, from: bytes, requiresSecureCoding: false,
                                                                         scratch: scratch))
            #expect(node.values == chain.values)
        }
    }
}
