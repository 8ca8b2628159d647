import CommandLineSupport
import Testing
import TestSupport

/// Every verb that reads a keyed archive reads one whose window 600 views share (as a large nib's), however
/// often the window is met: the walks charge their value budget once per object.
@Suite struct SharedObjectVerbTests {
    @Test func everyVerbReadsAWindowThatSixHundredViewsShare() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let file = try write(SharedWindowArchive.bytes(views: 600, windowFields: 300), "views.plist", in: scratch)
        let changed = try write(SharedWindowArchive.bytes(views: 600, windowFields: 300, changedField: 5), "changed.plist",
                                in: scratch)
        for verb in [["audit"], ["graph", "--format", "dot"], ["graph", "--format", "html"], ["dump"], ["lint"],
                     ["decode", "--graph"]] {
            let result = inspect(verb + [file])
            #expect(result.status == ExitStatus.success, "\(verb)")
            #expect(result.stderr == "", "\(verb)")
        }
        #expect(inspect(["audit", file]).text.contains("\nshared objects: 1 (599 more references)\n  600 references to root[0].window (NSWindow)\n"))
        let diff = inspect(["diff", file, changed])
        #expect(diff.status == ExitStatus.failure)
        #expect(diff.stderr == "")
        #expect(diff.text == "root[0].window.f5: changed: 5 -> -5\n")
    }
}
