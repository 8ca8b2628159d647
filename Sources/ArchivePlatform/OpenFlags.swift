/// The flags of `open(2)`, with each platform's values (they differ between Linux and Darwin).
package struct OpenFlags: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let readOnly = OpenFlags(rawValue: _O_RDONLY)
    package static let writeOnly = OpenFlags(rawValue: _O_WRONLY)
    package static let readWrite = OpenFlags(rawValue: _O_RDWR)
    package static let create = OpenFlags(rawValue: _O_CREAT)
    package static let exclusive = OpenFlags(rawValue: _O_EXCL)
    package static let truncate = OpenFlags(rawValue: _O_TRUNC)
    package static let append = OpenFlags(rawValue: _O_APPEND)
    /// Never blocks in `open` itself (a FIFO with no writer would wait forever).
    package static let nonBlocking = OpenFlags(rawValue: _O_NONBLOCK)
    /// A symbolic link as the last component fails with `ELOOP`.
    package static let noFollow = OpenFlags(rawValue: _O_NOFOLLOW)
    package static let directory = OpenFlags(rawValue: _O_DIRECTORY)
    /// `O_CLOEXEC`, which ``FileDescriptor/open(_:_:permissions:)`` always adds: no child process inherits the file.
    static let closeOnExec = OpenFlags(rawValue: _O_CLOEXEC)
}
