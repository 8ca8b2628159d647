import ArchivePlatform
import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

/// What the cache does when memory or disk runs short, and what it never holds while it waits.
@Suite("ArchiveCache: memory and disk pressure")
struct CachePressureTests {
    @Test func trimMemoryEmptiesTheMemoryLayerAndKeepsTheEntriesOnDisk() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        try cache.set([1, 2, 3], forKey: "a")
        #expect(try cache.value(forKey: "a") == [1, 2, 3])
        #expect(cache.statistics.memoryHits == 1)
        cache.trimMemory()
        #expect(try cache.value(forKey: "a") == [1, 2, 3])
        let after = cache.statistics
        #expect(after.memoryHits == 1)
        #expect(after.diskHits == 1)
        #expect(try cache.value(forKey: "a") == [1, 2, 3])
        #expect(cache.statistics.memoryHits == 2)   // read from disk once, then kept in memory again
    }

    /// A fixture of `count` entries of about 1 KiB under a byte limit of 1 MiB (segments of 32 KiB), and the
    /// keys in the order written.
    private func filled(_ fixture: CacheFixture, count: Int, fileSystem: FileSystem) throws -> (ArchiveCache<[UInt8]>, [String]) {
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20), fileSystem: fileSystem)
        let keys = (0..<count).map { "k\($0)" }
        for (i, key) in keys.enumerated() { try cache.set([UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 1_000), forKey: key) }
        return (cache, keys)
    }

    /// The disk fills up in the middle of a set while the cache holds entries: the oldest segment is evicted
    /// whole (nothing carried forward), and the set is tried once more and succeeds.
    @Test func aSetThatMeetsAFullDiskEvictsTheOldestEntriesAndSucceeds() throws {
        let fixture = try CacheFixture()
        let full = Locked(false)
        let fileSystem = FileSystem { call, path in
            full.withLock { isFull in
                guard isFull, call == .write, path.hasSuffix(".seg") else { return nil }
                isFull = false   // the first write is refused; then the eviction has made room
                return .shortWrite(100)
            }
        }
        let (cache, keys) = try filled(fixture, count: 100, fileSystem: fileSystem)
        let segmentsBefore = fixture.segmentFiles()
        #expect(segmentsBefore.count >= 3)
        let before = cache.statistics
        full.withLock { $0 = true }
        try cache.set([UInt8](repeating: 0xEE, count: 1_000), forKey: "new")
        #expect(try cache.value(forKey: "new") == [UInt8](repeating: 0xEE, count: 1_000))
        // The evicted ones are exactly the oldest keys, and every other entry reads back exactly.
        let missing = try keys.filter { try cache.value(forKey: $0) == nil }
        #expect(!missing.isEmpty)
        #expect(missing == Array(keys.prefix(missing.count)))
        for (i, key) in keys.enumerated() where !missing.contains(key) {
            #expect(try cache.value(forKey: key) == [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 1_000))
        }
        let after = cache.statistics
        #expect(after.evictions - before.evictions == missing.count)
        #expect(after.entryCount == keys.count - missing.count + 1)
        #expect(!fixture.segmentFiles().contains(segmentsBefore[0]))
    }

    /// A disk that stays full: after one retry the set fails with the full disk's error, and every entry that
    /// was not evicted to make room still reads back.
    @Test func aDiskThatStaysFullFailsTheSetAfterOneRetry() throws {
        let fixture = try CacheFixture()
        let full = Locked(false)
        let refusals = Locked(0)
        let fileSystem = FileSystem { call, path in
            guard full.withLock({ $0 }), call == .write, path.hasSuffix(".seg") else { return nil }
            refusals.withLock { $0 += 1 }
            return .error(ENOSPC)
        }
        let (cache, keys) = try filled(fixture, count: 100, fileSystem: fileSystem)
        full.withLock { $0 = true }
        let error = #expect(throws: StoreError.self) { try cache.set([1], forKey: "new") }
        #expect(error?.code == .io)
        #expect(error?.errno == ENOSPC)
        #expect(refusals.withLock { $0 } == 2)
        full.withLock { $0 = false }
        #expect(try cache.value(forKey: "new") == nil)
        let kept = try keys.filter { try cache.value(forKey: $0) != nil }
        #expect(kept == Array(keys.suffix(kept.count)))
        #expect(!kept.isEmpty)
    }

    /// With nothing to evict, a full disk fails the set at once, and the cache stays usable.
    @Test func aFullDiskWithAnEmptyCacheFailsTheSet() throws {
        let fixture = try CacheFixture()
        let full = Locked(true)
        let fileSystem = FileSystem { call, path in
            full.withLock { $0 } && call == .write && path.hasSuffix(".seg") ? .error(ENOSPC) : nil
        }
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20), fileSystem: fileSystem)
        let error = #expect(throws: StoreError.self) { try cache.set([1], forKey: "k") }
        #expect(error?.errno == ENOSPC)
        #expect(cache.statistics.evictions == 0)
        full.withLock { $0 = false }
        try cache.set([2], forKey: "k")
        #expect(try cache.value(forKey: "k") == [2])
    }

    /// While a get-or-load waits for its loader (a suspension point), the directory's lock is free: another
    /// process, or an app's extension, can write, and an app suspended there holds no file lock (`0xdead10cc`).
    @Test func noLockIsHeldWhileALoaderIsSuspended() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([0], forKey: "other")
        let gate = Gate()
        let load = Task { try await cache.value(forKey: "k") { _ in await gate.wait(); return [4, 2] } }
        await gate.waitUntilSomeoneWaits()
        let lock = try WriterLock(path: fixture.path + "/" + CacheDirectory.lockName, fileSystem: .kernel)
        #expect(try lock.acquire(exclusive: true, waiting: .never) == true)
        lock.release()
        let other = try fixture.bytesCache()
        try other.set([1], forKey: "other")   // another cache object writes meanwhile
        await gate.open()
        #expect(try await load.value == [4, 2])
        #expect(try cache.value(forKey: "other") == [1])
    }
}

/// A one-time gate for a suspended task.
private actor Gate {
    private var waiter: CheckedContinuation<Void, Never>?
    private var watchers: [CheckedContinuation<Void, Never>] = []
    private var opened = false

    func wait() async {
        guard !opened else { return }
        await withCheckedContinuation { continuation in
            waiter = continuation
            for watcher in watchers { watcher.resume() }
            watchers.removeAll()
        }
    }

    func waitUntilSomeoneWaits() async {
        guard waiter == nil else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    func open() {
        opened = true
        waiter?.resume()
        waiter = nil
    }
}
