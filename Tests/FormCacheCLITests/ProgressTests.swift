import ArchivePlatform
import CommandLineSupport
import Foundation
import Testing
import TestSupport
@testable import FormCacheCLI

/// `formcache export`, `import` and `purge` draw their progress on a terminal only.
@Suite("formcache progress on a terminal")
struct FormCacheProgressTests {
    /// Runs `formcache` in-process with stderr on `descriptor`, told whether it is a terminal.
    func run(_ harness: Harness, _ arguments: [String], stderr descriptor: Int32) -> (status: Int32, stdout: String) {
        let out = OutputCapture()
        var io = CommandIO(stdout: out.sink, stderr: .fileDescriptor(FileDescriptor(rawValue: descriptor)))
        io.stderrIsTerminal = Terminal.isTerminal(FileDescriptor(rawValue: descriptor))
        let status = FormCacheTool.run(arguments: arguments, environment: harness.environment, io: io, clock: harness.clock)
        return (status, out.text)
    }

    @Test func exportImportAndPurgeCountRecordsOnATerminalAndNothingWithQuiet() throws {
        let source = try Harness()
        for i in 0..<40 { _ = source.add("--name", "form-\(i)") }
        let file = source.directory.file("forms.archive")
        let terminal = try PseudoTerminal()
        #expect(run(source, ["export", file], stderr: terminal.follower).status == ExitStatus.success)
        let exported = String(decoding: terminal.drain(), as: UTF8.self)
        #expect(exported.hasPrefix("\rexport 1/40 records (2%)"))
        #expect(exported.contains("Exported 40 records to "))
        #expect(exported.contains("\r\u{1B}[KExported"))   // the line is erased before the summary

        let target = try Harness()
        let imported = run(target, ["import", file], stderr: terminal.follower)
        #expect(imported.status == ExitStatus.success)
        #expect(imported.stdout.split(separator: "\n").count == 40)
        #expect(String(decoding: terminal.drain(), as: UTF8.self).hasPrefix("\rimport 1/40 records (2%)"))

        let purged = run(target, ["purge", "--all", "--quiet"], stderr: terminal.follower)
        #expect(purged.status == ExitStatus.success)
        #expect(purged.stdout.split(separator: "\n").count == 40)
        // Only the summary (the terminal turns its newline into CR LF): no progress line with --quiet.
        #expect(String(decoding: terminal.drain(), as: UTF8.self) == "Removed 40 records.\r\n")
    }
}
