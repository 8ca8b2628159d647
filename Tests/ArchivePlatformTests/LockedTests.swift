import ArchivePlatform
import Foundation
import Testing

/// `Locked` and `KernelMutex`, under concurrency (and under the thread sanitizer when the suite runs with
/// `--sanitize=thread`).
@Suite("Locked")
struct LockedTests {
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
}
