/// A value behind a mutex, reached only through ``withLock(_:)``.
///
/// `State` need not be `Sendable` itself: it never leaves the lock except as what a closure returns, and the
/// closures run one at a time. Callers that return parts of `State` across threads must make sure those parts
/// are safe to share (values, or `Sendable` references).
///
/// Mirrors `OSAllocatedUnfairLock<State>` and Swift's `Mutex<Value>` (which need macOS 13 and 15).
package final class Locked<State>: @unchecked Sendable { // Sendable: `state` is only touched while `mutex` is held.
    /// Not checked for exclusive access at run time: the mutex makes every access exclusive (a body that
    /// reached `withLock` again on the same value would wait on itself, never overlap).
    @exclusivity(unchecked) private var state: State
    private let mutex = KernelMutex()

    package init(_ state: State) { self.state = state }

    /// Runs `body` with the state, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&state)
    }

    /// Runs `body` when the lock is free now; `nil` without waiting when another thread holds it.
    package func withLockIfAvailable<Result>(_ body: (inout State) -> Result) -> Result? {
        guard mutex.tryLock() else { return nil }
        defer { mutex.unlock() }
        return body(&state)
    }
}
