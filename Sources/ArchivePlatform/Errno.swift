#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

/// An `errno` value, with the names the package tests for.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package static let interrupted = Errno(EINTR)
    package static let noSuchFile = Errno(ENOENT)
    package static let exists = Errno(EEXIST)
    package static let noSpace = Errno(ENOSPC)
    package static let io = Errno(EIO)
    package static let tooManyLinks = Errno(ELOOP)
    package static let notDirectory = Errno(ENOTDIR)
    package static let isDirectory = Errno(EISDIR)
    package static let wouldBlock = Errno(EWOULDBLOCK)
    package static let permissionDenied = Errno(EACCES)
    package static let notPermitted = Errno(EPERM)
    package static let badDescriptor = Errno(EBADF)
    package static let invalid = Errno(EINVAL)
    package static let overflow = Errno(EOVERFLOW)
    package static let fileTooLarge = Errno(EFBIG)
    package static let crossDevice = Errno(EXDEV)
    package static let notSupported = Errno(ENOTSUP)
    package static let notEmpty = Errno(ENOTEMPTY)

    /// `strerror(3)`.
    package var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: text)
    }
}
