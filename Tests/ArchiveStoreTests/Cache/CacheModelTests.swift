import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

/// What a cache may answer, whatever it evicted: for each key the last value set (with its expiry), or
/// nothing when it was removed or expired. A cache may lose an entry, never answer another value.
struct CacheModel {
    var entries: [String: (value: [UInt8], expires: Date?)] = [:]

    func allows(_ answer: [UInt8]?, for key: String, now: Date) -> Bool {
        guard let answer else { return true }
        guard let entry = entries[key] else { return false }
        if let expires = entry.expires, expires <= now { return false }
        return answer == entry.value
    }

    mutating func removeExpired(now: Date) {
        entries = entries.filter { $0.value.expires.map { $0 > now } ?? true }
    }
}

@Suite("ArchiveCache: model-based")
struct CacheModelTests {
    /// Random sets, reads, removals, expiries and reopenings against the model: every answer is the last value
    /// set for its key or nothing (never an older, another key's or an expired value), a value just set reads
    /// back, and the byte and count limits hold after every step as `du` counts the directory.
    @Test(arguments: [(seed: UInt64(1), memory: 0), (seed: 2, memory: 4_000), (seed: 3, memory: 1 << 20)])
    func randomOperationsNeverAnswerAnythingButTheLastValueSet(seed: UInt64, memory: Int) throws {
        let fixture = try CacheFixture()
        let byteLimit = 80 << 10
        let options = fixture.options(byteLimit: byteLimit, countLimit: 25, memory: memory)
        var cache = try fixture.bytesCache(options)
        var model = CacheModel()
        var random = SeededRandom(seed: seed)
        var hits = 0
        var evictions = 0   // over every cache object opened
        for step in 0..<1_500 {
            let key = "key-\(random.below(40))"
            let now = fixture.clock.now()
            switch random.below(100) {
            case 0..<55:
                let answer = try cache.value(forKey: key)
                #expect(model.allows(answer, for: key, now: now), "step \(step): get \(key) answered \(answer?.count ?? -1) bytes")
                if answer != nil { hits += 1 }
            case 55..<85:
                let value = payload(key, step, size: 20 + random.below(2_000))
                let ttl = random.below(4) == 0 ? TimeToLive.seconds(1 + random.below(30)) : nil
                if let ttl { try cache.set(value, forKey: key, timeToLive: ttl) } else { try cache.set(value, forKey: key) }
                model.entries[key] = (value, ttl.map { now.addingTimeInterval(Double($0.seconds)) })
                #expect(try cache.value(forKey: key) == value, "step \(step): a value just set reads back")
            case 85..<90:
                try cache.removeValue(forKey: key)
                model.entries[key] = nil
            case 90..<95:
                fixture.clock.advance(Double(random.below(10)))
            case 95..<98:
                _ = try cache.removeExpired()
                model.removeExpired(now: now)
            default:
                evictions += cache.statistics.evictions
                cache = try fixture.bytesCache(options)   // reopen
            }
            let statistics = cache.statistics
            #expect(statistics.entryCount <= 25, "step \(step)")
            #expect(fixture.diskUsage() <= byteLimit, "step \(step): \(fixture.diskUsage()) bytes on disk")
        }
        #expect(hits > 100)
        #expect(evictions + cache.statistics.evictions > 0)
    }
}

