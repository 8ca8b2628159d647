import CommandLineSupport
import Foundation
import InspectorCLI
import Testing
import TestSupport

/// `keyedarchive lint` over many files draws its progress on a terminal only (issue 21).
@Suite struct LintProgressTests {
    static let files = appleArchives.map(fixture)

    /// Runs lint with stderr on `descriptor`, told whether it is a terminal as `isatty` says.
    func lint(_ extra: [String], stderr descriptor: Int32) -> (status: Int32, stdout: String) {
        let out = OutputCapture()
        var io = CommandIO(stdout: out.sink, stderr: .fileDescriptor(descriptor))
        io.stderrIsTerminal = Terminal.isTerminal(descriptor)
        let status = Inspector.run(arguments: ["lint"] + extra + Self.files, environment: [:], io: io)
        return (status, out.text)
    }

    @Test func aTerminalSeesTheCountAndTheLineIsErasedAtTheEnd() throws {
        let terminal = try PseudoTerminal()
        let result = lint([], stderr: terminal.follower)
        #expect(result.status == ExitStatus.success)
        #expect(result.stdout == "")
        let drawn = String(decoding: terminal.drain(), as: UTF8.self)
        #expect(drawn.hasPrefix("\rlint 1/\(Self.files.count) files (0%)"))
        #expect(drawn.hasSuffix("\u{1B}[K\r\u{1B}[K"))
        #expect(drawn.contains("/s, "))
        #expect(drawn.contains(" left\u{1B}[K"))
    }

    @Test func quietOrAPipeGetsNothing() throws {
        let terminal = try PseudoTerminal()
        #expect(lint(["--quiet"], stderr: terminal.follower).status == ExitStatus.success)
        #expect(lint(["-q", "--verbose"], stderr: terminal.follower).stdout.hasSuffix(": OK\n"))
        #expect(terminal.drain() == [])
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]); close(pipe[1]) }
        _ = fcntl(pipe[0], F_SETFL, O_NONBLOCK)
        #expect(lint([], stderr: pipe[1]).status == ExitStatus.success)
        var byte: UInt8 = 0
        #expect(read(pipe[0], &byte, 1) == -1)
    }

    /// Output lines erase the progress line first, so each starts at the left margin.
    @Test func eachOutputLineStartsOnACleanLine() throws {
        let terminal = try PseudoTerminal()
        let result = lint(["--verbose"], stderr: terminal.follower)
        #expect(result.status == ExitStatus.success)
        #expect(result.stdout.split(separator: "\n").count == Self.files.count)
        let drawn = String(decoding: terminal.drain(), as: UTF8.self)
        #expect(drawn.components(separatedBy: "\r\u{1B}[K").count >= 2)
    }
}
