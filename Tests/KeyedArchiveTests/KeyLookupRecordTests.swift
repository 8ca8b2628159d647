import BinaryPlist
@testable import KeyedArchive
import Testing

/// Reads `kind`, then the unkeyed value `$0` (raw key "$0", kind 0) or the user key "$0" (raw key "$$0").
private final class EscapedKeyProbe: KeyedArchivable {
    static var archivedClassName: String { "Escaped" }
    var value: String?
    init(coder: KeyedUnarchiver) throws {
        if try coder.decode(Int.self, forKey: "kind") == 0 {
            value = try coder.decodeObject(of: String.self)
        } else {
            value = try coder.decodeIfPresent(String.self, forKey: "$0")
        }
    }
    func encode(with coder: KeyedArchiver) {}
}

/// A chain of nodes of one class, each read inside its parent's `init(coder:)`.
private final class LookupNode: KeyedArchivable {
    static var archivedClassName: String { "Node" }
    let value: Int
    let child: LookupNode?
    let label: String?
    init(_ value: Int, _ child: LookupNode?, label: String? = nil) { (self.value, self.child, self.label) = (value, child, label) }
    init(coder: KeyedUnarchiver) throws {
        value = try coder.decode(Int.self, forKey: "value")
        child = try coder.decodeIfPresent(LookupNode.self, forKey: "child")
        label = try coder.decodeIfPresent(String.self, forKey: "label")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(value, forKey: "value")
        if let child { coder.encode(child, forKey: "child") }
        if let label { coder.encode(label, forKey: "label") }
    }
    var values: [Int] { [value] + (child?.values ?? []) }
    var labels: [String?] { [label] + (child?.labels ?? []) }
}

/// The key lookups of an object replayed for the next objects of its class with the same key objects
/// (`KeyLookupRecord`): the answers the general path gives, whatever the objects ask for.
@Suite("Key lookup records")
struct KeyLookupRecordTests {
    private let registry = ClassRegistry([LookupProbe.self, LookupNode.self, EscapedKeyProbe.self])

    private func dictionary(_ entries: [(String, PlistValue)]) -> PlistValue {
        var d = PlistDictionary()
        for (k, v) in entries { d.append(key: .string(k), value: v) }
        return .dictionary(d)
    }

    /// The root an NSArray of `readings` (objects 2...), then the classes; key strings are uniqued, so
    /// readings with the same keys in the same order have the same key objects.
    private func archive(_ readings: [[(String, PlistValue)]]) throws -> [UInt8] {
        let uid = HostileArchive.uid
        let readingClass = UInt64(2 + readings.count)
        let objects: [PlistValue] = ["$null",
            .dictionary(["$class": uid(readingClass + 1), "NS.objects": .array((0..<readings.count).map { uid(UInt64(2 + $0)) })])]
            + readings.map { dictionary($0 + [("$class", uid(readingClass))]) }
            + [HostileArchive.classEntry("Reading"), HostileArchive.classEntry("NSArray")]
        return try HostileArchive.bytes(objects)
    }

    private func readings(_ bytes: [UInt8]) throws -> [LookupProbe] {
        try #require(try KeyedUnarchiver.unarchivedObject(ofType: [LookupProbe].self, from: bytes, registry: registry))
    }

    @Test func anObjectAskingForOtherKeysThanTheRecordedOneGetsItsOwnAnswers() throws {
        let keys: (Int, Double, String) -> [(String, PlistValue)] = { kind, x, y in
            [("kind", .integer(PlistInteger(Int64(kind)))), ("x", .real(x)), ("y", .string(y))]
        }
        let decoded = try readings(archive([keys(0, 1.5, "a"), keys(1, 2.5, "b"), keys(0, 3.5, "c"), keys(1, 4.5, "d")]))
        #expect(decoded.map(\.kind) == [0, 1, 0, 1])
        #expect(decoded.map(\.x) == [1.5, 0, 3.5, 0])
        #expect(decoded.map(\.y) == [nil, "b", nil, "d"])
        #expect(decoded.map(\.note) == [nil, nil, nil, nil])
        #expect(decoded.map(\.hasX) == [true, true, true, true])
    }

