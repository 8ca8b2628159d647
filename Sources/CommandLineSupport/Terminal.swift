import ArchivePlatform

/// What the progress reporter needs to know about the terminal and the time, from the platform layer
/// (`ArchivePlatform.Kernel`, the one place that calls the C library).
///
/// Mirrors `isatty(3)`, `ioctl(2)` with `TIOCGWINSZ`, and `clock_gettime(2)` with `CLOCK_MONOTONIC`.
package enum Terminal {
    /// Whether `descriptor` is a terminal. Mirrors `isatty(3)`.
    package static func isTerminal(_ descriptor: FileDescriptor) -> Bool { descriptor.isTerminal }

    /// The width of the terminal on `descriptor` in columns, or `nil` when it is not a terminal or says 0.
    /// Mirrors `ioctl(fd, TIOCGWINSZ, &size)`.
    package static func columns(_ descriptor: FileDescriptor) -> Int? { descriptor.terminalColumns }

    /// Seconds on a clock that never goes back (not the time of day). Mirrors `clock_gettime(CLOCK_MONOTONIC)`.
    package static func monotonicSeconds() -> Double { Double(Kernel.monotonicNanoseconds()) / 1e9 }
}
