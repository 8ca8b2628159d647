/// A mutual-exclusion lock over a pthread mutex, allocated once and never moved (SystemCalls.swift's
/// `SystemMutex`: its storage is allocated in `init` and freed in `deinit`, and stays where it is between).
package final class KernelMutex: @unchecked Sendable { // Sendable: the mutex is what serializes its users.
    private let mutex = SystemMutex.allocate()

    package init() {}

    deinit { mutex.deallocate() }

    package func lock() { mutex.lock() }
    package func unlock() { mutex.unlock() }
    /// `true` when taken without waiting.
    package func tryLock() -> Bool { mutex.tryLock() }
}
