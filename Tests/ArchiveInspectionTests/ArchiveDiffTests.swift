import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// ``ArchiveDiff``: two archives' graphs compared by meaning, from a program.
@Suite struct ArchiveDiffTests {
    private func differences(_ a: [UInt8], _ b: [UInt8]) throws -> [ArchiveDifference] {
        var found: [ArchiveDifference] = []
        try ArchiveDiff.differences(between: a, and: b) { found.append($0) }
        return found
    }

    @Test func oneChangedFieldOfASharedObjectIsOneDifferenceAtItsFirstPath() throws {
        let a = try SharedWindowArchive.bytes(views: 20, windowFields: 10)
        let b = try SharedWindowArchive.bytes(views: 20, windowFields: 10, changedField: 7, format: .xml)
        let found = try differences(a, b)
        #expect(found == [ArchiveDifference(path: "root[0].window.f7", kind: .changed, a: "7", b: "-7")])
        #expect(found.map(\.description) == ["root[0].window.f7: changed: 7 -> -7"])
        #expect(try differences(a, a) == [])
    }

    @Test func addedRemovedAndSharingReadAsOneLineEach() {
        #expect(ArchiveDifference(path: "root.x", kind: .added, a: nil, b: "3").description == "root.x: added: 3")
        #expect(ArchiveDifference(path: "root.x", kind: .removed, a: "3", b: nil).description == "root.x: removed: 3")
        #expect(ArchiveDifference(path: "root.y", kind: .sharing, a: "the object at root.x", b: "a separate object")
            .description == "root.y: sharing: A: the object at root.x; B: a separate object")
        #expect(ArchiveDifference(path: "root", kind: .class, a: "<A>", b: "<B>").description == "root: class: <A> -> <B>")
    }

    @Test func anUnreadableArchiveIsNamedByItsSide() throws {
        let good = try SharedWindowArchive.bytes(views: 1, windowFields: 1)
        let bad = Array("bplist00".utf8)
        let second = #expect(throws: ArchiveDiffError.self) { try differences(good, bad) }
        #expect(second?.side == .b)
        #expect(second?.code == .invalidPlist)
        #expect(second?.description.hasPrefix("B: keyed archive: ") == true)
        let first = #expect(throws: ArchiveDiffError.self) { try differences(bad, good) }
        #expect(first?.side == .a)
        #expect(first?.code == .invalidPlist)
    }
}
