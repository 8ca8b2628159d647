/// What `stat(2)` says of a file, in the same types on every platform (`mode_t` is 16 bits on Darwin and 32
/// on Linux, `st_nlink` 16, 32 or 64 bits, and the times are `st_mtim` on Linux, `st_mtimespec` on Darwin).
///
/// SystemCalls.swift converts a `stat` into one.
///
/// Mirrors `struct stat` and `FileManager.attributesOfItem(atPath:)`.
package struct FileStatus: Hashable, Sendable {
    /// The kind of file (the `S_IFMT` bits of `st_mode`).
    package enum Kind: Hashable, Sendable {
        case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, unknown
    }

    package var kind: Kind
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32
    /// `st_size`.
    package var size: Int64
    /// `st_blocks`: 512-byte blocks allocated on every platform the package supports (what `du` counts).
    package var allocatedBlocks: Int64
    package var inode: UInt64
    package var linkCount: UInt64
    package var ownerID: UInt32
    package var modified: FileTime
    /// The time of the last change of the file or its metadata (`st_ctim`).
    package var changed: FileTime

    package init(kind: Kind, permissions: UInt32, size: Int64, allocatedBlocks: Int64, inode: UInt64,
                 linkCount: UInt64, ownerID: UInt32, modified: FileTime, changed: FileTime) {
        self.kind = kind
        self.permissions = permissions
        self.size = size
        self.allocatedBlocks = allocatedBlocks
        self.inode = inode
        self.linkCount = linkCount
        self.ownerID = ownerID
        self.modified = modified
        self.changed = changed
    }

    package var isRegularFile: Bool { kind == .regular }
    package var isDirectory: Bool { kind == .directory }
    package var isSymbolicLink: Bool { kind == .symbolicLink }

    /// Bytes allocated on disk (`st_blocks × 512`), as `du` counts them.
    package var allocatedBytes: Int64 { allocatedBlocks.multipliedReportingOverflow(by: 512).partialValue }
}

/// A file time: seconds and nanoseconds since 1970.
package struct FileTime: Hashable, Sendable, Comparable {
    package var seconds: Int64
    package var nanoseconds: Int64

    package init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Nanoseconds since 1970 (times before 1970 count as 0).
    package var nanosecondsSince1970: UInt64 {
        UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, nanoseconds))
    }

    package static func < (a: FileTime, b: FileTime) -> Bool { (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds) }
}

/// Which file a path names and how large it is: the part of ``FileStatus`` that can be read without the file's
/// times (see ``Kernel/identity(atPath:)``).
package struct FileIdentity: Hashable, Sendable {
    package var kind: FileStatus.Kind
    package var inode: UInt64
    package var size: Int64
    package var linkCount: UInt64

    package init(kind: FileStatus.Kind, inode: UInt64, size: Int64, linkCount: UInt64) {
        self.kind = kind
        self.inode = inode
        self.size = size
        self.linkCount = linkCount
    }

    package var isRegularFile: Bool { kind == .regular }
}
