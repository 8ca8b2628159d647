#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `main.swift` needs from the running process: its arguments, its environment and a way to exit.
///
/// ```swift
/// StandardProcess.exit(MyTool.run(arguments: StandardProcess.arguments,
///                                 environment: StandardProcess.environment, io: .standard))
/// ```
///
/// Mirrors `CommandLine.arguments`, `ProcessInfo.processInfo.environment` and `exit(3)`.
public enum StandardProcess {
    /// The command-line arguments without the program name.
    public static var arguments: [String] { Array(CommandLine.arguments.dropFirst()) }

    /// The environment variables (`environ`); for a repeated name the first value wins.
    ///
    /// A value whose bytes are not UTF-8 cannot be a `String` as it is; it is given as U+0000 followed by
    /// its lossy decoding (invalid bytes as U+FFFD). No real value contains NUL, so such a value is never
    /// mistaken for another: a path made from it is refused rather than rewritten into another directory.
    public static var environment: [String: String] { SystemCalls.environment() }

    /// Ends the process with `status`. Mirrors `exit(3)`.
    public static func exit(_ status: Int32) -> Never { SystemCalls.exit(status) }
}

/// Thin wrappers over the C calls this module uses.
enum SystemCalls {
    /// Writes every byte of `buffer` to `descriptor`, retrying after `EINTR` and short writes; returns `0`,
    /// or the `errno` of the write that failed. Mirrors `write(2)`.
    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        guard var base = buffer.baseAddress else { return 0 }
        var left = buffer.count
        while left > 0 {
            let n = systemWrite(descriptor, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            base += n
            left -= n
        }
        return 0
    }

    /// `strerror(3)`.
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    /// The environment as a dictionary. Mirrors `environ(7)`.
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return result }
        while let pointer = entry.pointee {
            let text = String(validatingCString: pointer) ?? "\u{0}" + String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                var name = String(text[..<equals])
                if name.first == "\u{0}" {
                    // The bytes after `=` were not UTF-8, the name's were: keep the mark on the value.
                    name.removeFirst()
                    let value = "\u{0}" + text[text.index(after: equals)...]
                    if result[name] == nil { result[name] = value }
                    entry += 1
                    continue
                }
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }

    /// Mirrors `exit(3)`.
    static func exit(_ status: Int32) -> Never { systemExit(status) }
}

private func systemWrite(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, base, count)
}

private func systemExit(_ status: Int32) -> Never {
    exit(status)
}
