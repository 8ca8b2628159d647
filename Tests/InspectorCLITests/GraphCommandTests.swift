import BinaryPlist
import CommandLineSupport
import Foundation
@testable import InspectorCLI
import KeyedArchive
import Testing
import TestSupport

/// Where Graphviz's `dot` is, when installed (`apt-get install -y graphviz`).
let graphvizDot: String? = ["/usr/bin/dot", "/usr/local/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// Whether the tools a test needs must be present: `CI_REQUIRE_TOOLS=1`, which `.ci/run` sets after
/// `Scripts/ci-install.sh` installed them. Then a missing tool fails the test instead of skipping it.
let toolsRequired = ProcessInfo.processInfo.environment["CI_REQUIRE_TOOLS"] == "1"

/// `keyedarchive graph`: the object graph as Graphviz DOT or a self-contained HTML page.
@Suite struct GraphCommandTests {
    @Test func dotMarksSharedObjectsSharedEdgesAndBackEdges() {
        let result = inspect(["graph", "--format", "dot", fixture("inspector/shared-cycle.plist")])
        #expect(result.status == ExitStatus.success)
        #expect(result.text == """
            digraph archive {
              graph [rankdir=LR, fontname="Helvetica"];
              node [shape=box, fontname="Helvetica", fontsize=10];
              edge [fontname="Helvetica", fontsize=9];
              top [shape=plaintext, label="$top\\n"];
              o1 [label="Graph #1\\n", peripheries=2];
              o14 [label="NSMutableArray #14\\n"];
              o5 [label="Node #5\\n.n = 0\\l"];
              o3 [label="Style #3\\n.color = \\"red\\"\\l", peripheries=2];
              o7 [label="Node #7\\n.n = 1\\l"];
              o8 [label="Node #8\\n.n = 2\\l"];
              o9 [label="Node #9\\n.n = 3\\l"];
              o12 [label="NSSortDescriptor #12\\n.NSAscending = true\\l.NSKey = \\"n\\"\\l.NSSelector = \\"compare:\\"\\l"];
              top -> o1 [label="root"];
              o1 -> o14 [label=".nodes"];
              o1 -> o12 [label=".sort"];
              o14 -> o5 [label="[0]"];
              o14 -> o7 [label="[1]"];
              o14 -> o8 [label="[2]"];
              o14 -> o9 [label="[3]"];
              o5 -> o1 [label=".owner", style=bold, color=red, fontcolor=red, constraint=false];
              o5 -> o3 [label=".style"];
              o7 -> o1 [label=".owner", style=bold, color=red, fontcolor=red, constraint=false];
              o7 -> o3 [label=".style", style=dashed, color=blue, fontcolor=blue];
              o8 -> o1 [label=".owner", style=bold, color=red, fontcolor=red, constraint=false];
              o8 -> o3 [label=".style", style=dashed, color=blue, fontcolor=blue];
              o9 -> o1 [label=".owner", style=bold, color=red, fontcolor=red, constraint=false];
              o9 -> o3 [label=".style", style=dashed, color=blue, fontcolor=blue];
            }

            """)
    }

    @Test func dotEscapesQuotesBackslashesAndLineBreaksInValues() throws {
        let scratch = try TemporaryDirectory(prefix: "graph")
        defer { scratch.remove() }
        let file = try write(keyedArchive([instance(2, [("text", ref(3))]), classEntry("Note"), "say \"hi\"\\\n];"]),
                             "a.plist", in: scratch)
        let result = inspect(["graph", "--format", "dot", file])
        #expect(result.status == ExitStatus.success)
        #expect(result.text.contains(#"  o1 [label="Note #1\n.text = \"say \\\"hi\\\"\\\\\\n];\"\l"];"# + "\n"))
    }

    /// Graphviz reads what `graph --format dot` writes. Skipped, and said so, when Graphviz is not installed,
    /// except under `CI_REQUIRE_TOOLS=1` (`.ci/run`), where a missing Graphviz is a failure.
    @Test(.enabled(if: graphvizDot != nil || toolsRequired,
                   "Graphviz is not installed (apt-get install -y graphviz; CI_REQUIRE_TOOLS=1 makes this a failure)"),
          arguments: ["inspector/shared-cycle.plist", "inspector/nested-archive.plist", "keyed/bpylist2/circular_archive.plist",
                      "keyed/HexFiend-nib/JumpToOffsetBanner.keyedobjects.nib", "keyed/kiler129-NSKeyedUnarchiver/xml/nested.xml.plist"])
    func graphvizRendersTheDOT(file: String) throws {
        guard let dot = graphvizDot else {
            Issue.record("CI_REQUIRE_TOOLS=1 but Graphviz's dot is not installed (Scripts/ci-install.sh installs it)")
            return
        }
        let scratch = try TemporaryDirectory(prefix: "graph")
        defer { scratch.remove() }
        let result = inspect(["graph", "--format", "dot", fixture(file), "--output", scratch.file("g.dot")])
        #expect(result.status == ExitStatus.success)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-Tsvg", scratch.file("g.dot"), "-o", scratch.file("g.svg")]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let messages = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(messages == "")
        let svg = String(decoding: try scratch.read("g.svg"), as: UTF8.self)
        #expect(svg.contains("<svg"))
        #expect(svg.contains("<title>o1</title>"))
    }

    @Test func htmlIsOnePageWithNothingToLoad() {
        let result = inspect(["graph", "--format", "html", fixture("keyed/Flycut-nib/MainMenu.keyedobjects.nib")])
        #expect(result.status == ExitStatus.success)
        let page = result.text
        #expect(page.hasPrefix("<!DOCTYPE html>\n"))
        #expect(page.hasSuffix("</html>\n"))
        #expect(page.contains(#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; "#))
        for outside in ["<script src", "<link", "<img", "<iframe", "http://", "https://", "@import", "url("] {
            #expect(!page.contains(outside), "the page holds \(outside)")
        }
        #expect(page.contains(#"<script type="application/json" id="graph">{"archiver": "NSKeyedArchiver", "rootScalars": [["IB.systemFontUpdateVersion", "1"]], "rootEdges": [["IB.objectdata", 1, "tree"]], "nodes": [{"uid": 1, "title": "NSIBObjectData""#))
        #expect(page.contains("function selftest()"))
        #expect(page.contains(#"<title>MainMenu.keyedobjects.nib - keyed archive graph</title>"#))
    }

    @Test func htmlKeepsArchiveTextOutOfTheMarkup() throws {
        let scratch = try TemporaryDirectory(prefix: "graph")
        defer { scratch.remove() }
        let hostile = "</script><script>alert(1)</script><!--"
        let file = try write(keyedArchive([instance(2, [("text", ref(3))]), classEntry("</title><b>"), .string(hostile)]),
                             "<b>.plist", in: scratch)
        let result = inspect(["graph", "--format", "html", file])
        #expect(result.status == ExitStatus.success)
        #expect(!result.text.contains("alert(1)</script>"))
        #expect(result.text.contains(#"<\/script><script>alert(1)<\/script><!--"#))
        #expect(result.text.contains("<title>&lt;b&gt;.plist - keyed archive graph</title>"))
        #expect(result.text.contains(#""title": "<\/title><b>""#))
    }

    @Test func outputFileUsageAndInvalidInput() throws {
        let scratch = try TemporaryDirectory(prefix: "graph")
        defer { scratch.remove() }
        let written = inspect(["graph", "--format", "html", "-o", scratch.file("g.html"), fixture("inspector/deep-chain.plist")])
        #expect(written.status == ExitStatus.success)
        #expect(written.text == "")
        #expect(String(decoding: try scratch.read("g.html"), as: UTF8.self).contains(#""uid": 601, "title": "Link""#))
        expectUsageError(["graph", fixture("inspector/deep-chain.plist")])
        expectUsageError(["graph", "--format", "svg", fixture("inspector/deep-chain.plist")])
        let bad = try write(Array("bplist00".utf8), "bad.plist", in: scratch)
        let invalid = inspect(["graph", "--format", "dot", bad])
        #expect(invalid.status == ExitStatus.dataError)
        #expect(invalid.stderr.hasPrefix("Error: \(bad): "))
        let cannot = inspect(["graph", "--format", "dot", "-o", scratch.file("none/g.dot"), fixture("inspector/deep-chain.plist")])
        #expect(cannot.status == ExitStatus.cannotCreate)
    }
}
