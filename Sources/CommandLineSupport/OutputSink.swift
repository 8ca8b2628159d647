import ArchivePlatform

/// A place a command writes bytes or text to: the process's standard output or error, or a buffer in tests.
///
/// A sink is a handle: copies write to the same destination. It is a `TextOutputStream`, so
/// `print("x", to: &sink)` works; binary output goes through ``write(bytes:)``.
///
/// ```swift
/// let captured = OutputCapture()
/// var out = captured.sink
/// print("hello", to: &out)
/// captured.text   // "hello\n"
/// ```
///
/// Mirrors `FileHandle.standardOutput.write(_:)` / `TextOutputStream`.
package struct OutputSink: TextOutputStream {
    private let sink: (UnsafeRawBufferPointer) -> Void
    private let failure: WriteFailure?

    /// A sink that hands every chunk of bytes to `write`. The buffer is valid only during the call.
    package init(_ write: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = write
        self.failure = nil
    }

    /// A sink whose `write` returns `0` on success or an `errno`: the first failure is kept
    /// (``writeError``) and every later write is skipped.
    package init(reportingFailures write: @escaping (UnsafeRawBufferPointer) -> Int32) {
        let failure = WriteFailure()
        self.failure = failure
        self.sink = { buffer in
            guard failure.code == nil else { return }
            let code = write(buffer)
            if code != 0 { failure.code = code }
        }
    }

    /// The `errno` of the first write that failed (a full disk, a closed pipe), or `nil`.
    package var writeError: Int32? { failure?.code }

    /// A sink whose every write fails with `code` (tests of failed output).
    package static func failing(_ code: Int32) -> OutputSink { OutputSink(reportingFailures: { _ in code }) }

    /// Writes the UTF-8 bytes of `string`.
    package func write(_ string: String) {
        var string = string
        string.withUTF8 { sink(UnsafeRawBufferPointer($0)) }
    }

    /// Writes raw bytes.
    package func write(bytes: [UInt8]) {
        bytes.withUnsafeBytes { sink($0) }
    }

    /// A sink that discards everything.
    package static var discarding: OutputSink { OutputSink { _ in } }

    /// The process's standard output (file descriptor 1), unbuffered.
    package static var standardOutput: OutputSink { fileDescriptor(.standardOutput) }

    /// The process's standard error (file descriptor 2), unbuffered.
    package static var standardError: OutputSink { fileDescriptor(.standardError) }

    /// A sink writing to an open file descriptor; a failed write is kept in ``writeError``.
    package static func fileDescriptor(_ descriptor: FileDescriptor) -> OutputSink {
        OutputSink(reportingFailures: { SystemCalls.writeAll(descriptor, $0) })
    }
}

/// The first failed write of a sink (shared by its copies).
private final class WriteFailure {
    var code: Int32?
}

/// Collects everything written to its ``sink``, for tests and for commands that build output in memory.
package final class OutputCapture {
    /// Everything written so far.
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// The collected bytes decoded as UTF-8 (invalid bytes become U+FFFD).
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A sink that appends to this capture.
    package var sink: OutputSink {
        OutputSink { [self] buffer in bytes.append(contentsOf: buffer) }
    }
}

/// The output streams a command writes to: data alone on `stdout`, messages on `stderr`.
///
/// ```swift
/// let out = OutputCapture(), err = OutputCapture()
/// let status = MyTool.run(arguments: ["list"], environment: [:], io: CommandIO(stdout: out.sink, stderr: err.sink))
/// ```
package struct CommandIO {
    package var stdout: OutputSink
    package var stderr: OutputSink
    /// Whether `stderr` is a terminal, where ``ProgressReporter`` draws (false unless set).
    package var stderrIsTerminal = false
    /// The terminal's width, when `stderr` is one.
    package var stderrColumns: Int?

    package init(stdout: OutputSink, stderr: OutputSink) {
        self.stdout = stdout
        self.stderr = stderr
    }

    /// The process's standard output and standard error.
    package static var standard: CommandIO {
        var io = CommandIO(stdout: .standardOutput, stderr: .standardError)
        io.stderrIsTerminal = Terminal.isTerminal(.standardError)
        io.stderrColumns = io.stderrIsTerminal ? Terminal.columns(.standardError) : nil
        return io
    }
}
