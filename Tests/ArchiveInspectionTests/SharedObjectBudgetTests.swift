import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// The walks of audit, diff and graph charge their value budget once per object: an object that hundreds of
/// others refer to (a nib's window) is read once, however often it is met. Only a plist that shares
/// collections between entries still runs out, and the error says so.
@Suite struct SharedObjectBudgetTests {
    /// 600 views share one window of 300 fields (603 values): read at each reference, 361,797 values against
    /// a budget of 65,536 (the archive is about 16 KB); read once, about 5,000.
    static let views = 600
    static let windowFields = 300

    @Test func theArchiveIsSmallAndItsWindowLarge() throws {
        let bytes = try SharedWindowArchive.bytes(views: Self.views, windowFields: Self.windowFields)
        #expect(bytes.count < 65_536)
        #expect((Self.views - 1) * (1 + 2 * (Self.windowFields + 1)) > 65_536)
    }

    @Test(arguments: PlistFormat.allCases)
    func aWindowSharedBySixHundredViewsIsAudited(format: PlistFormat) throws {
        let audit = try ArchiveAudit.audit(SharedWindowArchive.bytes(views: Self.views, windowFields: Self.windowFields, format: format))
        #expect(audit.objectCount == 606)
        #expect(audit.reached == 602)
        #expect(audit.classes.map { "\($0.count) \($0.name)" } == ["600 NSView", "1 NSArray", "1 NSWindow"])
        #expect(audit.sharedObjects == 1)
        #expect(audit.sharedReferences == 599)
        #expect(audit.mostShared.map { "\($0.size) \($0.path) \($0.what)" } == ["600 root[0].window NSWindow"])
        #expect(audit.maxDepth == 3)
        #expect(audit.deepestPath == "root[0].window")
        #expect(audit.cycles == 0)
    }

    @Test func aWindowSharedBySixHundredViewsIsDiffed() throws {
        let a = try SharedWindowArchive.bytes(views: Self.views, windowFields: Self.windowFields)
        let b = try SharedWindowArchive.bytes(views: Self.views, windowFields: Self.windowFields, changedField: 299)
        var found: [String] = []
        try ArchiveDiff.differences(between: a, and: b) { found.append($0.description) }
        #expect(found == ["root[0].window.f299: changed: 299 -> -299"])
        var none = 0
        try ArchiveDiff.differences(between: a, and: a) { _ in none += 1 }
        #expect(none == 0)
    }

    @Test func aWindowSharedBySixHundredViewsIsGraphed() throws {
        let model = try ObjectGraphModel(archive: SharedWindowArchive.bytes(views: Self.views, windowFields: Self.windowFields))
        let edges = model.rootEdges + model.nodes.flatMap(\.edges)
        #expect(model.nodes.count == 602)
        #expect(edges.filter { $0.kind == .tree }.count == 602)
        #expect(edges.filter { $0.kind == .shared }.count == 599)
        #expect(model.nodes.filter(\.shared).map(\.uid) == [2])
        #expect(model.node(uid: 2)?.scalars.count == Self.windowFields)
    }

    @Test func entriesSharingOnePlistCollectionStillRunOutAndSaySo() throws {
        // $objects[1] lists entries 2...200, which are all one plist array of 2,000 integers: 400,000 values
        // read once each, from a file of about 6 KB.
        let bytes = SharedCollectionArchive.bytes(entries: 199, sharedCount: 2_000, listed: true)
        #expect(bytes.count < 7_000)
        let reason = "the $objects entries read so far hold more than 65536 plist values, more than the archive's "
            + "\(bytes.count) bytes hold unless its plist shares collections between entries (no archiver writes that)"
        for walk in [{ _ = try ArchiveAudit.audit(bytes) }, { _ = try ObjectGraphModel(archive: bytes) }] as [() throws -> Void] {
            let error = #expect(throws: KeyedArchiveError.self) { try walk() }
            #expect(error?.code == .elementLimitExceeded)
            #expect(error?.objectIndex == 34)
            #expect(error?.reason == reason)
        }
        let diff = #expect(throws: ArchiveDiffError.self) { try ArchiveDiff.differences(between: bytes, and: bytes) { _ in } }
        #expect(diff?.code == .elementLimitExceeded)
        #expect(diff?.underlying.reason == reason)
    }
}
