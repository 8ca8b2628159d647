#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

/// The flags of `open(2)`, with each platform's values (they differ between Linux and Darwin).
package struct OpenFlags: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let readOnly = OpenFlags(rawValue: O_RDONLY)
    package static let writeOnly = OpenFlags(rawValue: O_WRONLY)
    package static let readWrite = OpenFlags(rawValue: O_RDWR)
    package static let create = OpenFlags(rawValue: O_CREAT)
    package static let exclusive = OpenFlags(rawValue: O_EXCL)
    package static let truncate = OpenFlags(rawValue: O_TRUNC)
    package static let append = OpenFlags(rawValue: O_APPEND)
    /// Never blocks in `open` itself (a FIFO with no writer would wait forever).
    package static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
    /// A symbolic link as the last component fails with `ELOOP`.
    package static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
    package static let directory = OpenFlags(rawValue: O_DIRECTORY)
}
