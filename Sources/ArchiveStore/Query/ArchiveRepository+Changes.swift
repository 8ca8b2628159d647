import ArchivePlatform
import Dispatch

/// One subscriber of ``ArchiveRepository/changes()``.
final class ChangeObserver: Sendable {
    let continuation: AsyncStream<RepositoryChange>.Continuation
    /// Set when a change was dropped because the subscriber fell behind: a reload is owed.
    let owesReload = Locked(false)

    init(_ continuation: AsyncStream<RepositoryChange>.Continuation) { self.continuation = continuation }

    func send(_ change: RepositoryChange) {
        owesReload.withLock { owes in
            if owes {
                guard case .enqueued = continuation.yield(.reload) else { return }
                owes = false
                return   // the reload covers this change
            }
            if case .dropped = continuation.yield(change) { owes = true }
        }
    }
}

/// The watcher of other processes' commits, one per repository object while it has observers.
struct ChangeWatcher {
    var running = false
    var nextID: UInt64 = 0
}

extension ArchiveRepository {
    /// Commits to the store, as they happen: one ``RepositoryChange`` per commit this object sees (the ids
    /// added, updated and removed, or a reload). Commits made through this object arrive at once; commits of
    /// other processes (an app extension or widget on an app-group store, another command-line process) and of
    /// other repository objects arrive when the file changes: a thread asleep in the kernel (inotify on Linux,
    /// kqueue on Apple platforms) wakes, reads the commit slots and sends what changed. Where the file cannot
    /// be watched, the slots are read every 50 ms.
    ///
    /// No lock is held while waiting (an app suspended in the background holds no file lock). The sequence
    /// ends when the task iterating it is cancelled; iterate it from a SwiftUI `.task` or any actor:
    ///
    /// ```swift
    /// for await change in exercises.changes() {
    ///     if change.isReload || !change.added.isEmpty { reloadList() }
    /// }
    /// ```
    ///
    /// A subscriber that falls more than 256 changes behind gets a reload in place of those it missed.
    ///
    /// Mirrors Realm's `observe(_:)`, `NSPersistentStoreRemoteChange` notifications and GRDB's
    /// `DatabaseRegionObservation`.
    public func changes() -> AsyncStream<RepositoryChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: RepositoryChange.self, bufferingPolicy: .bufferingOldest(256))
        let id = watcher.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        changeObservers.withLock { $0[id] = ChangeObserver(continuation) }
        // The stream keeps the repository (and so its watcher) alive while it is iterated: its end (the
        // iterating task cancelled, or the stream let go) removes the observer, which lets them both go.
        continuation.onTermination = { _ in
            self.changeObservers.withLock { _ = $0.removeValue(forKey: id) }
        }
        // From here on the handle's commits are followed (the store read once, if it exists); a handle opened
        // later (the store made, replaced or rewritten) is a reload.
        _ = try? withStore { _ throws(StoreError) in }
        reader.withLock { $0.followedOnce = true }
        startWatching()
        return stream
    }

    /// The result of `query`, now and again after every commit that changes it (compared with the last result
    /// sent; a commit that leaves it as it was sends nothing). A read that fails ends the sequence.
    ///
    /// ```swift
    /// for await top in exercises.observe(RecordQuery().sorted(by: \.recordCount, ascending: false).limit(10)) {
    ///     show(top)
    /// }
    /// ```
    ///
    /// Mirrors Realm's `Results.observe`, SwiftData's `@Query` and GRDB's `ValueObservation`.
    public func observe(_ query: RecordQuery<Record>) -> AsyncThrowingStream<[Record], any Error> where Record: Sendable & Equatable {
        let changes = changes()
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var last = try records(matching: query)
                    continuation.yield(last)
                    for await _ in changes {
                        let now = try records(matching: query)
                        if now != last {
                            last = now
                            continuation.yield(now)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Sends `change` to every observer.
    func deliver(_ change: RepositoryChange) {
        guard !change.isEmpty else { return }
        let observers = changeObservers.withLock { Array($0.values) }
        for observer in observers { observer.send(change) }
    }

    /// Starts the thread that waits for the file to change, unless it runs: it reads the slots after each change
    /// (bringing the handle up to date, which delivers what changed) and stops once no observer is left.
    func startWatching() {
        let start = watcher.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        let directory = PathName.directory(of: path)
        let name = PathName.lastComponent(of: path)
        DispatchQueue.global(qos: .utility).async { [weak self] in
            var watch = FileWatch(directory: directory, name: name)
            var polls = 0
            while true {
                // Without a watch (no directory yet: the first write makes it), the slots are read every 50 ms
                // and a watch tried again every second.
                if !watch.isWatching {
                    polls += 1
                    if polls % 20 == 0 { watch = FileWatch(directory: directory, name: name) }
                }
                // A timeout reads the slots too: a change a watch missed (a directory made after it) is seen.
                _ = watch.wait(milliseconds: watch.isWatching ? 1000 : 50)
                guard let repository = self else { return }
                let done = repository.watcher.withLock { state -> Bool in
                    if repository.changeObservers.withLock({ $0.isEmpty }) {
                        state.running = false
                        return true
                    }
                    return false
                }
                if done { return }
                _ = try? repository.withStore { _ throws(StoreError) in }
            }
        }
    }
}