@Suite("ArchiveCache: memory layer and sharing")
struct CacheSharingTests {
    @Test func memoryLayerAnswersRepeatedReadsAndKeepsItsCostLimit() throws {
        let fixture = try CacheFixture()
        let size = try {
            let probe = try fixture.bytesCache()
            try probe.set(payload("a", 1, size: 300), forKey: "a")
            return try #require(try probe.archivedEntry(forKey: "a")).count
        }()
        let cache = try fixture.bytesCache(fixture.options(memory: 2 * size + size / 2))   // room for two entries
        try cache.set(payload("a", 1, size: 300), forKey: "a")
        try cache.set(payload("b", 1, size: 300), forKey: "b")
        for _ in 0..<3 { #expect(try cache.value(forKey: "a") == payload("a", 1, size: 300)) }
        var statistics = cache.statistics
        #expect(statistics.memoryHits == 3)
        #expect(statistics.diskHits == 0)
        try cache.set(payload("c", 1, size: 300), forKey: "c")   // b is now the least recent in memory: dropped
        #expect(try cache.value(forKey: "b") == payload("b", 1, size: 300))
        statistics = cache.statistics
        #expect(statistics.diskHits == 1, "\(statistics)")
        #expect(statistics.memoryHits == 3)
        #expect(try cache.value(forKey: "c") == payload("c", 1, size: 300))   // from memory
        #expect(cache.statistics.memoryHits == 4)
    }

    @Test func classValuesFromMemoryAreTheSameInstance() throws {
        let fixture = try CacheFixture()
        let cache = try ArchiveCache<Drawing>(directory: fixture.path, registry: ClassRegistry([Drawing.self]),
                                              options: fixture.options(memory: 1 << 20))
        try cache.set(Drawing(title: "t", strokes: [1]), forKey: "d")
        let first = try #require(try cache.value(forKey: "d"))
        let second = try #require(try cache.value(forKey: "d"))
        #expect(first === second)
        let uncached = try ArchiveCache<Drawing>(directory: fixture.path, registry: ClassRegistry([Drawing.self]),
                                                 options: fixture.options())
        let third = try #require(try uncached.value(forKey: "d"))
        #expect(third !== first && third == first)
    }

    @Test func anotherCachesChangesAreSeenBeforeTheMemoryLayerAnswers() throws {
        let fixture = try CacheFixture()
        let a = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        let b = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        try a.set([1], forKey: "k")
        #expect(try a.value(forKey: "k") == [1])
        try b.set([2], forKey: "k")
        #expect(try a.value(forKey: "k") == [2])
        try b.removeValue(forKey: "k")
        #expect(try a.value(forKey: "k") == nil)
        try a.set([3], forKey: "j")
        #expect(try a.value(forKey: "j") == [3])
        try b.removeAll()
        #expect(try a.value(forKey: "j") == nil)
    }

    /// Another cache's eviction (and the table growing under it) never leaves a stale value in memory.
    @Test func anotherCachesEvictionAndGrowthDoNotLeaveStaleValuesInMemory() throws {
        let fixture = try CacheFixture()
        let a = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        let b = try fixture.bytesCache(fixture.options(countLimit: 50))
        try a.set([1], forKey: "k")
        #expect(try a.value(forKey: "k") == [1])
        for i in 0..<400 { try b.set([UInt8(truncatingIfNeeded: i)], forKey: "other-\(i)") }   // evicts k, grows the table
        #expect(try a.value(forKey: "k") == nil)
        try b.set([2], forKey: "k")
        #expect(try a.value(forKey: "k") == [2])
    }

    @Test func concurrentReadersAndWritersNeverSeeAnotherKeysValue() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 96 << 10, memory: 8_000))
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(worker))
                    var wrong = 0
                    for step in 0..<300 {
                        let key = "k\(random.below(30))"
                        if random.below(3) == 0 {
                            try? cache.set(payload(key, step * 10 + worker, size: 200), forKey: key)
                        } else if let value = try? cache.value(forKey: key),
                                  !value.starts(with: Array("\(key)#".utf8)) {
                            wrong += 1
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(fixture.diskUsage() <= 96 << 10)
        #expect(cache.statistics.byteCount == fixture.diskUsage())
    }
}

@Suite("ArchiveCache: get or load")
struct CacheLoaderTests {
    actor Calls {
        var count = 0
        func increment() { count += 1 }
    }

    struct LoadFailed: Error, Equatable { let id: Int }

    @Test func oneHundredConcurrentCallersRunTheLoaderOnce() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        let calls = Calls()
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await cache.value(forKey: "k") { key in
                        await calls.increment()
                        try await Task.sleep(nanoseconds: 200_000_000)
                        return payload(key, 1)
                    }
                }
            }
            var all: [[UInt8]] = []
            for try await value in group { all.append(value) }
            return all
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0 == payload("k", 1) })
        #expect(await calls.count == 1)
        #expect(try cache.value(forKey: "k") == payload("k", 1))
    }

    @Test func aThrowingLoaderStoresNothingAndEveryWaiterGetsItsError() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        let calls = Calls()
        let outcomes = await withTaskGroup(of: Result<[UInt8], LoadFailed>.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do {
                        return .success(try await cache.value(forKey: "k") { _ in
                            await calls.increment()
                            try await Task.sleep(nanoseconds: 200_000_000)
                            throw LoadFailed(id: 42)
                        })
                    } catch let error as LoadFailed {
                        return .failure(error)
                    } catch {
                        return .failure(LoadFailed(id: -1))
                    }
                }
            }
            var all: [Result<[UInt8], LoadFailed>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.count == 100)
        #expect(outcomes.allSatisfy { $0 == .failure(LoadFailed(id: 42)) })
        #expect(await calls.count == 1)
        #expect(try cache.value(forKey: "k") == nil)
        #expect(cache.statistics.entryCount == 0)
    }

    @Test func aPresentValueIsReturnedWithoutLoading() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([5], forKey: "k")
        let value = try await cache.value(forKey: "k") { _ in
            Issue.record("the loader ran for a present key")
            return [0]
        }
        #expect(value == [5])
    }
}
