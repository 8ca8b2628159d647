import TestSupport
import BinaryPlist
import Foundation
import KeyedArchive
@testable import ArchiveInspection
import Testing

/// archive-JSON's tree form within its budget: the objects to print are counted before anything
/// is rendered, exactly as the renderer counts them, the text is streamed in chunks, and a failure prints
/// nothing.
@Suite("archive-JSON tree form budget")
struct TreeFormBudgetTests {
    static let nib = "keyed/Flycut-nib/MainMenu.keyedobjects.nib"

    /// What the renderer pays from its budget for the whole document.
    func renderedObjects(_ graph: ArchiveGraph) throws -> Int {
        let limit = Int.max - 1
        var renderer = ArchiveJSONRenderer(graph: graph, budget: limit, out: .discarding(pretty: false))
        try renderer.document()
        return limit - renderer.budget
    }

    @Test(arguments: KeyedFixtures.appleArchives.filter { $0 != nib })
    func countingBeforeRenderingFindsWhatTheRendererPrints(_ path: String) throws {
        let graph = try ArchiveGraph(bytes: KeyedFixtures.bytes(path))
        let shape = TreeFormShape(graph, maxDepth: ArchiveJSONRenderer.maxDepth)
        let printed = try renderedObjects(graph)
        #expect(shape.measure(limit: Int.max - 1) == .fits(printed))
        #expect(shape.measure(limit: printed) == .fits(printed))
        #expect(printed == 0 || shape.measure(limit: printed - 1) == .exceeds)
        #expect(shape.lowerBound(cap: Int.max - 1) <= printed)
    }

    @Test func aHeavilySharedNibIsRefusedAtOnceWhateverTheLimitUpToItsBound() throws {
        let graph = try ArchiveGraph(bytes: KeyedFixtures.bytes(Self.nib))
        let shape = TreeFormShape(graph, maxDepth: ArchiveJSONRenderer.maxDepth)
        let bound = shape.lowerBound(cap: Int.max - 1)
        #expect(bound > 10_000_000)
        for limit in [ArchiveJSON.defaultMaxObjects(for: graph), 10_000_000] {
            var chunks = 0
            let seconds = Stopwatch.seconds {
                expectKeyedError(.elementLimitExceeded) {
                    try ArchiveJSON.write(graph, pretty: false, maxObjects: limit) { _ in chunks += 1 }
                }
            }
            #expect(chunks == 0)
            #expect(seconds < 2, "limit \(limit)")
        }
    }

    @Test func pastTheBoundTheCountStopsAtTheLimitWithoutPrinting() throws {
        // 20 nodes each referring twice to the next: 2^20 - 1 objects to print, from 22 objects.
        let graph = try ArchiveGraph(bytes: DiamondChain.bytes(length: 20))
        let shape = TreeFormShape(graph, maxDepth: ArchiveJSONRenderer.maxDepth)
        #expect(shape.measure(limit: Int.max - 1) == .fits((1 << 20) - 1))
        #expect(shape.measure(limit: 1_000) == .exceeds)
        var chunks = 0
        let error = expectKeyedError(.elementLimitExceeded) {
            try ArchiveJSON.write(graph, pretty: false, maxObjects: (1 << 20) - 2) { _ in chunks += 1 }
        }
        #expect(chunks == 0)
        #expect(error?.reason == "more than 1048574 objects to print (shared references print in full at each use)")
    }

    @Test func longOutputIsStreamedInChunks() throws {
        let graph = try ArchiveGraph(bytes: DiamondChain.bytes(length: 14))
        var chunks: [Int] = []
        var text: [UInt8] = []
        try ArchiveJSON.write(graph, pretty: false, maxObjects: 1 << 14) { chunk in
            chunks.append(chunk.count)
            text += chunk
        }
        #expect(chunks.count > 8)
        #expect(chunks.allSatisfy { $0 < JSONOutput.chunkSize + 4_096 })
        #expect(String(decoding: text, as: UTF8.self) == (try ArchiveJSON.render(graph, maxObjects: 1 << 14)))
        #expect(text.count > 8 * JSONOutput.chunkSize)
    }

    @Test func aMalformedObjectDeepInsidePrintsNothing() throws {
        // The root's list is fine; its last element is a dictionary whose NS.keys and NS.objects differ in length.
        let objects: [PlistValue] = [
            "$null",
            .dictionary(["NS.objects": [.uid(PlistUID(2)), .uid(PlistUID(3))], "$class": .uid(PlistUID(4))]),
            "first",
            .dictionary(["NS.keys": [.uid(PlistUID(2))], "NS.objects": [], "$class": .uid(PlistUID(5))]),
            HostileArchive.classEntry("NSArray"),
            HostileArchive.classEntry("NSDictionary"),
        ]
        let graph = ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: objects)
        #expect(TreeFormShape(graph, maxDepth: 512).measure(limit: 100) == .fails)
        var chunks = 0
        let error = expectKeyedError(.invalidValue) { try ArchiveJSON.write(graph, pretty: false) { _ in chunks += 1 } }
        #expect(chunks == 0)
        #expect(error?.objectIndex == 3)
    }

    @Test func nestingPastTheDepthLimitPrintsNothing() throws {
        var objects: [PlistValue] = ["$null"]
        for i in 1...600 { objects.append(.dictionary(["next": .uid(PlistUID(UInt64(i + 1 <= 600 ? i + 1 : 0))), "$class": .uid(PlistUID(601))])) }
        objects.append(HostileArchive.classEntry("Link"))
        let graph = ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: objects)
        #expect(TreeFormShape(graph, maxDepth: 512).measure(limit: 100_000) == .fails)
        var chunks = 0
        expectKeyedError(.depthLimitExceeded) { try ArchiveJSON.write(graph, pretty: false) { _ in chunks += 1 } }
        #expect(chunks == 0)
    }
}
