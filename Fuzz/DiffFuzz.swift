// libFuzzer entry for `keyedarchive diff` (ArchiveDiff): the input split at "|||" into archives A and B
// (no separator: A is the input and B its graph form encoded again). Checks: no trap; every error is a
// ArchiveDiffError; a readable archive has no differences with itself, nor with its graph form written back by
// `keyedarchive encode`; A against B and B against A report as many differences, with added and removed
// swapped. Compiled by Fuzz/run.sh with the InspectorCLI sources as one module (internals reachable), against
// BinaryPlist, KeyedArchive, CommandLineSupport and ArchiveStore built as instrumented libraries.
import BinaryPlist
import KeyedArchive
import ArchiveInspection

func diffFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

/// The differences of `a` against `b`, or nil when one is not a keyed archive.
func differences(_ a: [UInt8], _ b: [UInt8], _ what: String) -> [ArchiveDifference]? {
    var found: [ArchiveDifference] = []
    do {
        try ArchiveDiff.differences(between: a, and: b) { found.append($0) }
        return found
    } catch is ArchiveDiffError {
        return nil
    } catch {
        diffFinding("\(what) threw \(type(of: error)): \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    let separator: [UInt8] = Array("|||".utf8)
    var a = input
    var b: [UInt8]?
    if let at = input.indices.first(where: { input[$0...].starts(with: separator) }) {
        a = Array(input[..<at])
        b = Array(input[(at + separator.count)...])
    }
    if let same = differences(a, a, "A against A"), !same.isEmpty {
        diffFinding("an archive differs from itself: \(same[0])")
    }
    guard let b else {
        // The graph form written back keeps the graph.
        guard let graph = try? ArchiveJSON.renderGraph(a), let again = try? ArchiveJSON.encode(graph) else { return 0 }
        if let found = differences(a, again, "A against its graph form"), !found.isEmpty {
            diffFinding("an archive differs from its graph form written back: \(found[0])")
        }
        return 0
    }
    let forward = differences(a, b, "A against B")
    let backward = differences(b, a, "B against A")
    if let forward, let backward {
        let added = forward.filter { $0.kind == .added }.count, removed = forward.filter { $0.kind == .removed }.count
        guard forward.count == backward.count, added == backward.filter({ $0.kind == .removed }).count,
              removed == backward.filter({ $0.kind == .added }).count else {
            diffFinding("A against B gives \(forward.count) differences, B against A \(backward.count)")
        }
    } else if (forward == nil) != (backward == nil) {
        diffFinding("A against B and B against A disagree on whether both are archives")
    }
    return 0
}
