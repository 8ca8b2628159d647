import ArchivePlatform
import CommandLineSupport
import Foundation
import InspectorCLI
import Testing
import TestSupport
import ArchiveStore

/// `keyedarchive lint` over many files, and `cache trim` and `purge`, draw their progress on a terminal only.
@Suite struct LintProgressTests {
    /// Runs `keyedarchive` with `arguments`, stderr on `descriptor`, told whether it is a terminal as `isatty` says.
    static func run(_ arguments: [String], stderr descriptor: Int32) -> (status: Int32, stdout: String) {
        let out = OutputCapture()
        var io = CommandIO(stdout: out.sink, stderr: .fileDescriptor(FileDescriptor(rawValue: descriptor)))
        io.stderrIsTerminal = Terminal.isTerminal(FileDescriptor(rawValue: descriptor))
        let status = Inspector.run(arguments: arguments, environment: [:], io: io)
        return (status, out.text)
    }

    /// `cache trim` draws the bytes given back on a terminal, and erases the line before its result.
    @Test func cacheTrimAndPurgeDrawTheirProgressOnATerminalOnly() throws {
        let directory = try TemporaryDirectory(prefix: "inspector")
        var options = CacheOptions()
        options.byteLimit = 1 << 20
        let cache = try ArchiveCache<[UInt8]>(directory: directory.path, options: options)
        for i in 0..<300 { try cache.set([UInt8](repeating: UInt8(i & 0xFF), count: 2_000), forKey: "k\(i)") }
        let terminal = try PseudoTerminal()
        let trim = Self.run(["cache", "trim", directory.path, "--bytes", "256k"], stderr: terminal.follower)
        #expect(trim.status == ExitStatus.success)
        #expect(trim.stdout.hasPrefix("entries: "))
        let drawn = String(decoding: terminal.drain(), as: UTF8.self)
        #expect(drawn.hasPrefix("\rtrim "))
        #expect(drawn.contains(" bytes"))
        #expect(drawn.hasSuffix("\r\u{1B}[K"))
        let purge = Self.run(["cache", "purge", "--all", "--quiet", directory.path], stderr: terminal.follower)
        #expect(purge.status == ExitStatus.success)
        #expect(purge.stdout.hasPrefix("removed: "))
        #expect(terminal.drain() == [])
    }

    static let files = appleArchives.map(fixture)

    /// Runs lint with stderr on `descriptor`, told whether it is a terminal as `isatty` says.
    func lint(_ extra: [String], stderr descriptor: Int32) -> (status: Int32, stdout: String) {
        let out = OutputCapture()
        var io = CommandIO(stdout: out.sink, stderr: .fileDescriptor(FileDescriptor(rawValue: descriptor)))
        io.stderrIsTerminal = Terminal.isTerminal(FileDescriptor(rawValue: descriptor))
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
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        #expect(lint([], stderr: ends[1]).status == ExitStatus.success)
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == -1)
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
