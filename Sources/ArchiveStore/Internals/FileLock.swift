#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock(2)`) on a lock file beside the store, held while a closure runs.
///
/// The lock lives on a separate file (`<store>.lock`) because the store itself is replaced by `rename(2)` on
/// every write, which would leave a lock on the old inode. `flock` locks belong to the open file description,
/// so two opens in one process exclude each other just as two processes do.
enum FileLock {
    /// Opens (creating with mode 0600 if needed) and locks `path`, waiting at most `timeout`, runs `body`,
    /// then unlocks. Throws ``StoreError/Code/locked`` when the wait runs out and
    /// ``StoreError/Code/symbolicLink`` when `path` is a symbolic link.
    static func holding<Result>(
        _ path: String, timeout: Duration, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        let descriptor = try SystemCalls.openFile(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode: SystemCalls.fileMode)
        do throws(StoreError) {
            let info = try SystemCalls.fileStatus(descriptor, path)
            // Checked before the mode is set or the digest written: a hard link planted here must not let
            // the store change another file.
            try SystemCalls.requireOwnRegularFile(info, path)
            if info.st_mode & 0o777 != SystemCalls.fileMode, info.st_uid == geteuid() {
                try SystemCalls.setMode(descriptor, SystemCalls.fileMode, path)
            }
            try lock(descriptor, path: path, timeout: timeout)
        } catch {
            SystemCalls.closeFile(descriptor)
            throw error
        }
        defer {
            _ = flock(descriptor, LOCK_UN)
            SystemCalls.closeFile(descriptor)
        }
        return try body()
    }

    /// Tries `LOCK_EX | LOCK_NB`, backing off from 0.5 ms to 20 ms between attempts until `timeout` passes.
    private static func lock(_ fd: Int32, path: String, timeout: Duration) throws(StoreError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause: Int64 = 500_000
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK || code == EAGAIN else { throw SystemCalls.failure("flock", path, code) }
            if clock.now >= deadline {
                throw StoreError(.locked, "another process held the store lock for more than \(timeout)", path: path)
            }
            var interval = timespec(tv_sec: 0, tv_nsec: Int(pause))
            _ = nanosleep(&interval, nil)
            pause = min(pause * 2, 20_000_000)
        }
    }
}
