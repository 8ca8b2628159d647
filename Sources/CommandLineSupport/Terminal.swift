#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the progress reporter needs to know about the terminal and the time: the one place in this module, with
/// `StandardProcess.swift`, that calls the C library for it.
///
/// Mirrors `isatty(3)`, `ioctl(2)` with `TIOCGWINSZ`, and `clock_gettime(2)` with `CLOCK_MONOTONIC`.
package enum Terminal {
    /// Whether `descriptor` is a terminal. Mirrors `isatty(3)`.
    package static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The width of the terminal on `descriptor` in columns, or `nil` when it is not a terminal or says 0.
    /// Mirrors `ioctl(fd, TIOCGWINSZ, &size)`.
    package static func columns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Seconds on a clock that never goes back (not the time of day). Mirrors `clock_gettime(CLOCK_MONOTONIC)`.
    package static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
