/// A mistake in the command line. Thrown by a command's `run`, it is printed as `Error: ...`, the usage and
/// a hint to `--help`, and the process exits with ``ExitStatus/usage`` (64).
///
/// Mirrors swift-argument-parser's `ValidationError`.
package struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
