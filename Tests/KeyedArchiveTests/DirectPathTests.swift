import BinaryPlist
import Foundation
@testable import KeyedArchive
import Testing

/// A record read with the typed calls that have direct paths (strings, dates, string dictionaries).
private final class Entry: KeyedArchivable {
    var name = ""
    var when = Date(timeIntervalSinceReferenceDate: 0)
    var fields: [String: String] = [:]
    var note: String?

    init(name: String, when: Date, fields: [String: String], note: String?) {
        (self.name, self.when, self.fields, self.note) = (name, when, fields, note)
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        note = try coder.decodeIfPresent(String.self, forKey: "note")
        when = try coder.decode(Date.self, forKey: "when")
        fields = try coder.decode([String: String].self, forKey: "fields")
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(note, forKey: "note")
        coder.encode(when, forKey: "when")
        coder.encode(fields, forKey: "fields")
    }
}

/// The same record written through `encodeObject(_:forKey:)`, the general path.
private final class GeneralEntry: KeyedArchivable {
    static var archivedClassName: String { "Entry" }
    let entry: Entry
    init(_ entry: Entry) { self.entry = entry }
    init(coder: KeyedUnarchiver) throws { entry = try Entry(coder: coder) }
    func encode(with coder: KeyedArchiver) {
        coder.encodeObject(entry.name, forKey: "name")
        coder.encodeObject(entry.note, forKey: "note")
        coder.encodeObject(entry.when, forKey: "when")
        coder.encodeObject(entry.fields, forKey: "fields")
    }
}

/// Every typed value at once, written through the typed overloads or through `encodeValue`.
private struct Everything: KeyedArchivable {
    var general = false
    func encode(with coder: KeyedArchiver) {
        let values: [(String, Any?)] = [
            ("string", "text"), ("none", nil as String?), ("date", Date(timeIntervalSinceReferenceDate: 42.5)),
            ("data", Data([1, 2, 3])), ("uuid", UUID(uuidString: "54CD5574-E957-4499-8A09-DAB688C0B586")),
            ("url", URL(string: "https://example.com/a")), ("fields", ["b": "2", "a": "1", "c": "text"]),
            ("points", [Point(x: 1, y: 2), Point(x: 3, y: 4)]), ("numbers", [1, 2, 3]),
        ]
        if general {
            for (key, value) in values { coder.encodeObject(value, forKey: key) }
            return
        }
        coder.encode("text", forKey: "string")
        coder.encode(nil as String?, forKey: "none")
        coder.encode(Date(timeIntervalSinceReferenceDate: 42.5), forKey: "date")
        coder.encode(Data([1, 2, 3]), forKey: "data")
        coder.encode(UUID(uuidString: "54CD5574-E957-4499-8A09-DAB688C0B586"), forKey: "uuid")
        coder.encode(URL(string: "https://example.com/a"), forKey: "url")
        coder.encode(["b": "2", "a": "1", "c": "text"], forKey: "fields")
        coder.encode([Point(x: 1, y: 2), Point(x: 3, y: 4)], forKey: "points")
        coder.encode([1, 2, 3], forKey: "numbers")
    }
    init(general: Bool) { self.general = general }
    init(coder: KeyedUnarchiver) throws {}
}

@Suite("Direct paths for common types")
struct DirectPathTests {
    let registry = ClassRegistry([Entry.self])

    private func object(_ entries: [(String, PlistValue)]) -> PlistValue {
        var d = PlistDictionary()
        for (k, v) in entries { d[k] = v }
        return .dictionary(d)
    }

    private func archive(_ objects: [PlistValue]) -> [UInt8] {
        NonUniquingWriter.bytes(object([
            ("$archiver", "NSKeyedArchiver"), ("$version", .integer(PlistInteger(Int64(100_000)))),
            ("$top", object([("root", .uid(PlistUID(1)))])), ("$objects", .array(objects)),
        ]))
    }

    private func uid(_ n: UInt64) -> PlistValue { .uid(PlistUID(n)) }

