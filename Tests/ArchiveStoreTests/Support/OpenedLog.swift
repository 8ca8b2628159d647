@testable import ArchiveStore

/// The state of the log at `path` as a reader that opens it finds it (the newest commit, through the chain
/// past the checkpoint in the commit slots, a last commit with no tail slot taken as a writer takes it): where
/// the next commit's frames go is its `committed`.
func openedLogState(_ path: String) throws -> LogState {
    guard case .log(let handle) = try StoreHandle.open(path, fileSystem: .kernel, counters: StoreCounters(), unpublished: .held)
    else { throw StoreError(.notFound, "no record log", path: path) }
    return handle.state
}
