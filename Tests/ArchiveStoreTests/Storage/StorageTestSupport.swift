import ArchivePlatform
import Foundation
@testable import ArchiveStore

/// A file system that fails every call of one kind on paths that end with a suffix, with one `errno`.
func failing(_ call: FileSystem.Call, on suffix: String = "", errno: Int32 = EIO) -> FileSystem {
    FileSystem { kind, path in kind == call && path.hasSuffix(suffix) ? .error(errno) : nil }
}

/// Records the calls made through a file system.
final class CallLog: @unchecked Sendable { // Sendable: state behind a lock.
    private let recorded = Locked<[(FileSystem.Call, String)]>([])

    var calls: [(FileSystem.Call, String)] { recorded.withLock { $0 } }
    func clear() { recorded.withLock { $0.removeAll() } }

    var fileSystem: FileSystem {
        FileSystem { [self] call, path in
            recorded.withLock { $0.append((call, path)) }
            return nil
        }
    }

    /// The calls so far, as `call path` lines.
    var lines: [String] { calls.map { "\($0.0.rawValue) \($0.1)" } }

    /// The kinds of call made so far, each once.
    var kinds: Set<FileSystem.Call> { Set(calls.map(\.0)) }
}
