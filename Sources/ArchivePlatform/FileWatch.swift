/// Waits for a file in a directory to change, asleep in the kernel: inotify on Linux (a watch of the directory,
/// so the file's contents, and another file renamed over it, are both seen), kqueue on Apple platforms (the
/// directory for renames, the file, opened `O_EVTONLY`, for writes). Where neither can be set up, ``wait(milliseconds:)``
/// sleeps the whole time and reports a change: the caller then polls.
///
/// Not thread-safe: one thread waits on it.
///
/// Mirrors `DispatchSource.makeFileSystemObjectSource(fileDescriptor:eventMask:queue:)` (kqueue's `EVFILT_VNODE`).
package final class FileWatch {
    private let directory: String
    private let name: String
    #if canImport(Darwin)
    private var queue: Int32 = -1
    private var directoryFD: Int32 = -1
    private var fileFD: Int32 = -1
    #else
    private var inotify: Int32 = -1
    #endif

    /// Whether the kernel watches (else ``wait(milliseconds:)`` is a sleep).
    package private(set) var isWatching = false

    /// Watches `name` in `directory`.
    package init(directory: String, name: String) {
        self.directory = directory
        self.name = name
        #if canImport(Darwin)
        if let (queue, directoryFD) = system_watchDirectory(directory) {
            self.queue = queue
            self.directoryFD = directoryFD
            isWatching = true
            fileFD = system_watchFile(queue, directory + "/" + name)
        }
        #else
        inotify = system_watchDirectory(directory)
        isWatching = inotify >= 0
        #endif
    }

    deinit {
        #if canImport(Darwin)
        for fd in [fileFD, directoryFD, queue] where fd >= 0 { _ = system_close(fd) }
        #else
        if inotify >= 0 { _ = system_close(inotify) }
        #endif
    }

    /// Waits at most `milliseconds`; `true` when the file may have changed (an event, an error, or no watch),
    /// `false` when the time passed with no event.
    package func wait(milliseconds: Int) -> Bool {
        guard isWatching else {
            var interval = (seconds: milliseconds / 1000, nanoseconds: (milliseconds % 1000) * 1_000_000)
            while system_nanosleep(&interval) != 0 && system_errno() == _EINTR {}
            return true
        }
        #if canImport(Darwin)
        if fileFD < 0 { fileFD = system_watchFile(queue, directory + "/" + name) }
        let (count, gone) = system_watchWait(queue, fileFD, milliseconds)
        if gone, fileFD >= 0 {
            _ = system_close(fileFD)
            fileFD = -1
        }
        return count != 0
        #else
        return system_watchWait(inotify, milliseconds, Array(name.utf8)) != 0
        #endif
    }
}
