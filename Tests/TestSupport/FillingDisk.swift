import ArchivePlatform
import ArchiveStore
import Foundation

/// A disk that fills up at one write: the `fullAt`th write (counting writes only) stores a few bytes and fails
/// with `ENOSPC`, and every write after it fails with `ENOSPC` at once, as a full disk does. Other calls run
/// (cutting a file needs no room). `fullAt: nil` is a disk with room.
package final class FillingDisk: @unchecked Sendable { // Sendable: state behind a lock.
    private let state = Locked<(writes: Int, fullAt: Int?, filled: String?)>((0, nil, nil))
    /// How many bytes the write that fills the disk stores.
    package let shortBy: Int

    package init(shortBy: Int = 7) { self.shortBy = shortBy }

    /// Starts counting writes again; the `fullAt`th fills the disk.
    package func arm(fullAt: Int?) { state.withLock { $0 = (0, fullAt, nil) } }

    /// The path of the write that filled the disk, once one did.
    package var filled: String? { state.withLock { $0.filled } }
    /// The writes so far.
    package var writes: Int { state.withLock { $0.writes } }

    package var fileSystem: FileSystem {
        FileSystem { [self, shortBy] call, path in
            guard call == .write else { return nil }
            return state.withLock { state -> FileSystem.Fault? in
                state.writes += 1
                guard let fullAt = state.fullAt, state.writes >= fullAt else { return nil }
                if state.writes == fullAt {
                    state.filled = path
                    return .shortWrite(shortBy)
                }
                return .error(ENOSPC)
            }
        }
    }
}
