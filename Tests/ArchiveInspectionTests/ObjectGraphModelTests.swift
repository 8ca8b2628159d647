import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// ``ObjectGraphModel``: one node per object, edges marked tree, shared or back.
@Suite struct ObjectGraphModelTests {
    @Test func everyObjectReachedIsDrawnOnceWithItsKindOfEdge() throws {
        let bytes = try RepositoryFixtures.bytes("inspector/shared-cycle.plist")
        let model = try ObjectGraphModel(archive: bytes)
        let edges = model.rootEdges + model.nodes.flatMap(\.edges)
        #expect(model.nodes.count == 8)
        #expect(edges.filter { $0.kind == .tree }.count == 8)
        #expect(edges.filter { $0.kind == .shared }.count == 3)
        #expect(edges.filter { $0.kind == .back }.count == 4)
        #expect(model.nodes.filter(\.shared).map(\.uid) == [1, 3])
        #expect(model.node(uid: 1)?.parent == -1)
        #expect(model.node(uid: 0) == nil)
    }
}