    @Test func objectsWithOtherKeySetsOrOrdersAreNotReplayed() throws {
        let decoded = try readings(archive([
            [("kind", 0), ("x", .real(1)), ("note", "first")],
            [("x", .real(2)), ("kind", 0)],
            [("kind", 0), ("x", .real(3)), ("note", "third")],
            [("kind", 1), ("note", "fourth")],
            [("note", "fifth"), ("kind", 0), ("x", .real(5))],
            [("kind", 0), ("x", .real(6))],
        ]))
        #expect(decoded.map(\.x) == [1, 2, 3, 0, 5, 6])
        #expect(decoded.map(\.note) == ["first", nil, "third", "fourth", "fifth", nil])
        #expect(decoded.map(\.hasX) == [true, true, true, false, true, true])
    }

    @Test func aDuplicatedKeyIsFoundWhereTheGeneralPathFindsIt() throws {
        // "x" twice: after "kind" (position 1) the scan goes on from position 2, so "x" is the second one.
        let decoded = try readings(archive([
            [("x", .real(10)), ("kind", 0), ("x", .real(20))],
            [("x", .real(30)), ("kind", 0), ("x", .real(40))],
            [("x", .real(50)), ("kind", 0), ("x", .real(60))],
        ]))
        #expect(decoded.map(\.x) == [20, 40, 60])
    }

    @Test func aReplayedObjectWithABadValueIsItsOwnError() throws {
        let good: [(String, PlistValue)] = [("kind", 0), ("x", .real(1))]
        let error = expectKeyedError(.typeMismatch) {
            try readings(archive([good, good, [("kind", 0), ("x", "wide")], good]))
        }
        #expect(error?.objectIndex == 4)
        #expect(error?.reason == "expected Double, found a string")
        // The same object read first (nothing recorded) fails in the same words.
        let alone = expectKeyedError(.typeMismatch) { try readings(archive([[("kind", 0), ("x", "wide")]])) }
        #expect(alone?.objectIndex == 2)
        #expect(alone?.reason == error?.reason)
        #expect(error?.keyPath == "root.NS.objects.2.x")
        #expect(alone?.keyPath == "root.NS.objects.0.x")
    }

    @Test func aUserKeyIsNotTheRecordedRawKeyOfTheSameSpelling() throws {
        // The first object asks for the raw key "$0"; the second, with the same key objects, for the user key
        // "$0", which is the raw key "$$0".
        let uid = HostileArchive.uid
        let fields: (Int64) -> PlistValue = { kind in
            dictionary([("kind", .integer(PlistInteger(kind))), ("$0", "raw"), ("$$0", "user"), ("$class", uid(5))])
        }
        let bytes = try HostileArchive.bytes([
            "$null", .dictionary(["$class": uid(6), "NS.objects": .array([uid(2), uid(3), uid(4)])]),
            fields(0), fields(1), fields(0), HostileArchive.classEntry("Escaped"), HostileArchive.classEntry("NSArray"),
        ])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [EscapedKeyProbe].self, from: bytes, registry: registry))
        #expect(decoded.map(\.value) == ["raw", "user", "raw"])
    }

    @Test func nestedObjectsOfOneClassKeepTheirOwnAnswers() throws {
        // Each node is read inside its parent, so a child takes over its class's records while the parent
        // still reads: the parent's later lookups must not use the child's answers.
        let chains = (0..<6).map { i in
            LookupNode(i, LookupNode(10 * i, i % 2 == 0 ? LookupNode(100 * i, nil, label: "leaf") : nil), label: i % 3 == 0 ? "top" : nil)
        }
        let bytes = try KeyedArchiver.archivedData(withRootObject: chains)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [LookupNode].self, from: bytes, registry: registry))
        #expect(decoded.map(\.values) == chains.map(\.values))
        #expect(decoded.map(\.labels) == chains.map(\.labels))
    }
}
