import BinaryPlist
import CommandLineSupport
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// `keyedarchive diff`: a semantic diff of two object graphs, matched by path from the roots.
@Suite struct DiffCommandTests {
    /// Person {name, age, friend -> Pet, other -> the same Pet}.
    static let person: [PlistValue] = [
        instance(2, [("name", ref(3)), ("age", 30), ("friend", ref(4)), ("other", ref(4))]),
        classEntry("Person"),
        "Ann",
        instance(5, [("kind", ref(6))]),
        classEntry("Pet"),
        "dog",
    ]

    /// Apple's archive against ours, binary and XML: UIDs, object order and uniquing may differ, the graph does not.
    @Test(arguments: appleArchives)
    func everyAppleFixtureHasNoDifferenceWithOurReEncoding(file: String) throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        let original = try RepositoryFixtures.bytes(file)
        for format in [PlistFormat.binary, .xml] {
            let ours = try reencoded(original, format: format)
            let result = inspect(["diff", fixture(file), try write(ours, "ours.plist", in: scratch)])
            #expect(result.text == "")
            #expect(result.stderr == "")
            #expect(result.status == ExitStatus.success)
        }
    }

    /// Decoding into Swift values and archiving those again is not the same graph: mutability and the sharing of
    /// value types are lost, and diff says so.
    @Test func decodingIntoSwiftValuesAndArchivingAgainLosesMutabilityAndSharing() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        let file = fixture("keyed/HexFiend-nib/JumpToOffsetBanner.keyedobjects.nib")
        let bytes = try RepositoryFixtures.bytes("keyed/HexFiend-nib/JumpToOffsetBanner.keyedobjects.nib")
        let archiver = KeyedArchiver()
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()) { coder in
            archiver.encodeObject(try coder.decodeTopLevelObject(forKey: "IB.objectdata"), forKey: "IB.objectdata")
        }
        let result = inspect(["diff", file, try write(archiver.finishEncoding(), "values.plist", in: scratch)])
        #expect(result.text == """
            IB.objectdata.NSAccessibilityConnectors: class: NSMutableArray -> NSArray
            IB.objectdata.NSConnections: class: NSMutableArray -> NSArray
            IB.objectdata.NSConnections[0].NSSource.NSControlView.NSNextResponder.NSSubviews: class: NSMutableArray -> NSArray
            IB.objectdata.NSVisibleWindows: class: NSMutableSet -> NSSet

            """)
        #expect(result.status == ExitStatus.failure)
    }

    @Test(arguments: ["UUIDv4", "collections", "date", "emptyObject", "emptyObjectExtended", "miscTypes", "nested",
                      "null", "objectWithSingleProp", "reference", "scalarTypes"])
    func binaryAndXMLOfOneGraphHaveNoDifferences(name: String) {
        let result = inspect(["diff", fixture("keyed/kiler129-NSKeyedUnarchiver/\(name).bin.plist"),
                              fixture("keyed/kiler129-NSKeyedUnarchiver/xml/\(name).xml.plist")])
        #expect(result.text == "")
        #expect(result.status == ExitStatus.success)
    }

    @Test func archivesDifferingInOneFieldOneClassAndOneSharedReferenceShowExactlyThose() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        var changed = Self.person
        changed[2] = "Bob"                                   // one field
        changed[4] = classEntry("Cat", ["Pet"])               // one class
        changed[0] = instance(2, [("name", ref(3)), ("age", 30), ("friend", ref(4)), ("other", ref(7))])
        changed.append(instance(5, [("kind", ref(6))]))      // a copy where A shares
        let a = try write(keyedArchive(Self.person), "a.plist", in: scratch)
        let b = try write(keyedArchive(changed), "b.plist", in: scratch)
        let result = inspect(["diff", a, b])
        #expect(result.text == """
            root.friend: class: Pet -> Cat
            root.name: changed: "Ann" -> "Bob"
            root.other: sharing: A: the object at root.friend; B: a separate object

            """)
        #expect(result.status == ExitStatus.failure)
        let json = inspect(["diff", "--json", a, b])
        #expect(json.text == """
            {"path": "root.friend", "kind": "class", "a": "Pet", "b": "Cat"}
            {"path": "root.name", "kind": "changed", "a": "\\"Ann\\"", "b": "\\"Bob\\""}
            {"path": "root.other", "kind": "sharing", "a": "the object at root.friend", "b": "a separate object"}

            """)
        #expect(json.status == ExitStatus.failure)
    }

    @Test func eachChangeAloneIsTheOnlyLine() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        let a = try write(keyedArchive(Self.person), "a.plist", in: scratch)
        var field = Self.person
        field[0] = instance(2, [("name", ref(3)), ("age", 31), ("friend", ref(4)), ("other", ref(4))])
        var chain = Self.person
        chain[4] = classEntry("Pet", ["Animal"])
        let expectations: [([PlistValue], String)] = [
            (field, "root.age: changed: 30 -> 31\n"),
            (chain, "root.friend: class: Pet < NSObject -> Pet < Animal < NSObject\n"),
        ]
        for (objects, line) in expectations {
            let b = try write(keyedArchive(objects), "b.plist", in: scratch)
            let result = inspect(["diff", a, b])
            #expect(result.text == line)
            #expect(result.status == ExitStatus.failure)
        }
    }

    @Test func objectOrderAndUIDNumberingDoNotMatter() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        // The same graph with the entries in another order and the string written twice (not uniqued).
        let shuffled: [PlistValue] = [
            classEntry("Pet"),
            instance(1, [("kind", ref(6))]),
            classEntry("Person"),
            "Ann",
            instance(3, [("other", ref(2)), ("friend", ref(2)), ("age", 30), ("name", ref(4))]),
            "dog",
        ]
        let a = try write(keyedArchive(Self.person), "a.plist", in: scratch)
        let b = try write(keyedArchive(shuffled, top: ["root": ref(5)], format: .xml), "b.plist", in: scratch)
        let result = inspect(["diff", a, b])
        #expect(result.text == "")
        #expect(result.status == ExitStatus.success)
    }

    @Test func keysAndElementsAddedOrRemovedAreListedInPathOrder() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        let a = try write(KeyedArchiver.archivedData(withRootObject: ["list": [1, 2, 3], "gone": "x"] as [String: Any]),
                          "a.plist", in: scratch)
        let b = try write(KeyedArchiver.archivedData(withRootObject: ["list": [1, 2], "new": true] as [String: Any]),
                          "b.plist", in: scratch)
        let result = inspect(["diff", a, b])
        #expect(result.text == """
            root["gone"]: removed: "x"
            root["list"][2]: removed: 3
            root["new"]: added: true

            """)
        #expect(result.status == ExitStatus.failure)
    }

    @Test func aCycleInOneArchiveOnlyIsACycleDifference() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        // A: root.next is root itself. B: root.next is another Link with no next.
        let a = try write(keyedArchive([instance(2, [("next", ref(1))]), classEntry("Link")]), "a.plist", in: scratch)
        let b = try write(keyedArchive([instance(2, [("next", ref(3))]), classEntry("Link"), instance(2, [])]),
                          "b.plist", in: scratch)
        let result = inspect(["diff", a, b])
        #expect(result.text == "root.next: cycle: A: a cycle back to root; B: a separate object\n")
        #expect(result.status == ExitStatus.failure)
        let same = inspect(["diff", a, a])
        #expect(same.text == "")
        #expect(same.status == ExitStatus.success)
        let circular = fixture("keyed/bpylist2/circular_archive.plist")
        #expect(inspect(["diff", circular, circular]).status == ExitStatus.success)
    }

    @Test func aDeepChainIsComparedWithoutRecursion() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        let a = try write(linkChain(depth: 50_000), "a.plist", in: scratch)
        let b = try write(linkChain(depth: 50_000, changedAt: 49_999), "b.plist", in: scratch)
        let result = inspect(["diff", a, b])
        #expect(result.status == ExitStatus.failure)
        #expect(result.text == "root(.next)*49999.n: changed: 49999 -> -1\n")
        let short = try write(linkChain(depth: 4, changedAt: 3), "short.plist", in: scratch)
        #expect(inspect(["diff", try write(linkChain(depth: 4), "four.plist", in: scratch), short]).text
            == "root.next.next.next.n: changed: 3 -> -1\n")
    }

    @Test func invalidUnreadableAndMissingArguments() throws {
        let scratch = try TemporaryDirectory(prefix: "diff")
        defer { scratch.remove() }
        let good = fixture("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist")
        let bad = try write(Array("not a plist".utf8), "bad.plist", in: scratch)
        let dangling = try write(keyedArchive([instance(2, [("next", ref(9))]), classEntry("Link")]), "dangling.plist", in: scratch)
        let invalid = inspect(["diff", good, bad])
        #expect(invalid.status == ExitStatus.dataError)
        #expect(invalid.stderr.hasPrefix("Error: \(bad): "))
        #expect(invalid.text == "")
        let reference = inspect(["diff", dangling, good])
        #expect(reference.status == ExitStatus.dataError)
        #expect(reference.stderr == "Error: \(dangling): keyed archive: object 1: UID 9 is not below the 3 objects\n")
        let missing = inspect(["diff", good, scratch.url.appendingPathComponent("missing").path])
        #expect(missing.status == ExitStatus.noInput)
        expectUsageError(["diff", good])
    }

    @Test(arguments: [("diff", "USAGE: keyedarchive diff [--json] <a> <b>"),
                      ("audit", "USAGE: keyedarchive audit [--allow <classes>] [--json] <file> ..."),
                      ("graph", "USAGE: keyedarchive graph --format <format> [--output <path>] <file>")])
    func theNewVerbsHaveHelpInTheToolsLayout(verb: String, usage: String) {
        let help = inspect(["help", verb])
        #expect(help.status == ExitStatus.success)
        #expect(help.text.hasPrefix("OVERVIEW: "))
        #expect(help.text.contains("\n\n" + usage + "\n\nARGUMENTS:\n"))
        #expect(help.text.contains("\n\nOPTIONS:\n"))
        #expect(help.text.contains("Exit status"))
        #expect(inspect([verb, "--help"]).text == help.text)
        #expect(inspect(["--help"]).text.contains("\n  \(verb) "))
    }
}
