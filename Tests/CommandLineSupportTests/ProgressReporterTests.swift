import ArchivePlatform
import CommandLineSupport
import Foundation
import Testing
import TestSupport

/// ``ProgressReporter``: drawn on a terminal only, never with quiet, erased at the end.
@Suite struct ProgressReporterTests {
    /// A clock the test moves.
    final class Clock {
        var now = 100.0
    }

    @Test func drawsCountRateAndTimeLeftOnATerminalAtMostEveryInterval() throws {
        let terminal = try PseudoTerminal()
        #expect(Terminal.isTerminal(FileDescriptor(rawValue: terminal.follower)))
        let clock = Clock()
        let progress = ProgressReporter(label: "lint", unit: "files", total: 40, sink: .fileDescriptor(FileDescriptor(rawValue: terminal.follower)),
                                        enabled: Terminal.isTerminal(FileDescriptor(rawValue: terminal.follower)), clock: { clock.now })
        clock.now = 101
        progress.advance()                  // drawn: the first update draws at once
        clock.now = 101.05
        progress.advance()                  // not drawn: within the interval
        clock.now = 102
        progress.advance(by: 8)             // 10 done in 2 s
        progress.finish()
        let drawn = String(decoding: terminal.drain(), as: UTF8.self)
        #expect(drawn == "\rlint 1/40 files (2%), 1.00/s, 39s left\u{1B}[K"
            + "\rlint 10/40 files (25%), 5.00/s, 6s left\u{1B}[K"
            + "\r\u{1B}[K")
    }

    @Test func drawsNothingWhenNotATerminalOrQuiet() throws {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]); close(pipe[1]) }
        #expect(!Terminal.isTerminal(FileDescriptor(rawValue: pipe[1])))
        let terminal = try PseudoTerminal()
        for (descriptor, quiet) in [(pipe[1], false), (terminal.follower, true)] {
            var io = CommandIO(stdout: .discarding, stderr: .fileDescriptor(FileDescriptor(rawValue: descriptor)))
            io.stderrIsTerminal = Terminal.isTerminal(FileDescriptor(rawValue: descriptor))
            let context = CommandContext(arguments: ParsedArguments(), environment: [:], io: io, toolName: "t", commandName: "c")
            let progress = ProgressReporter.forCommand(context, label: "x", unit: "items", total: 3, quiet: quiet)
            progress.advance()
            progress.finish()
        }
        _ = fcntl(pipe[0], F_SETFL, O_NONBLOCK)
        var byte: UInt8 = 0
        #expect(read(pipe[0], &byte, 1) == -1)
        #expect(terminal.drain() == [])
    }

    @Test func aDumbTerminalGetsNoProgress() throws {
        let terminal = try PseudoTerminal()
        var io = CommandIO(stdout: .discarding, stderr: .fileDescriptor(FileDescriptor(rawValue: terminal.follower)))
        io.stderrIsTerminal = true
        let context = CommandContext(arguments: ParsedArguments(), environment: ["TERM": "dumb"], io: io, toolName: "t",
                                     commandName: "c")
        let progress = ProgressReporter.forCommand(context, label: "x", unit: "items", total: nil, quiet: false)
        progress.update(done: 5, total: nil)
        progress.finish()
        #expect(terminal.drain() == [])
    }

    @Test func theLineIsCutToTheTerminalWidthAndKnowsNoTotal() {
        let captured = OutputCapture()
        var now = 0.0
        let progress = ProgressReporter(label: "purge", unit: "entries", total: nil, sink: captured.sink, enabled: true,
                                        clock: { now }, columns: 20)
        now = 4
        progress.update(done: 1_000, total: nil)
        #expect(captured.text == "\rpurge 1000 entries,\u{1B}[K")
        #expect(progress.line(at: 4) == "purge 1000 entries, 250/s")
        #expect(progress.line(at: 4000) == "purge 1000 entries, 0.25/s")
    }
}
