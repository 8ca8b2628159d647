import ArchivePlatform
import Foundation
import Testing
@testable import ArchiveStore

/// The invariants behind the package's `@unchecked Sendable` types, exercised under concurrency (and under
/// the thread sanitizer when the suite runs with `--sanitize=thread`).
@Suite("Concurrency invariants")
struct ConcurrencyInvariantTests {
    /// `Locked` (over `KernelMutex`): the state is touched only under the mutex, so concurrent changes from
    /// many threads lose nothing.
    @Test func concurrentChangesUnderTheLockLoseNothing() async {
        let counter = Locked([Int: Int]())
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<5_000 {
                        counter.withLock { $0[i % 64, default: 0] += 1 }
                        if i % 100 == 0 { _ = counter.withLockIfAvailable { $0.count } }
                    }
                    _ = worker
                }
            }
        }
        #expect(counter.withLock { $0.values.reduce(0, +) } == 8 * 5_000)
        #expect(counter.withLock { $0.count } == 64)
    }

    /// `withLockIfAvailable` never waits: while another thread holds the lock it returns `nil` at once.
    @Test func tryingABusyLockReturnsAtOnce() {
        let state = Locked(0)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            state.withLock { _ in
                held.signal()
                release.wait()
            }
        }
        holder.start()
        held.wait()
        #expect(state.withLockIfAvailable { $0 } == nil)
        release.signal()
        while state.withLockIfAvailable({ $0 }) == nil { usleep(100) }
        #expect(state.withLock { $0 } == 0)
    }

    /// `ArchiveCache` of a `Sendable` value shared by many tasks, with the memory layer on: every value read is
    /// one that was written for its key, and the counters add up (the memory layer, the disk index and the
    /// journal descriptors are each behind a lock or guard themselves).
    @Test func aSendableValuesCacheSharedByManyTasksStaysConsistent() async throws {
        let fixture = try CacheFixture()
        var options = fixture.options(countLimit: 40)
        options.memoryCostLimit = 1 << 16
        let cache = try ArchiveCache<[UInt8]>(directory: fixture.path, options: options)
        let wrong = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for i in 0..<300 {
                        let key = "k\((i * 7 + worker) % 60)"
                        if i % 3 == 0 {
                            try? cache.set(Array(key.utf8), forKey: key)
                        } else if let value = try? cache.value(forKey: key), value != Array(key.utf8) {
                            wrong.withLock { $0 += 1 }
                        }
                    }
                }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        let statistics = cache.statistics
        #expect(statistics.writes == 6 * 100)
        #expect(statistics.entryCount <= 40)
    }
}
