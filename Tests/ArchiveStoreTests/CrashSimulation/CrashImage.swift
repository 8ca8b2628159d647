import Foundation
import ArchivePlatform
@testable import ArchiveStore

/// A directory tree in memory: nodes (files with their bytes, directories) and the names that reach them
/// (absolute paths below `root`). Captured from the real files before an operation, changed by the recorded
/// calls a crash state keeps, and written out to a fresh directory for the engines to open.
struct CrashImage: Hashable {
    enum Node: Hashable {
        case file([UInt8])
        case directory
    }

    let root: String
    var nodes: [Int: Node] = [:]
    var names: [String: Int] = [:]

    /// The tree below `root` as it is on disk (taken as durable: what a test set up before the operation),
    /// with each file's inode number and its node, for the recorder.
    static func capture(_ root: String) throws -> (image: CrashImage, inodes: [UInt64: Int]) {
        var image = CrashImage(root: root)
        var inodes: [UInt64: Int] = [:]
        func add(_ path: String) throws {
            guard let info = try Kernel.status(atPath: path) else { return }
            let node = inodes[info.inode] ?? (inodes.count + 1)
            inodes[info.inode] = node
            image.names[path] = node
            if info.isDirectory {
                image.nodes[node] = .directory
                for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() { try add(path + "/" + name) }
            } else if info.isRegularFile {
                image.nodes[node] = .file([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            }
        }
        try add(root)
        return (image, inodes)
    }

    static func parent(_ path: String) -> String { PathName.directory(of: path) }

    private func isDirectory(_ path: String) -> Bool {
        guard let node = names[path] else { return false }
        return nodes[node] == .directory
    }

    // MARK: Changes

    /// Applies `call` whole.
    mutating func apply(_ call: RecordedCall) { apply(call, .kept) }

    /// Applies `call` as a crash state keeps it (see ``CrashModel/Variant``). A name change whose source or
    /// parent directory a dropped call never made is no change (the kernel would have refused it).
    mutating func apply(_ call: RecordedCall, _ variant: CrashModel.Variant) {
        switch call {
        case .create(let path, let node, let directory):
            if nodes[node] == nil { nodes[node] = directory ? .directory : .file([]) }
            guard variant == .kept, isDirectory(Self.parent(path)) else { return }
            names[path] = node
        case .write(let node, let offset, let bytes):
            guard case .file(var contents) = nodes[node] ?? .file([]) else { return }
            switch variant {
            case .dropped: return
            case .kept: Self.write(bytes[...], at: offset, into: &contents)
            case .torn(let sectors):
                let end = min(bytes.count, (offset / CrashModel.sector + sectors) * CrashModel.sector - offset)
                Self.write(bytes[0..<end], at: offset, into: &contents)
            case .zeroed:
                // The file grew, its new bytes never came: zeros past the old end, the old bytes before it.
                if offset + bytes.count > contents.count {
                    contents += [UInt8](repeating: 0, count: offset + bytes.count - contents.count)
                }
            }
            nodes[node] = .file(contents)
        case .truncate(let node, let size):
            guard variant == .kept, case .file(var contents) = nodes[node] ?? .file([]) else { return }
            if size < contents.count { contents.removeSubrange(size...) } else { contents += [UInt8](repeating: 0, count: size - contents.count) }
            nodes[node] = .file(contents)
        case .syncFile, .syncDirectory:
            return
        case .rename(let from, let to):
            guard variant == .kept, let node = names[from], isDirectory(Self.parent(to)) else { return }
            names[from] = nil
            names[to] = node
            if nodes[node] == .directory {
                for (name, child) in names where name.hasPrefix(from + "/") {
                    names[name] = nil
                    names[to + name.dropFirst(from.count)] = child
                }
            }
        case .link(let from, let to):
            guard variant == .kept, let node = names[from], isDirectory(Self.parent(to)) else { return }
            names[to] = node
        case .unlink(let path), .removeDirectory(let path):
            guard variant == .kept else { return }
            names[path] = nil
        }
    }

    private static func write(_ bytes: ArraySlice<UInt8>, at offset: Int, into contents: inout [UInt8]) {
        if offset > contents.count { contents += [UInt8](repeating: 0, count: offset - contents.count) }
        let overlap = min(bytes.count, contents.count - offset)
        contents.replaceSubrange(offset..<offset + overlap, with: bytes.prefix(overlap))
        contents += bytes.dropFirst(overlap)
    }

    // MARK: Output

    /// Writes the tree out below `directory` (which must not exist): the directories, then each file (a second
    /// name of one file is a hard link). Names whose parent is not in the tree are not reachable: left out.
    func materialize(into directory: String) throws {
        var written: [Int: String] = [:]
        for path in names.keys.sorted(by: { $0.count < $1.count || ($0.count == $1.count && $0 < $1) }) {
            guard let node = names[path], path == root || reachable(path) else { continue }
            let target = directory + path.dropFirst(root.count)
            switch nodes[node] {
            case .directory?:
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false,
                                                        attributes: [.posixPermissions: 0o700])
            case .file(let bytes)?:
                if let first = written[node] {
                    try FileManager.default.linkItem(atPath: first, toPath: target)
                } else {
                    guard FileManager.default.createFile(atPath: target, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                        throw StoreError(.io, "cannot write the crash state's file", path: target)
                    }
                    written[node] = target
                }
            case nil:
                continue
            }
        }
    }

    /// What ``materialize(into:)`` would write: each reachable name's node contents (two states that differ
    /// only in files no name reaches are the same state).
    var visible: [String: Node] {
        var result: [String: Node] = [:]
        for (path, node) in names where path == root || reachable(path) { result[path] = nodes[node] }
        return result
    }

    private func reachable(_ path: String) -> Bool {
        var parent = Self.parent(path)
        while parent.count >= root.count {
            if parent == root { return true }
            guard isDirectory(parent) else { return false }
            parent = Self.parent(parent)
        }
        return false
    }
}
