#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
// `_NSGetEnviron()` is declared in <crt_externs.h>, an explicit submodule that `import Darwin` does not bring in.
import Darwin.crt_externs
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

private func c_exit(_ status: Int32) -> Never { exit(status) }

/// The process-level calls: identity, home directory, environment, exit and clocks (the terminal calls are
/// ``FileDescriptor``'s `isTerminal` and `terminalColumns`).
extension Kernel {
    // MARK: Process

    /// `getpid(2)`.
    package static var processID: Int32 { getpid() }

    /// `geteuid(2)`.
    package static var effectiveUserID: UInt32 { UInt32(truncatingIfNeeded: geteuid()) }

    /// The home directory of the effective user in the password database (`getpwuid_r(3)`), or `nil`.
    package static func homeDirectoryOfEffectiveUser() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var size = 16_384
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
            if status == ERANGE {
                size *= 4
                continue
            }
            guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
            let home = String(cString: directory)
            return home.isEmpty ? nil : home
        }
        return nil
    }

    /// The process's environment entries (`NAME=value`), as their bytes. Mirrors `environ(7)`; on Darwin
    /// `environ` is not visible to Swift and `_NSGetEnviron()` gives it.
    package static func environmentEntries() -> [[UInt8]] {
        #if canImport(Darwin)
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = _NSGetEnviron().pointee
        #else
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        #endif
        guard var entry = start else { return [] }
        var entries: [[UInt8]] = []
        while let pointer = entry.pointee {
            entries.append(Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))))
            entry += 1
        }
        return entries
    }

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
    package static func exit(_ status: Int32) -> Never { c_exit(status) }

    /// Sleeps at least `nanoseconds` (`nanosleep(2)`).
    package static func sleep(nanoseconds: Int) {
        var interval = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        var left = timespec()
        while nanosleep(&interval, &left) != 0 && c_errno() == EINTR { interval = left }
    }

    /// Nanoseconds since 1970 by the real-time clock (`clock_gettime(CLOCK_REALTIME)`).
    package static func realTimeNanoseconds() -> UInt64 {
        var now = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
    }

    /// Nanoseconds of a clock that never goes back (`clock_gettime(CLOCK_MONOTONIC)`).
    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
    }

    /// Whether `count` bytes at `a` and at `b` are equal (`memcmp(3)`).
    package static func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }
}
