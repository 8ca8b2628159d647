import ArchivePlatform

/// A change that a ``FileSystem`` made, told to its ``FileSystem/observer`` after the kernel made it: what a
/// crash simulator needs to rebuild the states a power cut may leave (the bytes of every write, every sync,
/// every name created, renamed or removed). Only calls that change something are told, and only what they
/// did: a short write tells the bytes it stored, a failed call nothing.
package enum FileSystemEvent: Sendable {
    /// A file or directory opened at `path` as `fd`; `created` when this call made the file.
    case open(path: String, fd: FileDescriptor, created: Bool)
    /// `bytes` stored at `offset` of the file open as `fd` (`nil`: at its end, for `O_APPEND`).
    case write(fd: FileDescriptor, path: String, offset: Int?, bytes: [UInt8])
    /// The file open as `fd` cut (or extended) to `size` bytes.
    case truncate(fd: FileDescriptor, path: String, size: Int)
    /// The file or directory open as `fd` synced to stable storage.
    case sync(fd: FileDescriptor, path: String)
    /// `fd` closed.
    case close(fd: FileDescriptor)
    case rename(from: String, to: String)
    case link(from: String, to: String)
    case unlink(path: String)
    case makeDirectory(path: String)
    case removeDirectory(path: String)
}

/// Told every change a ``FileSystem`` makes (see ``FileSystemEvent``), in the order it makes them. Tests set
/// one to record what an operation does; production file systems have none, and then nothing is built or
/// called. Calls come from whichever thread makes the change: an observer serializes them itself.
package protocol FileSystemObserver: AnyObject, Sendable {
    func observe(_ event: FileSystemEvent)
}
