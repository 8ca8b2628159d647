/// An `errno` value, with the names the package tests for.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package static let interrupted = Errno(_EINTR)
    package static let noSuchFile = Errno(_ENOENT)
    package static let exists = Errno(_EEXIST)
    package static let noSpace = Errno(_ENOSPC)
    package static let io = Errno(_EIO)
    package static let tooManyLinks = Errno(_ELOOP)
    package static let notDirectory = Errno(_ENOTDIR)
    package static let isDirectory = Errno(_EISDIR)
    package static let wouldBlock = Errno(_EWOULDBLOCK)
    package static let permissionDenied = Errno(_EACCES)
    /// `EROFS`: a write to a file system mounted read-only.
    package static let readOnlyFileSystem = Errno(_EROFS)
    package static let notPermitted = Errno(_EPERM)
    package static let invalid = Errno(_EINVAL)
    package static let overflow = Errno(_EOVERFLOW)
    package static let notSupported = Errno(_ENOTSUP)
    package static let notEmpty = Errno(_ENOTEMPTY)

    // The values only the calls here test for.
    /// `EAGAIN` (the same value as `EWOULDBLOCK` on the platforms the package supports).
    static let tryAgain = Errno(_EAGAIN)
    /// `EOPNOTSUPP` (`ENOTSUP`'s value on Linux, another on Darwin).
    static let notSupportedOnSocket = Errno(_EOPNOTSUPP)
    /// `ENOTTY`: an operation the descriptor's device or file system does not have.
    static let notTerminal = Errno(_ENOTTY)
    /// `ERANGE`: a result larger than the buffer given for it.
    static let outOfRange = Errno(_ERANGE)

    /// `errno` of the calling thread, as the call that just failed left it.
    static var current: Errno { Errno(system_errno()) }

    /// `strerror(3)`.
    package var description: String { system_strerror(rawValue) ?? "errno \(rawValue)" }
}
