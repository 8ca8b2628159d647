import ArchivePlatform

/// What the progress reporter needs to know about the terminal and the time, from the platform layer
/// (`ArchivePlatform.Kernel`, the one place that calls the C library).
///
/// Mirrors `isatty(3)`, `ioctl(2)` with `TIOCGWINSZ`, and `clock_gettime(2)` with `CLOCK_MONOTONIC`.
package enum Terminal {
    /// Whether `descriptor` is a terminal. Mirrors `isatty(3)`.
    package static func isTerminal(_ descriptor: Int32) -> Bool { Kernel.isTerminal(descriptor) }

    /// The width of the terminal on `descriptor` in columns, or `nil` when it is not a terminal or says 0.
    /// Mirrors `ioctl(fd, TIOCGWINSZ, &size)`.
    package static func columns(_ descriptor: Int32) -> Int? { Kernel.terminalColumns(descriptor) }

    /// Seconds on a clock that never goes back (not the time of day). Mirrors `clock_gettime(CLOCK_MONOTONIC)`.
    package static func monotonicSeconds() -> Double { Double(Kernel.monotonicNanoseconds()) / 1e9 }
}
