import BinaryPlist
import Foundation
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// An enum with associated values: its synthesized Codable uses nested containers.
private enum Figure: Codable {
    case circle(radius: Double)
    case square(side: Double)
}

/// A node of a ring: each refers to the next, the last back to the first.
private final class RingNode: KeyedArchivable {
    var name: String
    var next: RingNode?
    init(name: String) { self.name = name }
    init(coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        try coder.decodeDeferred(RingNode.self, forKey: "next") { [unowned self] in self.next = $0 }
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(next, forKey: "next")
    }
}

/// Refers to `target` only conditionally, then to `later`, which holds `target` for real.
private final class Watcher: KeyedArchivable {
    let target: RingNode
    let later: RingNode
    let absent: RingNode
    init(target: RingNode, later: RingNode, absent: RingNode) { (self.target, self.later, self.absent) = (target, later, absent) }
    init(coder: KeyedUnarchiver) throws { throw KeyedArchiveError(.unsupportedType, "write only") }
    func encode(with coder: KeyedArchiver) {
        coder.encodeConditionalObject(target, forKey: "weak")
        coder.encode(later, forKey: "later")
        coder.encodeConditionalObject(absent, forKey: "never")
    }
}

/// archive-JSON's graph form: every object once with its index, references as `{"$ref": n}`, read
/// back with the same objects at the same indexes, and our own archives byte for byte.
@Suite("archive-JSON graph form")
struct ArchiveGraphFormTests {
    /// `$top`, then `$objects` exactly: same indexes, same values, same key order.
    func expectSameGraph(_ a: [UInt8], _ b: [UInt8], keyOrder: Bool = true,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let x = try ArchiveGraph(bytes: a)
        let y = try ArchiveGraph(bytes: b)
        #expect(x == y, sourceLocation: sourceLocation)
        guard keyOrder else { return }
        #expect(x.top.entries == y.top.entries, sourceLocation: sourceLocation)
        #expect(x.objects.count == y.objects.count, sourceLocation: sourceLocation)
        for (i, (p, q)) in zip(x.objects, y.objects).enumerated() where p.dictionaryValue?.entries != q.dictionaryValue?.entries {
            Issue.record("object \(i): \(p) != \(q)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyObjectPrintsOnceWithItsIndexAndReferencesAsRef() throws {
        let a = RingNode(name: "a")
        let b = RingNode(name: "b")
        (a.next, b.next) = (b, a)
        let bytes = try KeyedArchiver.archivedData(withRootObject: [a, b, a] as [Any])
        #expect(try ArchiveJSON.renderGraph(bytes) == """
            {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": {"$ref": 1}}, "$objects": [
            {"$id": 0, "value": "$null"},
            {"$id": 1, "class": "NSArray", "fields": {"NS.objects": [{"$ref": 2}, {"$ref": 4}, {"$ref": 2}], "$class": {"$ref": 7}}},
            {"$id": 2, "class": "RingNode", "fields": {"name": {"$ref": 3}, "next": {"$ref": 4}, "$class": {"$ref": 6}}},
            {"$id": 3, "value": "a"},
            {"$id": 4, "class": "RingNode", "fields": {"name": {"$ref": 5}, "next": {"$ref": 2}, "$class": {"$ref": 6}}},
            {"$id": 5, "value": "b"},
            {"$id": 6, "fields": {"$classes": ["RingNode", "NSObject"], "$classname": "RingNode"}},
            {"$id": 7, "fields": {"$classes": ["NSArray", "NSObject"], "$classname": "NSArray"}}
            ]}
            """)
    }

    @Test func scalarsKeepTheirPlistTypesAsPlistJSON() throws {
        // Inline fields of every plist type, and a $top that is more than root.
        let objects: [PlistValue] = [
            "$null",
            .dictionary(["i": 5, "big": .integer(PlistInteger(UInt64.max)), "neg": -3, "r": .real(2.5), "nan": .real(.nan),
                         "t": true, "d": .data([1, 2]), "when": .date(PlistDate(secondsSinceReferenceDate: 10)),
                         "list": [1, "x", .uid(PlistUID(2))], "map": .dictionary(["k": 1]), "$class": .uid(PlistUID(3))]),
            .real(-0.0),
            HostileArchive.classEntry("Thing"),
        ]
        let bytes = try ArchiveGraph(top: ["root": .uid(PlistUID(1)), "count": 2], objects: objects).encoded()
        let json = try ArchiveJSON.renderGraph(bytes)
        #expect(json == """
            {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": {"$ref": 1}, "count": 2}, "$objects": [
            {"$id": 0, "value": "$null"},
            {"$id": 1, "class": "Thing", "fields": {"i": 5, "big": 18446744073709551615, "neg": -3, "r": {"real": 2.5}, "nan": {"real": "nan"}, "t": true, "d": {"data": "AQI="}, "when": {"date": 10.0}, "list": [1, "x", {"$ref": 2}], "map": {"dict": {"k": 1}}, "$class": {"$ref": 3}}},
            {"$id": 2, "value": {"real": -0.0}},
            {"$id": 3, "fields": {"$classname": "Thing", "$classes": ["Thing", "NSObject"]}}
            ]}
            """)
        try expectSameGraph(ArchiveJSON.encode(json), bytes)
    }

    @Test func prettyIndentsOneSpacePerLevel() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: "hi")
        #expect(try ArchiveJSON.renderGraph(bytes, pretty: true) == """
            {
             "$archiver": "NSKeyedArchiver",
             "$version": 100000,
             "$top": {
              "root": {
               "$ref": 1
              }
             },
             "$objects": [
              {
               "$id": 0,
               "value": "$null"
              },
              {
               "$id": 1,
               "value": "hi"
              }
             ]
            }
            """)
        #expect(try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes, pretty: true)) == bytes)
    }

    /// Every keyed fixture: an Apple-made (or other) archive comes back with the same objects at the same
    /// indexes, in binary and XML; what we then wrote comes back byte for byte. A broken one fails as
    /// ``ArchiveGraph`` fails, or, when only a reference points past the objects, prints and is refused by
    /// `encode`.
    @Test(arguments: KeyedFixtures.dataFiles(under: "keyed"))
    func everyKeyedFixtureRoundTripsToTheSameGraph(_ path: String) throws {
        let bytes = try KeyedFixtures.bytes(path)
        let graph: ArchiveGraph
        do {
            graph = try ArchiveGraph(bytes: bytes)
        } catch let error as KeyedArchiveError {
            #expect(path.contains("/broken/") || path.contains("/embedded/"))
            expectKeyedError(error.code) { try ArchiveJSON.renderGraph(bytes) }
            return
        }
        let json = try ArchiveJSON.renderGraph(bytes)
        if let dangling = Self.danglingReference(graph) {
            #expect(path.contains("/broken/"))
            let error = expectArchiveJSONError { try ArchiveJSON.encode(json) }
            #expect(error?.reason.contains("{\"$ref\": \(dangling)} is not an index below the \(graph.objects.count) objects") == true)
            return
        }
        let binary = try ArchiveJSON.encode(json)
        try expectSameGraph(binary, bytes)
        #expect(try ArchiveJSON.encode(ArchiveJSON.renderGraph(binary)) == binary)
        let xml = try ArchiveJSON.encode(json, format: .xml)
        try expectSameGraph(xml, bytes, keyOrder: false)  // the XML writer sorts keys, as Apple's does
        #expect(try ArchiveJSON.encode(ArchiveJSON.renderGraph(xml), format: .xml) == xml)
    }

    /// A UID of the graph that is not below its object count.
    static func danglingReference(_ graph: ArchiveGraph) -> UInt64? {
        func find(_ v: PlistValue) -> UInt64? {
            switch v {
            case .uid(let u): return u.value >= UInt64(graph.objects.count) ? u.value : nil
            case .array(let items), .set(let items): return items.lazy.compactMap(find).first
            case .dictionary(let d): return d.entries.lazy.compactMap { find($0.key) ?? find($0.value) }.first
            default: return nil
            }
        }
        return graph.top.entries.lazy.compactMap { find($0.value) }.first ?? graph.objects.lazy.compactMap(find).first
    }

    @Test func theHeavilySharedNibPrintsEachObjectOnceInLinearSize() throws {
        let bytes = try KeyedFixtures.bytes("keyed/Flycut-nib/MainMenu.keyedobjects.nib")
        let graph = try ArchiveGraph(bytes: bytes)
        let json = try ArchiveJSON.renderGraph(bytes)
        let lines = json.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == graph.objects.count + 2)
        for (uid, line) in lines.dropFirst().prefix(graph.objects.count).enumerated() {
            #expect(line.hasPrefix("{\"$id\": \(uid), "))
        }
        #expect(json.utf8.count < 4 * bytes.count)
        try expectSameGraph(ArchiveJSON.encode(json), bytes)
    }

    static let ours = ["shapes", "shapes as XML", "every scalar and standard class", "standard values",
                       "a ring of objects", "a tree with conditional parents", "unkeyed values", "a conditional reference to an object encoded later",
                       "Codable shapes", "a Codable dictionary", "tree-form archive-JSON"]

    static func ourArchive(_ name: String) throws -> [UInt8] {
        switch name {
        case "shapes": return try KeyedArchiver.archivedData(withRootObject: makeContents(count: 40).0)
        case "shapes as XML": return try KeyedArchiver.archivedData(withRootObject: makeContents(count: 12).0, format: .xml)
        case "every scalar and standard class": return try KeyedArchiver.archivedData(withRootObject: Sampler())
        case "standard values":
            let value: [String: Any] = [
                "n": 5, "r": 2.5, "b": true, "s": "x", "date": Date(timeIntervalSinceReferenceDate: 10),
                "data": Data([1, 2]), "uuid": UUID(uuidString: "54cd5574-e957-4499-8a09-dab688c0b586") ?? UUID(),
                "url": URL(string: "b", relativeTo: URL(string: "https://e.com/a/")) ?? URL(fileURLWithPath: "/"),
                "null": ArchivedNull(), "set": Set(["only", "two"]), "ordered": ArchivedOrderedSet(["o", 1]),
                "list": [1, 2, [3]], "numbers": [1: "one", 2: "two"], "big": UInt64.max,
                "value": ArchivedValue.range(location: 1, length: 2),
            ]
            return try KeyedArchiver.archivedData(withRootObject: value)
        case "a ring of objects":
            let nodes = (0..<5).map { RingNode(name: "n\($0)") }
            for i in nodes.indices { nodes[i].next = nodes[(i + 1) % nodes.count] }
            return try KeyedArchiver.archivedData(withRootObject: nodes[0])
        case "a tree with conditional parents":
            let root = TreeNode(name: "root")
            for i in 0..<3 {
                let child = TreeNode(name: "c\(i)")
                root.add(child)
                child.add(TreeNode(name: "leaf\(i)"))
            }
            return try KeyedArchiver.archivedData(withRootObject: root)
        case "unkeyed values":
            let archiver = KeyedArchiver()
            archiver.encodeObject("first")
            archiver.encodeObject([1, 2])
            return try archiver.finishEncoding()
        case "a conditional reference to an object encoded later":
            let target = RingNode(name: "target")
            let later = RingNode(name: "later")
            later.next = target
            return try KeyedArchiver.archivedData(withRootObject: Watcher(target: target, later: later,
                                                                          absent: RingNode(name: "x")))
        case "Codable shapes": return try ArchiveEncoder().encode(makeCodableContents(count: 30))
        case "a Codable dictionary": return try ArchiveEncoder().encode(["b": [1, 2], "a": [3]])
        case "tree-form archive-JSON":
            return try ArchiveJSON.encode(#"{"class": "Note", "fields": {"title": "Hi", "count": 3, "ratio": {"real": 0.5}, "#
                + #""tags": ["a", null], "meta": {"dict": {"at": {"date": 5.0}}}, "keys": {"dict": [[1, "one"]]}, "#
                + #""links": {"set": [{"url": "https://e.com/x"}]}, "self": {"ref": "Note"}}}"#)
        default: throw KeyedArchiveError(.unsupportedType, "no archive named \(name)")
        }
    }

    @Test(arguments: ours)
    func archivesWeWroteComeBackByteForByte(_ name: String) throws {
        let bytes = try Self.ourArchive(name)
        let json = try ArchiveJSON.renderGraph(bytes)
        let format: PlistFormat = PropertyList.detectFormat(bytes) == .xml ? .xml : .binary
        #expect(try ArchiveJSON.encode(json, format: format) == bytes)
        #expect(try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes, pretty: true), format: format) == bytes)
    }

    /// Every Apple fixture, decoded into our types (unknown classes as ``ArchivedObject``) and archived again
    /// by ``KeyedArchiver`` under the same `$top` keys: our bytes, back byte for byte.
    @Test(arguments: KeyedFixtures.appleArchives)
    func fixturesArchivedAgainByUsComeBackByteForByte(_ path: String) throws {
        let source = try KeyedFixtures.bytes(path)
        let unkeyed = try ArchiveGraph(bytes: source).top.entries.filter { $0.key.stringValue?.hasPrefix("$") == true }.count
        let archiver = KeyedArchiver()
        let reArchive = {
            try KeyedUnarchiver.withUnarchiver(for: source, registry: .standard.allowingUnknownClasses()) { u in
                for key in try u.allKeys() { archiver.encodeObject(try u.decodeIfPresent(Any.self, forKey: key), forKey: key) }
                for _ in 0..<unkeyed { archiver.encodeObject(try u.decodeObject(of: Any.self)) }
            }
        }
        guard path != "keyed/michaelwright235-nskeyedunarchiver/circularReference.plist" else {
            // An array containing itself: a cycle through a value, which typed decoding refuses by design.
            expectKeyedError(.cycle) { try reArchive() }
            return
        }
        try reArchive()
        let bytes = try archiver.finishEncoding()
        #expect(try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes)) == bytes)
    }

    /// What the graph does not tell: the graph comes back, the plist objects in another order.
    @Test(arguments: ["nested containers", "a conditional reference never encoded",
                      "a conditional reference just before the encoding"])
    func whatTheGraphDoesNotTellKeepsTheGraphButNotTheBytes(_ name: String) throws {
        let bytes: [UInt8]
        switch name {
        case "nested containers":
            // ArchiveEncoder writes the dictionaries of the enum payloads after the value that holds them.
            bytes = try ArchiveEncoder().encode([Figure.circle(radius: 1), .square(side: 2)])
        case "a conditional reference never encoded":
            // It reads as $null, which is written where it is met rather than at the end.
            let archiver = KeyedArchiver()
            archiver.encodeConditionalObject(RingNode(name: "orphan"), forKey: "never")
            archiver.encode("x", forKey: "root")
            bytes = try archiver.finishEncoding()
        default:
            // It reads as the encoding of the object, which the archiver met one key later.
            let node = RingNode(name: "n")
            let archiver = KeyedArchiver()
            archiver.encodeConditionalObject(node, forKey: "weak")
            archiver.encode(node, forKey: "strong")
            bytes = try archiver.finishEncoding()
        }
        let again = try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes))
        try expectSameGraph(again, bytes)
        #expect(again != bytes)
    }

    @Test func sharingAndCyclesSurviveTheRoundTrip() throws {
        let nodes = (0..<3).map { RingNode(name: "n\($0)") }
        for i in nodes.indices { nodes[i].next = nodes[(i + 1) % nodes.count] }
        let bytes = try ArchiveJSON.encode(ArchiveJSON.renderGraph(KeyedArchiver.archivedData(withRootObject: [nodes[0], nodes[2]])))
        let list = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [RingNode].self, from: bytes,
                                                                     registry: ClassRegistry([RingNode.self])))
        #expect(list.count == 2)
        #expect(list[0].next?.next === list[1])
        #expect(list[1].next === list[0])
    }

    @Test(arguments: [
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 1, "value": "$null"}]}"#,
         #"$objects[0] must have "$id": 0 (entries are listed in index order from 0)"#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 0, "value": "x"}]}"#,
         #"$objects[0] must be {"$id": 0, "value": "$null"}"#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": {"$ref": 2}}, "$objects": [{"$id": 0, "value": "$null"}]}"#,
         #"$top.root: {"$ref": 2} is not an index below the 1 objects"#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 0, "value": "$null"}, {"$id": 1, "value": 1.5}]}"#,
         #"$objects[1]: 1.5 is not an integer (write reals as {"real": x})"#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 0, "value": "$null"}, {"$id": 1, "class": "A", "fields": {"$class": {"$ref": 2}}}, {"$id": 2, "fields": {"$classname": "B"}}]}"#,
         #"$objects[1]: "class" is "A" but its $class names "B""#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 0, "value": "$null"}, {"$id": 1, "fields": {"a": 1, "a": 2}}]}"#,
         #"$objects[1]: duplicate field "a""#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 0, "value": "$null", "class": "X"}]}"#,
         #"$objects[0] must have either "value" or "fields" (with an optional "class")"#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {}, "$objects": [{"$id": 0, "value": {"uid": 0}}]}"#,
         #"$objects[0]: unknown or malformed wrapper {"uid": ...}"#),
        (#"{"$archiver": "NSKeyedArchiver", "$version": 1, "$top": {}, "$objects": []}"#, #""$version" must be 100000"#),
        (#"{"$top": {}, "$objects": [], "extra": 1}"#, #"unexpected key "extra" (the graph form has $archiver, $version, $top and $objects)"#),
    ])
    func malformedGraphFormIsRefusedWithWhereAndWhy(json: String, reason: String) {
        let error = expectArchiveJSONError { try ArchiveJSON.encode(json) }
        #expect(error?.reason == "graph form: " + reason)
        #expect(error?.byteOffset == nil)
    }

    @Test func aPlistSharingCollectionsBetweenObjectsIsRefusedNotExpanded() throws {
        // 2,000 $objects entries that are all the same plist array of 2,000 integers: 4 million values to print
        // from a file of about 8 KB.
        let bytes = SharedCollectionArchive.bytes(entries: 2_000, sharedCount: 2_000)
        #expect(bytes.count < 10_000)
        #expect(try ArchiveGraph(bytes: bytes).objects.count == 2_001)
        let error = expectKeyedError(.elementLimitExceeded) { try ArchiveJSON.renderGraph(bytes) }
        #expect(error?.reason.hasPrefix("the archive's plist shares collections between objects") == true)
    }

    @Test func aLongStringUsedByManyObjectsIsRefusedNotExpanded() throws {
        // The plist stores the 64 KiB key once; 5,000 objects use it: 320 MB of JSON from a 140 KB archive.
        let key = String(repeating: "k", count: 1 << 16)
        var objects: [PlistValue] = ["$null"]
        for _ in 0..<5_000 { objects.append(.dictionary([key: 1, "$class": .uid(PlistUID(5_001))])) }
        objects.append(HostileArchive.classEntry("Wide"))
        let bytes = try ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: objects).encoded()
        #expect(bytes.count < 140_000)
        let error = expectKeyedError(.elementLimitExceeded) { try ArchiveJSON.renderGraph(bytes) }
        #expect(error?.reason.hasPrefix("the JSON text would be longer than") == true)
    }
}
