import ArchivePlatform

/// What a `main.swift` needs from the running process: its arguments, its environment and a way to exit.
///
/// ```swift
/// StandardProcess.exit(MyTool.run(arguments: StandardProcess.arguments,
///                                 environment: StandardProcess.environment, io: .standard))
/// ```
///
/// Mirrors `CommandLine.arguments`, `ProcessInfo.processInfo.environment` and `exit(3)`.
package enum StandardProcess {
    /// The command-line arguments without the program name.
    package static var arguments: [String] { Array(CommandLine.arguments.dropFirst()) }

    /// The environment variables (`environ`); for a repeated name the first value wins.
    ///
    /// A value whose bytes are not UTF-8 cannot be a `String` as it is; it is given as U+0000 followed by
    /// its lossy decoding (invalid bytes as U+FFFD). No real value contains NUL, so such a value is never
    /// mistaken for another: a path made from it is refused rather than rewritten into another directory.
    package static var environment: [String: String] { SystemCalls.environment() }

    /// Ends the process with `status`. Mirrors `exit(3)`.
    package static func exit(_ status: Int32) -> Never { SystemCalls.exit(status) }
}

/// The process-level calls of the command-line tools, through the platform layer.
enum SystemCalls {
    /// Writes every byte of `buffer` to `descriptor`, retrying after short writes; returns `0`, or the `errno`
    /// of the write that failed. Mirrors `write(2)`.
    static func writeAll(_ descriptor: FileDescriptor, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        var done = 0
        while done < buffer.count {
            do throws(Errno) {
                let n = try descriptor.write(from: UnsafeRawBufferPointer(rebasing: buffer[done...]))
                guard n > 0 else { return Errno.io.rawValue }
                done += n
            } catch {
                return error.rawValue
            }
        }
        return 0
    }

    /// `strerror(3)`.
    static func describe(_ code: Int32) -> String { Errno(code).description }

    /// The environment as a dictionary (see `Kernel.environment()`).
    static func environment() -> [String: String] { Kernel.environment() }

    /// Mirrors `exit(3)`.
    static func exit(_ status: Int32) -> Never { Kernel.exit(status) }
}
