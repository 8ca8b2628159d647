import ArchivePlatform
import ArchiveStore
import CommandLineSupport

/// Whole-file reads and writes for the inspector, through the store's file-system seam, failing with the
/// sysexits status that fits.
enum InputFiles {
    /// The largest input read: 2 GiB.
    static let largestInput = 1 << 31

    /// The whole file at `path` (a regular file, a pipe or a FIFO, read to its end). Mirrors `open(2)` /
    /// `read(2)`.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/noInput`` when it cannot be opened or read.
    static func readFile(_ path: String) throws -> [UInt8] {
        do {
            return try ArchiveStore.FileSystem.kernel.readInput(path, limit: largestInput)
        } catch {
            let what = error.reason.hasPrefix("read:") ? "cannot read" : "cannot open"
            throw CommandFailure(status: ExitStatus.noInput, "\(path): \(what): \(reason(error))")
        }
    }

    /// Creates or replaces the file at `path` with `bytes` (mode 0644, as `cp` would create it). Mirrors
    /// `open(2)` / `write(2)`.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/cannotCreate`` or ``ExitStatus/ioError``.
    static func writeFile(_ bytes: [UInt8], to path: String) throws {
        let fileSystem = ArchiveStore.FileSystem.kernel
        let fd: FileDescriptor
        do {
            fd = try fileSystem.open(path, [.writeOnly, .create, .truncate], permissions: 0o644)
        } catch {
            throw CommandFailure(status: ExitStatus.cannotCreate, "\(path): cannot create: \(reason(error))")
        }
        defer { fileSystem.close(fd) }
        do {
            try fileSystem.write(fd, bytes, path)
        } catch {
            throw CommandFailure(status: ExitStatus.ioError, "\(path): cannot write: \(reason(error))")
        }
    }

    /// Succeeds when `path` names an existing directory (a symbolic link to one counts). Mirrors `stat(2)`.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/noInput`` when it does not exist, cannot be examined,
    ///   or is not a directory.
    static func requireDirectory(_ path: String) throws {
        let found: Bool?
        do {
            found = try ArchiveStore.FileSystem.kernel.status(path).map(\.isDirectory)
        } catch {
            throw CommandFailure(status: ExitStatus.noInput, "\(path): cannot open: \(reason(error))")
        }
        guard let isDirectory = found else { throw CommandFailure(status: ExitStatus.noInput, "\(path): cannot open: No such file or directory") }
        guard isDirectory else { throw CommandFailure(status: ExitStatus.noInput, "\(path): cannot open: Not a directory") }
    }

    /// `strerror` of a store error's `errno`, or its reason.
    private static func reason(_ error: StoreError) -> String {
        if let code = error.errno { return ArchiveStore.FileSystem.describe(errno: code) }
        return error.reason
    }
}
