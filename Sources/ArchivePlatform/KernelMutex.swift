#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

/// A mutual-exclusion lock over a pthread mutex, allocated once and never moved.
package final class KernelMutex: @unchecked Sendable { // Sendable: the mutex is what serializes its users.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
    /// `true` when taken without waiting.
    package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }
}
