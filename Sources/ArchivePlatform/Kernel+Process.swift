/// The process-level calls: identity, home directory, environment, exit and clocks (the terminal calls are
/// ``FileDescriptor``'s `isTerminal` and `terminalColumns`).
extension Kernel {
    // MARK: Process

    /// `getpid(2)`.
    package static var processID: Int32 { system_getpid() }

    /// `geteuid(2)`.
    package static var effectiveUserID: UInt32 { system_geteuid() }

    /// The home directory of the effective user in the password database (`getpwuid_r(3)`), or `nil`.
    package static func homeDirectoryOfEffectiveUser() -> String? {
        var size = 16_384
        while size <= 1 << 20 {
            let (result, home) = system_getpwuid_r(system_geteuid(), bufferSize: size)
            if Errno(result) == .outOfRange {
                size *= 4
                continue
            }
            guard result == 0, let home, !home.isEmpty else { return nil }
            return home
        }
        return nil
    }

    /// The process's environment entries (`NAME=value`), as their bytes. Mirrors `environ(7)`; on Darwin
    /// `environ` is not visible to Swift and `_NSGetEnviron()` gives it.
    package static func environmentEntries() -> [[UInt8]] { system_environ() }

    /// The environment as a dictionary; for a repeated name the first value wins. Mirrors `environ(7)` and
    /// `ProcessInfo.environment`.
    ///
    /// A value whose bytes are not UTF-8 cannot be a `String` as it is; it is given as U+0000 followed by its
    /// lossy decoding (invalid bytes as U+FFFD). No real value contains NUL, so such a value is never mistaken
    /// for another: a path made from it is refused rather than rewritten into another directory.
    package static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for entry in environmentEntries() {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[..<equals], as: UTF8.self)
            let bytes = entry[(equals + 1)...]
            let value = String(decoding: bytes, as: UTF8.self)
            // Decoding is the identity exactly when the bytes are UTF-8 (anything else was replaced).
            let marked = value.utf8.elementsEqual(bytes) ? value : "\u{0}" + value
            if result[name] == nil { result[name] = marked }
        }
        return result
    }

    /// Ends the process. Mirrors `exit(3)`.
    package static func exit(_ status: Int32) -> Never { system_exit(status) }

    /// Sleeps at least `nanoseconds` (`nanosleep(2)`).
    package static func sleep(nanoseconds: Int) {
        var interval = (seconds: nanoseconds / 1_000_000_000, nanoseconds: nanoseconds % 1_000_000_000)
        while system_nanosleep(&interval) != 0 && Errno.current == .interrupted {}
    }

    /// Nanoseconds since 1970 by the real-time clock (`clock_gettime(CLOCK_REALTIME)`).
    package static func realTimeNanoseconds() -> UInt64 { system_clock_gettime(.realTime) }

    /// Nanoseconds of a clock that never goes back (`clock_gettime(CLOCK_MONOTONIC)`).
    package static func monotonicNanoseconds() -> UInt64 { system_clock_gettime(.monotonic) }

    /// Whether `count` bytes at `a` and at `b` are equal (`memcmp(3)`).
    package static func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        system_memcmp(a, b, count) == 0
    }
}
