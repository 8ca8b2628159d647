import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// ``ArchiveAudit``: what decoding would instantiate, found without decoding, from a program.
@Suite struct ArchiveAuditTests {
    @Test func sharedObjectsCyclesAndASelectorAreFound() throws {
        let audit = try ArchiveAudit.audit(RepositoryFixtures.bytes("inspector/shared-cycle.plist"))
        #expect(audit.archiver == "NSKeyedArchiver")
        #expect(audit.maxDepth == 4)
        #expect(audit.deepestPath == "root.nodes[0].style")
        #expect(audit.largestCollections.map(\.size) == [4])
        #expect(audit.largestCollections.map(\.path) == ["root.nodes"])
        #expect(audit.largestCollections.map(\.what) == ["NSMutableArray"])
        #expect(audit.sharedObjects == 2)
        #expect(audit.sharedReferences == 7)
        #expect(audit.mostShared.map { "\($0.size) \($0.path) \($0.what)" } == ["5 root Graph", "4 root.nodes[0].style Style"])
        #expect(audit.cycles == 4)
        #expect(audit.cycleExamples.map(\.path) == (0..<4).map { "root.nodes[\($0)].owner" })
        #expect(audit.cycleExamples.map(\.what) == Array(repeating: "root", count: 4))
        #expect(audit.notes.map(\.kind) == ["selector"])
        #expect(audit.notes.map(\.path) == ["root.sort"])
        #expect(audit.notes.map(\.text) == ["NSSortDescriptor compares with selector compare:"])
    }

    @Test func nestedArchivesAreAuditedAndTheirClassesCountAgainstTheAllowList() throws {
        let audit = try ArchiveAudit.audit(RepositoryFixtures.bytes("inspector/nested-archive.plist"))
        #expect(audit.objectCount == 9)
        #expect(audit.reached == 5)
        #expect(audit.classes.map(\.name) == ["Envelope", "NSArray", "NSData"])
        #expect(audit.nested.map(\.path) == ["root.items[0].NS.data", "root.payload"])
        #expect(audit.disallowed(by: ["Envelope", "NSArray", "NSData"])
            == ["NSComparisonPredicate", "NSURL", "Secret", "Wrapper"])
    }

    @Test func aMalformedArchiveIsAKeyedArchiveErrorSayingWhere() throws {
        // $objects: $null, an NSView whose window is UID 9, its class.
        let view: PlistDictionary = ["$class": .uid(PlistUID(2)), "window": .uid(PlistUID(9))]
        let viewClass: PlistDictionary = ["$classname": "NSView", "$classes": ["NSView", "NSObject"]]
        let bytes = try ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: ["$null", .dictionary(view), .dictionary(viewClass)])
            .encoded()
        let error = #expect(throws: KeyedArchiveError.self) { try ArchiveAudit.audit(bytes) }
        #expect(error?.code == .invalidReference)
        #expect(error?.description == "keyed archive: object 1: UID 9 is not below the 3 objects")
    }
}
