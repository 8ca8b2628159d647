import ArchivePlatform
import Foundation
import Testing
@testable import ArchiveStore

/// The invariants behind the store's `@unchecked Sendable` types, exercised under concurrency (and under
/// the thread sanitizer when the suite runs with `--sanitize=thread`). `Locked` itself is in ArchivePlatformTests.
@Suite("Concurrency invariants")
struct ConcurrencyInvariantTests {
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
