import ArchivePlatform
@testable import ArchiveStore

/// One change an operation made, as the crash model sees it: files and directories are nodes (numbered by the
/// recorder, so that an inode number the kernel reuses is never taken for the file that had it before), names
/// are absolute paths.
enum RecordedCall: Sendable, Hashable, CustomStringConvertible {
    /// A file (`open` with `O_CREAT` that made it) or a directory (`mkdir`) at `path`.
    case create(path: String, node: Int, directory: Bool)
    case write(node: Int, offset: Int, bytes: [UInt8])
    case truncate(node: Int, size: Int)
    case syncFile(node: Int)
    case syncDirectory(path: String)
    case rename(from: String, to: String)
    case link(from: String, to: String)
    case unlink(path: String)
    case removeDirectory(path: String)

    var description: String {
        switch self {
        case .create(let path, let node, let directory): return "\(directory ? "mkdir" : "create") \(path) #\(node)"
        case .write(let node, let offset, let bytes): return "pwrite #\(node) \(bytes.count) bytes at \(offset)"
        case .truncate(let node, let size): return "ftruncate #\(node) to \(size)"
        case .syncFile(let node): return "fsync #\(node)"
        case .syncDirectory(let path): return "fsync directory \(path)"
        case .rename(let from, let to): return "rename \(from) -> \(to)"
        case .link(let from, let to): return "link \(from) -> \(to)"
        case .unlink(let path): return "unlink \(path)"
        case .removeDirectory(let path): return "rmdir \(path)"
        }
    }
}

/// Keeps every change a ``FileSystem`` makes, with its bytes, as ``RecordedCall``s: the crash simulator's
/// record (the part SQLite's crash-test VFS and ALICE's tracer play). Set it as a file system's observer
/// (``recording(_:)``); the operation runs on the real files meanwhile.
final class FileSystemRecorder: FileSystemObserver, @unchecked Sendable { // Sendable: state behind a lock.
    private struct Open { var node: Int?; var path: String; var isDirectory: Bool }
    private struct State {
        var calls: [RecordedCall] = []
        var nodeOfInode: [UInt64: Int]
        var nextNode: Int
        var open: [FileDescriptor: Open] = [:]
    }
    private let state: Locked<State>

    /// A recorder that knows the nodes of an image captured before the operation (`inodes`: each file's inode
    /// number to its node).
    init(inodes: [UInt64: Int]) {
        state = Locked(State(nodeOfInode: inodes, nextNode: (inodes.values.max() ?? 0) + 1))
    }

    /// The changes so far, in order.
    var calls: [RecordedCall] { state.withLock { $0.calls } }

    /// `fileSystem`, told to record here.
    func recording(_ fileSystem: FileSystem = .kernel) -> FileSystem {
        var observed = fileSystem
        observed.observer = self
        return observed
    }

    func observe(_ event: FileSystemEvent) {
        state.withLock { state in
            switch event {
            case .open(let path, let fd, let created):
                guard let info = try? fd.status() else { return }
                var node = state.nodeOfInode[info.inode]
                if created || node == nil {
                    node = state.nextNode
                    state.nextNode += 1
                    state.nodeOfInode[info.inode] = node
                    if created { state.calls.append(.create(path: path, node: node!, directory: false)) }
                }
                state.open[fd] = Open(node: node, path: path, isDirectory: info.isDirectory)
            case .write(let fd, _, let offset, let bytes):
                guard let node = state.open[fd]?.node else { return }
                // An append lands at the end: the file's size now, less what was just written.
                let at = offset ?? ((try? fd.status()).map { Int($0.size) - bytes.count } ?? 0)
                state.calls.append(.write(node: node, offset: at, bytes: bytes))
            case .truncate(let fd, _, let size):
                guard let node = state.open[fd]?.node else { return }
                state.calls.append(.truncate(node: node, size: size))
            case .sync(let fd, let path):
                guard let open = state.open[fd] else { return }
                if open.isDirectory {
                    state.calls.append(.syncDirectory(path: Self.normalized(path)))
                } else if let node = open.node {
                    state.calls.append(.syncFile(node: node))
                }
            case .close(let fd):
                state.open[fd] = nil
            case .rename(let from, let to):
                state.calls.append(.rename(from: from, to: to))
            case .link(let from, let to):
                state.calls.append(.link(from: from, to: to))
            case .unlink(let path):
                state.calls.append(.unlink(path: path))
            case .makeDirectory(let path):
                let node = state.nextNode
                state.nextNode += 1
                if let info = try? Kernel.status(atPath: path) { state.nodeOfInode[info.inode] = node }
                state.calls.append(.create(path: Self.normalized(path), node: node, directory: true))
            case .removeDirectory(let path):
                state.calls.append(.removeDirectory(path: Self.normalized(path)))
            }
        }
    }

    /// `path` without trailing slashes.
    static func normalized(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
