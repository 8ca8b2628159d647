import BinaryPlist
import CommandLineSupport
import Foundation
import KeyedArchive
import ArchiveInspection
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

    /// `diff` fuzz target, after 447,775 executions: a real NaN with a payload (`0x7FF0010000000000`) differed from
    /// its graph form written back (plist-JSON writes every NaN as "nan", read back as the default NaN). A NaN's
    /// payload means nothing: diff now takes every NaN as the same value; a NaN against a number still differs.
    @Test func everyNaNIsTheSameValueToDiff() throws {
        let crash = try #require(Data(base64Encoded: "YnBsaXN0MDDUAQIDBAUGByBYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctwICQoLDA0ODxAREhMUFRYXGBkaGxUdHh1SJDZTJDEwUiQyUiQwUiQzUyQxMVIkOFIkNFIkOVJsMFIkNVIkMYAGgAmAAoAHgAOACoAIgASACYABgAWAAashIiMkJSYjKCkqK1UkbnVsbBABI3/wAQAAAAAAIz/4AAAAAAAATxAQYXNkZmFzZGZhZHNmYWRzZgldSGVsbG8sIFdvcmxkIV1IZWxsbywgV29ybGQhXUhlbGxvLCBXb3JsZCEIECoACAARABoAJAApADIANwBJAGIAZQBpAGwAbwByAHYAeQB8AH8AggCFAIgAigCMAI4AkACSAJQAlgCYAJoAnACeAKAArACyALQAvQDGANkA2gDoAPYBBAEFAAAAAAAAAgEAAAAAAAAALAAAAAAAAAAAAAAAAAAAAQc="))
        let bytes = [UInt8](crash)
        let scratch = try TemporaryDirectory(prefix: "diff-fuzz")
        defer { scratch.remove() }
        let again = try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes))
        let result = inspect(["diff", try write(bytes, "a.plist", in: scratch), try write(again, "b.plist", in: scratch)])
        #expect(result.text == "")
        #expect(result.status == ExitStatus.success)

        let payload = Double(bitPattern: 0x7FF0_0100_0000_0000)
        let nan = try write(keyedArchive([instance(2, [("x", .real(payload))]), classEntry("Box")]), "nan.plist", in: scratch)
        let otherNaN = try write(keyedArchive([instance(2, [("x", .real(.nan))]), classEntry("Box")]), "nan2.plist", in: scratch)
        let one = try write(keyedArchive([instance(2, [("x", .real(1))]), classEntry("Box")]), "one.plist", in: scratch)
        #expect(inspect(["diff", nan, otherNaN]).status == ExitStatus.success)
        let changed = inspect(["diff", nan, one])
        #expect(changed.text == "root.x: changed: {\"real\": \"nan\"} -> {\"real\": 1.0}\n")
        #expect(changed.status == ExitStatus.failure)
    }
}
