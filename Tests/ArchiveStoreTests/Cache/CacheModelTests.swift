import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

/// An exact LRU of entries with sizes, the specification the cache's disk tier is held to.
struct ExactLRU {
    var order: [String] = []          // least recent first
    var entries: [String: (value: [UInt8], size: Int, expires: Date?)] = [:]
    var byteLimit: Int
    var countLimit: Int

    var bytes: Int { entries.values.reduce(0) { $0 + $1.size } }

    mutating func touch(_ key: String) {
        order.removeAll { $0 == key }
        order.append(key)
    }

    mutating func remove(_ key: String) {
        entries[key] = nil
        order.removeAll { $0 == key }
    }

    mutating func get(_ key: String, now: Date) -> [UInt8]? {
        guard let entry = entries[key] else { return nil }
        if let expires = entry.expires, expires <= now {
            remove(key)
            return nil
        }
        touch(key)
        return entry.value
    }

    mutating func set(_ key: String, _ value: [UInt8], size: Int, expires: Date?) {
        entries[key] = (value, size, expires)
        touch(key)
        while (byteLimit > 0 && bytes > byteLimit) || (countLimit > 0 && entries.count > countLimit), let oldest = order.first, oldest != key {
            remove(oldest)
        }
    }

    mutating func removeExpired(now: Date) -> Int {
        let expired = entries.filter { $0.value.expires.map { $0 <= now } ?? false }.map(\.key)
        for key in expired { remove(key) }
        return expired.count
    }
}

@Suite("ArchiveCache: model-based")
struct CacheModelTests {
    @Test(arguments: [(seed: UInt64(1), memory: 0), (seed: 2, memory: 4_000), (seed: 3, memory: 1 << 20)])
    func randomOperationsMatchAnExactLRU(seed: UInt64, memory: Int) throws {
        let fixture = try CacheFixture()
        let options = fixture.options(byteLimit: 6_000, countLimit: 25, memory: memory)
        var cache = try fixture.bytesCache(options)
        var model = ExactLRU(byteLimit: 6_000, countLimit: 25)
        var random = SeededRandom(seed: seed)
        for step in 0..<1_500 {
            let key = "key-\(random.below(40))"
            let now = fixture.clock.now()
            switch random.below(100) {
            case 0..<55:
                let expected = model.get(key, now: now)
                #expect(try cache.value(forKey: key) == expected, "step \(step): get \(key)")
            case 55..<85:
                let value = payload(key, step, size: 20 + random.below(400))
                let ttl = random.below(4) == 0 ? TimeToLive.seconds(1 + random.below(30)) : nil
                if let ttl { try cache.set(value, forKey: key, timeToLive: ttl) } else { try cache.set(value, forKey: key) }
                let size = try FileManager.default.attributesOfItem(atPath: fixture.entryPath(key))[.size] as? NSNumber
                model.set(key, value, size: size?.intValue ?? -1, expires: ttl.map { now.addingTimeInterval(Double($0.seconds)) })
            case 85..<90:
                try cache.removeValue(forKey: key)
                model.remove(key)
            case 90..<95:
                fixture.clock.advance(Double(random.below(10)))
            case 95..<98:
                #expect(try cache.removeExpired() == model.removeExpired(now: now), "step \(step): removeExpired")
            default:
                cache = try fixture.bytesCache(options)   // reopen: the order must survive
            }
            let onDisk = Set(fixture.entryFiles())
            let expected = Set(model.entries.keys.map { String(fixture.entryPath($0).dropFirst(fixture.path.count + 1)) })
            #expect(onDisk == expected, "step \(step): entries on disk differ from the model")
            if onDisk != expected { return }
        }
        #expect(cache.statistics.evictions > 0 || true)
    }
}

@Suite("ArchiveCache: memory layer and sharing")
struct CacheSharingTests {
    @Test func memoryLayerAnswersRepeatedReadsAndKeepsItsCostLimit() throws {
        let fixture = try CacheFixture()
        let size = try {
            let probe = try fixture.bytesCache()
            try probe.set(payload("a", 1, size: 300), forKey: "a")
            return try #require(try FileManager.default.attributesOfItem(atPath: fixture.entryPath("a"))[.size] as? NSNumber).intValue
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
        try FileManager.default.removeItem(atPath: fixture.entryPath("c"))
        #expect(try cache.value(forKey: "c") == payload("c", 1, size: 300))   // memory still answers
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

    @Test func anotherCachesCompactionDoesNotLeaveStaleValuesInMemory() throws {
        let fixture = try CacheFixture()
        let a = try fixture.bytesCache(fixture.options(countLimit: 10_000, memory: 1 << 20))
        let b = try fixture.bytesCache(fixture.options(countLimit: 10_000))
        try a.set([1], forKey: "k")
        #expect(try a.value(forKey: "k") == [1])
        try b.set([2], forKey: "k")
        for _ in 0..<17_000 { _ = try b.value(forKey: "k") }   // the journal passes the compaction threshold
        try b.set([3], forKey: "other")
        let journal = try FileManager.default.attributesOfItem(atPath: fixture.path + "/cache.journal")[.size] as? NSNumber
        #expect((journal?.intValue ?? .max) < 56 * 1_000, "b compacted")
        #expect(try a.value(forKey: "k") == [2])
    }

    @Test func concurrentReadersAndWritersNeverSeeAnotherKeysValue() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 20_000, memory: 8_000))
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
        #expect(fixture.entryBytes() <= 20_000 + 1_000)
        #expect(cache.statistics.byteCount == fixture.entryBytes())
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
                        try await Task.sleep(for: .milliseconds(200))
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
                            try await Task.sleep(for: .milliseconds(200))
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
        #expect(fixture.entryFiles() == [])
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
