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

/// Stands for the Apple file attributes on a platform that has none (Linux): keeps each path's protection class
/// and backup exclusion as the engines set them, and every call made, through ``calls``. A rename is not seen:
/// an item created under a temporary name keeps its attributes under that name here.
final class AttributeRecorder: @unchecked Sendable { // Sendable: state behind a lock.
    struct State {
        var protection: [String: String] = [:]
        var excluded: [String: Bool] = [:]
        /// `set <class> <path>`, `get <path>`, `exclude <true|false> <path>`, `excluded? <path>`, in order.
        var log: [String] = []
    }
    let state = Locked(State())

    /// The recorder as the seam's attribute calls.
    var calls: any FileAttributeCalls { Calls(recorder: self) }

    private struct Calls: FileAttributeCalls {
        let recorder: AttributeRecorder
        var protects: Bool { true }
        var excludesFromBackup: Bool { true }
        func setProtection(_ protection: String, _ path: String) throws(Errno) {
            recorder.state.withLock { $0.protection[path] = protection; $0.log.append("set \(protection) \(path)") }
        }
        func protection(_ path: String) throws(Errno) -> String? {
            recorder.state.withLock { $0.log.append("get \(path)"); return $0.protection[path] }
        }
        func setExcludedFromBackup(_ excluded: Bool, _ path: String) throws(Errno) {
            recorder.state.withLock { $0.excluded[path] = excluded; $0.log.append("exclude \(excluded) \(path)") }
        }
        func isExcludedFromBackup(_ path: String) throws(Errno) -> Bool? {
            recorder.state.withLock { $0.log.append("excluded? \(path)"); return $0.excluded[path] ?? false }
        }
    }

    /// A file system that records attributes here and consults `plan` first.
    func fileSystem(plan: FileSystem.FaultPlan? = nil) -> FileSystem { FileSystem(plan: plan, attributes: calls) }

    var log: [String] { state.withLock { $0.log } }
    func clearLog() { state.withLock { $0.log.removeAll() } }
    func protection(_ path: String) -> String? { state.withLock { $0.protection[path] } }
    func isExcluded(_ path: String) -> Bool? { state.withLock { $0.excluded[path] } }
    /// The paths given a protection class, with `prefix` taken off, sorted.
    func protectedPaths(below prefix: String) -> [String] {
        state.withLock { $0.protection.keys.filter { $0.hasPrefix(prefix + "/") }.map { String($0.dropFirst(prefix.count + 1)) }.sorted() }
    }
}
