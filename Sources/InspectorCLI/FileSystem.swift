#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CommandLineSupport

/// Whole-file reads and writes for the inspector, failing with the sysexits status that fits.
enum FileSystem {
    /// The whole file at `path`. Mirrors `open(2)` / `read(2)`.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/noInput`` when it cannot be opened or read.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(ExitStatus.noInput, path, "cannot open") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(ExitStatus.noInput, path, "cannot read")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Creates or replaces the file at `path` with `bytes`. Mirrors `open(2)` / `write(2)`.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/cannotCreate`` or ``ExitStatus/ioError``.
    static func writeFile(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(ExitStatus.cannotCreate, path, "cannot create") }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = failure(ExitStatus.ioError, path, "cannot write")
                close(descriptor)
                throw error
            }
            offset += count
        }
        guard close(descriptor) == 0 else { throw failure(ExitStatus.ioError, path, "cannot write") }
    }

    private static func failure(_ status: Int32, _ path: String, _ what: String) -> CommandFailure {
        let reason = strerror(errno).map { String(cString: $0) } ?? "error \(errno)"
        return CommandFailure(status: status, "\(path): \(what): \(reason)")
    }
}

extension FileSystem {
    /// Succeeds when `path` names an existing directory (a symbolic link to one counts). Mirrors `stat(2)`.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/noInput`` when it does not exist, cannot be examined,
    ///   or is not a directory.
    static func requireDirectory(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(ExitStatus.noInput, path, "cannot open") }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure(status: ExitStatus.noInput, "\(path): cannot open: Not a directory")
        }
    }
}