    @Test func typedOverloadsWriteTheSameBytesAsEncodeValue() throws {
        let typed = try KeyedArchiver.archivedData(withRootObject: Everything(general: false))
        #expect(typed == (try KeyedArchiver.archivedData(withRootObject: Everything(general: true))))
        let entry = Entry(name: "n", when: Date(timeIntervalSinceReferenceDate: 7), fields: ["k": "v", "a": "b"], note: nil)
        let general = GeneralEntry(entry)
        #expect(try KeyedArchiver.archivedData(withRootObject: [entry, entry])
                == KeyedArchiver.archivedData(withRootObject: [general, general]))
    }

    @Test func decodesArchivesWhoseKeyStringsAreNotUniqued() throws {
        // Three entries, each with its own key string objects, in different key orders; the second has no note.
        let entryClass = HostileArchive.classEntry("Entry")
        let objects: [PlistValue] = [
            "$null",
            .array([uid(2), uid(3), uid(4)]),  // 1: the root, a bare array of entries
            object([("$class", uid(11)), ("name", uid(5)), ("note", uid(6)), ("when", uid(8)), ("fields", uid(9))]),
            object([("fields", uid(10)), ("when", uid(8)), ("name", uid(7)), ("$class", uid(11))]),
            object([("note", uid(5)), ("name", uid(6)), ("$class", uid(11)), ("fields", uid(10)), ("when", uid(8))]),
            "first", "second", "third",                                                   // 5, 6, 7
            object([("NS.time", .real(100)), ("$class", uid(12))]),                        // 8
            object([("NS.keys", .array([uid(5)])), ("NS.objects", .array([uid(6)])), ("$class", uid(13))]),  // 9
            object([("$class", uid(13)), ("NS.objects", .array([])), ("NS.keys", .array([]))]),             // 10
            entryClass, HostileArchive.classEntry("NSDate"), HostileArchive.classEntry("NSDictionary"),     // 11-13
        ]
        let bytes = archive([objects[0], object([("$class", uid(14)), ("NS.objects", .array([uid(2), uid(3), uid(4)]))])]
                            + objects[2...] + [HostileArchive.classEntry("NSArray")])
        let entries = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Entry].self, from: bytes, registry: registry))
        #expect(entries.map(\.name) == ["first", "third", "second"])
        #expect(entries.map(\.note) == ["second", nil, "first"])
        #expect(entries.map(\.fields) == [["first": "second"], [:], [:]])
        #expect(entries.allSatisfy { $0.when == Date(timeIntervalSinceReferenceDate: 100) })
    }

    @Test func aKeyMissingFromObjectsWhoseKeyStringsAreAllKnownIsMissing() throws {
        // Uniqued key strings: once every key object of an entry (`$class` too) is known to hold another name, a
        // missing "note" is missing without comparing strings; the notes that are there are still found.
        let when = Date(timeIntervalSinceReferenceDate: 3)
        let entries = (0..<6).map { i in Entry(name: "e\(i)", when: when, fields: [:], note: i % 3 == 1 ? nil : "n\(i)") }
        let bytes = try KeyedArchiver.archivedData(withRootObject: entries)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Entry].self, from: bytes, registry: registry))
        #expect(decoded.map(\.note) == ["n0", nil, "n2", "n3", nil, "n5"])
        #expect(decoded.map(\.name) == ["e0", "e1", "e2", "e3", "e4", "e5"])
    }

    @Test func otherFormsOfStringsDatesAndDictionariesTakeTheGeneralPath() throws {
        let bytes = try HostileArchive.bytes([
            "$null",
            .dictionary(["$class": uid(9), "name": uid(2), "when": uid(3), "fields": uid(5)]),
            .dictionary(["$class": uid(6), "NS.string": "mutable"]),           // NSMutableString
            .dictionary(["$class": uid(7), "NS.time": .integer(PlistInteger(Int64(60)))]),  // integer NS.time
            "key",
            .dictionary(["$class": uid(8), "NS.keys": .array([uid(4), uid(4)]), "NS.objects": .array([uid(2), uid(10)])]),
            HostileArchive.classEntry("NSMutableString", ["NSMutableString", "NSString", "NSObject"]),
            HostileArchive.classEntry("NSDate"),
            HostileArchive.classEntry("NSMutableDictionary", ["NSMutableDictionary", "NSDictionary", "NSObject"]),
            HostileArchive.classEntry("Entry"),
            "later",
        ])
        let entry = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Entry.self, from: bytes, registry: registry))
        #expect(entry.name == "mutable")
        #expect(entry.when == Date(timeIntervalSinceReferenceDate: 60))
        #expect(entry.fields == ["key": "later"])
    }

    @Test func aStringDictionaryHoldingANumberIsATypeMismatch() throws {
        let bytes = try HostileArchive.bytes([
            "$null",
            .dictionary(["$class": uid(5), "name": uid(2), "when": uid(6), "fields": uid(3)]),
            "key",
            .dictionary(["$class": uid(4), "NS.keys": .array([uid(2)]), "NS.objects": .array([uid(8)])]),
            HostileArchive.classEntry("NSDictionary"),
            HostileArchive.classEntry("Entry"),
            .dictionary(["$class": uid(7), "NS.time": .real(1)]),
            HostileArchive.classEntry("NSDate"),
            .integer(PlistInteger(Int64(5))),
        ])
        expectKeyedError(.typeMismatch) {
            try KeyedUnarchiver.unarchivedObject(ofType: Entry.self, from: bytes, registry: registry)
        }
    }

    @Test func directlyDecodedValuesCountTowardsTheObjectLimit() throws {
        let entry = Entry(name: "n", when: Date(timeIntervalSinceReferenceDate: 1), fields: ["a": "1", "b": "2"], note: "x")
        let bytes = try KeyedArchiver.archivedData(withRootObject: entry)
        // root, name, note, date, dictionary and its four strings: 9 objects.
        let decoded = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, maxObjects: 9) { u in
            try u.decode(Entry.self, forKey: "root")
        }
        #expect(decoded.fields == ["a": "1", "b": "2"])
        expectKeyedError(.elementLimitExceeded) {
            try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, maxObjects: 8) { u in
                try u.decode(Entry.self, forKey: "root")
            }
        }
    }

    @Test func stringTableFindsEveryStringAfterGrowing() {
        var table = StringTable(capacity: 4)
        let strings = (0..<5_000).map { "key-\($0)-" + String(repeating: "x", count: $0 % 40) } + ["", "é", "a\u{0}b"]
        for (i, s) in strings.enumerated() { #expect(table.uniqueValue(for: s, Int32(i)) == Int32(i)) }
        for (i, s) in strings.enumerated() { #expect(table.uniqueValue(for: s, -1) == Int32(i)) }
        #expect(table.count == strings.count)
    }

    @Test func identityTableFindsEveryObjectAfterGrowing() {
        final class Box {}
        var table = IdentityTable(capacity: 4)
        let boxes = (0..<5_000).map { _ in Box() }
        for (i, box) in boxes.enumerated() { table.insert(IdentityKey(ObjectIdentifier(box)), Int32(i)) }
        table.insert(IdentityKey(ObjectIdentifier(boxes[7])), 70)
        for (i, box) in boxes.enumerated() { #expect(table[IdentityKey(ObjectIdentifier(box))] == (i == 7 ? 70 : Int32(i))) }
        #expect(table.count == boxes.count)
        let other = Box()
        #expect(table[IdentityKey(ObjectIdentifier(other))] == nil)
    }

    @Test func uidBitSetIgnoresOutOfRangeUIDs() {
        var set = UIDBitSet(count: 70)
        set.insert(69)
        set.insert(500)
        set.insert(-1)
        #expect(set.contains(69) && !set.contains(500) && !set.contains(-1) && !set.contains(5))
        set.remove(69)
        #expect(!set.contains(69))
    }
}
