import BinaryPlist
import CommandLineSupport
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// `keyedarchive audit`: what decoding would instantiate, found without decoding.
@Suite struct AuditCommandTests {
    @Test func nestedArchivesAreFoundAndAuditedUnderTheirPath() {
        let result = inspect(["audit", fixture("inspector/nested-archive.plist")])
        #expect(result.status == ExitStatus.success)
        #expect(result.stderr == "")
        #expect(result.text.hasPrefix("""
            file: \(fixture("inspector/nested-archive.plist"))
            archiver: NSKeyedArchiver
            version: 100000
            objects: 9 entries, 5 reached from $top
            classes: 3
              1 Envelope (Envelope < NSObject)
              1 NSArray (NSArray < NSObject)
              1 NSData (NSData < NSObject)
            max depth: 3 at root.items[0]
            largest collections: 1
              2 elements at root.items (NSArray)

            """))
        #expect(result.text.contains("""
            nested archives: 2
              at root.items[0].NS.data:
                archiver: NSKeyedArchiver
            """))
        // Three levels: the payload's archive holds another one at root.blob.
        #expect(result.text.contains("""
                nested archives: 1
                  at root.blob:
                    archiver: NSKeyedArchiver
            """))
        #expect(result.text.contains("""
                notes: 1
                  predicate: root.filter: NSComparisonPredicate (NSComparisonPredicate < NSPredicate < NSObject): \
            predicates and expressions run code when evaluated; secure decoding leaves them disabled until allowEvaluation()
            """))
        #expect(result.text.contains("      file-url: root.location: file URL \"file:///etc/passwd\"\n"))
        #expect(!result.text.contains("at root.note:"))  // a string is not an archive
        #expect(result.text.hasSuffix("notes: 0\n"))
    }

    @Test func anAllowListCoversNestedArchivesToo() {
        let file = fixture("inspector/nested-archive.plist")
        let refused = inspect(["audit", "--allow", "Envelope,NSArray,NSData", file])
        #expect(refused.status == ExitStatus.failure)
        #expect(refused.text.hasSuffix("not allowed: NSComparisonPredicate, NSURL, Secret, Wrapper\n"))
        let allowed = inspect(["audit", "--allow", "Envelope, NSArray,NSData", "--allow", "NSComparisonPredicate,NSURL",
                               "--allow", "Secret,Wrapper", file])
        #expect(allowed.status == ExitStatus.success)
        #expect(!allowed.text.contains("not allowed"))
        let json = inspect(["audit", "--json", "--allow", "Envelope", file])
        #expect(json.status == ExitStatus.failure)
        #expect(json.text.hasSuffix(#""notAllowed": ["NSArray", "NSComparisonPredicate", "NSData", "NSURL", "Secret", "Wrapper"]}"# + "\n"))
    }

    @Test func sharedObjectsCyclesAndSortDescriptorSelectorsAreReported() {
        let result = inspect(["audit", fixture("inspector/shared-cycle.plist")])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.contains("""
            max depth: 4 at root.nodes[0].style
            largest collections: 1
              4 elements at root.nodes (NSMutableArray)
            shared objects: 2 (7 more references)
              5 references to root (Graph)
              4 references to root.nodes[0].style (Style)
            cycles: 4
              root.nodes[0].owner -> root
              root.nodes[1].owner -> root
              root.nodes[2].owner -> root
              root.nodes[3].owner -> root

            """))
        #expect(result.text.hasSuffix("notes: 1\n  selector: root.sort: NSSortDescriptor compares with selector compare:\n"))
    }

    @Test(arguments: ["keyed/bpylist2/circular_archive.plist", "keyed/michaelwright235-nskeyedunarchiver/circularReference.plist"])
    func cyclicFixturesReportTheirCycle(file: String) {
        let result = inspect(["audit", fixture(file)])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.contains("cycles: 1\n  root"))
        #expect(result.text.contains(" -> root\n"))
    }

    @Test func aDeepChainIsWalkedWithoutRecursionAndItsPathFolded() throws {
        let result = inspect(["audit", fixture("inspector/deep-chain.plist")])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.contains("classes: 1\n  600 Link (Link < NSObject)\nmax depth: 600 at root(.next)*599\n"))
        let scratch = try TemporaryDirectory(prefix: "audit")
        defer { scratch.remove() }
        let deeper = inspect(["audit", "--json", try write(linkChain(depth: 100_000), "deep.plist", in: scratch)])
        #expect(deeper.status == ExitStatus.success)
        #expect(deeper.text.contains(#""maxDepth": 100000, "deepestPath": "root(.next)*99999""#))
    }

    @Test func urlsArchiversAndUnusedOrMismatchedClassesAreNoted() throws {
        let scratch = try TemporaryDirectory(prefix: "audit")
        defer { scratch.remove() }
        // An object of a class whose $classes chain names another class first, and a class no object uses.
        let mismatched: PlistValue = .dictionary(["$classname": "Evil", "$classes": ["NSArray", "NSObject"]])
        let file = try write(keyedArchive([instance(2, [("x", 1)]), mismatched, classEntry("Unused")]), "a.plist", in: scratch)
        let result = inspect(["audit", file])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.hasSuffix("""
            notes: 2
              class-chain: class description 2 names "Evil", but its $classes chain is NSArray < NSObject
              unused-class: class "Unused" (object 3) is named, but no object reached from $top is of it

            """))
        let url = inspect(["audit", fixture("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist")])
        #expect(url.text.hasSuffix("notes: 1\n  url: root[\"copyOne\"]: URL \"https://example.com/foo/bar?a=b#hash\"\n"))
    }

    @Test(arguments: appleArchives)
    func everyAppleFixtureAuditsInBothForms(file: String) {
        let text = inspect(["audit", fixture(file)])
        #expect(text.status == ExitStatus.success)
        #expect(text.stderr == "")
        let json = inspect(["audit", "--json", fixture(file)])
        #expect(json.status == ExitStatus.success)
        #expect(json.text.hasPrefix(#"{"file": ""#))
        #expect(json.text.filter { $0 == "\n" }.count == 1)
    }

    @Test func theFlycutNibIsAuditedWithItsSharing() {
        let result = inspect(["audit", fixture("keyed/Flycut-nib/MainMenu.keyedobjects.nib")])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.contains("objects: 1077 entries, 1004 reached from $top\nclasses: 53\n  99 NSLayoutConstraint "))
        #expect(result.text.contains("\nshared objects: "))
        #expect(!result.text.contains("\nshared objects: 0 "))
    }

    @Test func invalidAndUnreadableFilesAreReportedAndTheOthersStillAudited() throws {
        let scratch = try TemporaryDirectory(prefix: "audit")
        defer { scratch.remove() }
        let bad = try write(keyedArchive([instance(9, [])]), "bad.plist", in: scratch)
        let good = fixture("inspector/shared-cycle.plist")
        let result = inspect(["audit", bad, good])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stderr == "Error: \(bad): keyed archive: object 1 at root: $class is UID 9, not a class description below the 2 objects\n")
        #expect(result.text.hasPrefix("file: \(good)\n"))
        let missing = inspect(["audit", scratch.file("missing"), bad, good])
        #expect(missing.status == ExitStatus.noInput)
        #expect(missing.stderr.hasPrefix("Error: \(scratch.file("missing")): cannot open: "))
        expectUsageError(["audit"])
    }
}
