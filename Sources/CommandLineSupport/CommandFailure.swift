/// A failure with a chosen exit status. Thrown by a command's `run`, it is printed as `Error: <message>` on
/// stderr and the process exits with `status`.
///
/// Mirrors swift-argument-parser's `ExitCode` thrown with a message printed first.
package struct CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    package var status: Int32
    package var message: String
    package init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }
    package var description: String { message }
}
