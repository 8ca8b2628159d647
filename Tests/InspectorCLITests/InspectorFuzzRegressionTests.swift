import BinaryPlist
import CommandLineSupport
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// Findings of the `diff` and `audit` fuzz targets (Fuzz/README.md), each kept as a test.
@Suite struct InspectorFuzzRegressionTests {
    /// `diff` fuzz target, after 16,637 executions: an object without `$class` whose field held a plist set
    /// (`{"set": []}`) differed from its graph form written back, because the archiver's plist builder wrote
    /// every set as an array. diff was right; the builder now writes sets as sets.
    @Test func aPlistSetInAFieldIsWrittenBackAsASet() throws {
        let crash = try #require(Data(base64Encoded: "YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEICVRyb290gAGjCwwSVSRudWxs0g0ODxFaTlMub2JqZWN0c1YkYWxjc3OhEoABwALSExQVFlokY2xhc3NuYW1lWCRjbGFzc2VzXk5TTXV0YWJsZUFycmF5oxUXGFdOU0FycmF5WE5TT2JqZWN0CBEaJCkyN0lMUVNXXWJtdHZ4en+Kk6KmrgAAAAAAAAEBAAAAAAAAABkAAAAAAAAAAAAAAAAAAAC3"))
        let bytes = [UInt8](crash)
        let again = try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes))
        #expect(try ArchiveGraph(bytes: again).objects[1]["$alcss"] == .set([]))
        let scratch = try TemporaryDirectory(prefix: "diff-fuzz")
        defer { scratch.remove() }
        let result = inspect(["diff", try write(bytes, "a.plist", in: scratch), try write(again, "b.plist", in: scratch)])
        #expect(result.text == "")
        #expect(result.status == ExitStatus.success)
    }
}
