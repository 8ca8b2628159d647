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
    public static var environment: [String: String] { SystemCalls.environment() }

    /// Ends the process with `status`. Mirrors `exit(3)`.
    public static func exit(_ status: Int32) -> Never { SystemCalls.exit(status) }
}

/// Thin wrappers over the C calls this module uses.
enum SystemCalls {
    /// Writes every byte of `buffer` to `descriptor`, retrying after `EINTR` and short writes. Mirrors `write(2)`.
    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress else { return }
        var left = buffer.count
        while left > 0 {
            let n = systemWrite(descriptor, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if n == 0 { return }
            base += n
            left -= n
        }
    }

    /// The environment as a dictionary. Mirrors `environ(7)`.
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return result }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
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
