// Mirrors Sources/ArchiveStore/ArchiveStore.docc/CachingValuesOnDisk.md (see ArticleCode in TestSupport)
import ArchiveStore
import Foundation
import KeyedArchive
import Testing
import TestSupport

@Suite("Article: Caching values on disk")
struct CachingArticleTests {
    // snippet
    struct Forecast: Codable, Sendable {
        var city: String
        var highs: [Double]
    }
    // end snippet

    @Sendable func download(_ city: String) async throws -> Forecast { Forecast(city: city, highs: [21, 23]) }

    @Test func setGetExpireAndLoad() async throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.file("forecasts")
        // snippet
        var options = CacheOptions()
        options.byteLimit = 16 << 20
        options.defaultTimeToLive = .days(1)
        options.memoryCostLimit = 1 << 20
        let cache = try ArchiveCache<Forecast>(directory: directory, options: options)

        try cache.set(Forecast(city: "Paris", highs: [21, 23]), forKey: "paris")
        try cache.set(Forecast(city: "Oslo", highs: [9]), forKey: "oslo", timeToLive: .hours(1))
        let paris = try cache.value(forKey: "paris")
        // end snippet
        #expect(paris?.highs == [21, 23])
        #expect(try cache.value(forKey: "oslo")?.city == "Oslo")
        #expect(try cache.value(forKey: "rome") == nil)

        // snippet
        struct TwoHoursLater: StoreClock {
            func now() -> Date { Date().addingTimeInterval(2 * 60 * 60) }
        }
        // end snippet

        // snippet
        var later = options
        later.clock = TwoHoursLater()
        let sameDirectory = try ArchiveCache<Forecast>(directory: directory, options: later)
        let oslo = try sameDirectory.value(forKey: "oslo")
        // end snippet
        #expect(oslo == nil)
        #expect(try sameDirectory.value(forKey: "paris")?.city == "Paris")

        // snippet
        let rome = try await cache.value(forKey: "rome") { city in try await download(city) }
        print(cache.statistics)
        // end snippet
        #expect(rome.city == "rome")
        let statistics = cache.statistics
        // Three writes; Oslo's expired entry was removed by the read of the cache two hours ahead.
        #expect(statistics.writes == 3 && statistics.entryCount == 2)
        #expect(statistics.memoryHits == 2 && statistics.diskHits == 0)
        #expect(statistics.byteCount == diskUsage(of: directory))
    }

    @Test func loadOncePerKey() async throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let cache = try ArchiveCache<Forecast>(directory: temporary.file("forecasts"))
        let calls = Counter()
        async let a = cache.value(forKey: "rome") { city in
            calls.increment()
            try await Task.sleep(nanoseconds: 50_000_000)
            return Forecast(city: city, highs: [])
        }
        async let b = cache.value(forKey: "rome") { city in
            calls.increment()
            try await Task.sleep(nanoseconds: 50_000_000)
            return Forecast(city: city, highs: [])
        }
        let (first, second) = try await (a, b)
        #expect(first.city == "rome" && second.city == "rome")
        #expect(calls.value == 1)
    }

    @Test func removingAndTrimming() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        let directory = temporary.file("forecasts")
        let cache = try ArchiveCache<Forecast>(directory: directory)
        for i in 0..<200 { try cache.set(Forecast(city: "c\(i)", highs: Array(repeating: 20, count: 100)), forKey: "c\(i)") }
        // snippet
        try cache.removeValue(forKey: "paris")
        let expired = try cache.removeExpired()
        try cache.trim(toByteLimit: 128 << 10)
        // end snippet
        #expect(expired == 0)
        #expect(diskUsage(of: directory) <= 128 << 10)
        #expect(cache.statistics.entryCount < 200)
    }

    @Test func tooSmallALimitIsRefused() throws {
        let temporary = try TemporaryDirectory(prefix: "article")
        defer { temporary.remove() }
        var options = CacheOptions()
        options.byteLimit = 4096
        let refused = #expect(throws: StoreError.self) {
            try ArchiveCache<Forecast>(directory: temporary.file("forecasts"), options: options)
        }
        #expect(refused?.code == .invalidArgument)
    }

    @Test func theStandardDirectory() throws {
        // snippet
        let path = try ArchiveCache<Forecast>.standardDirectory(named: "com.example.weather")
        // end snippet
        #expect(path.hasSuffix("/com.example.weather"))
        #expect(try UserDirectories.standard(.caches, named: "w", appGroup: nil, environment: ["HOME": "/home/ada"]) == "/home/ada/.cache/w")
    }

    @Test func inAnAppGroup() throws {
        // snippet
        var shared = CacheOptions()
        shared.memoryCostLimit = 8 << 20
        shared.fileProtection = .completeUntilFirstUserAuthentication   // the default
        do {
            let directory = try ArchiveCache<Forecast>.standardDirectory(named: "forecasts", appGroup: "group.com.example.weather")
            let forecasts = try ArchiveCache<Forecast>(directory: directory, options: shared)
            forecasts.trimMemory()
        } catch {
            // not entitled to the group, or a platform without app groups (Linux)
            guard StoreError.Code.noDataDirectory ~= error else { throw error }
        }
        // end snippet
        // A test process is entitled to no app group, and Linux has none: the catch above is what ran.
        let refused = #expect(throws: StoreError.self) {
            try ArchiveCache<Forecast>.standardDirectory(named: "forecasts", appGroup: "group.com.example.weather")
        }
        #expect(refused?.code == .noDataDirectory)
        #expect(shared.excludedFromBackup)
        #expect(shared.memoryCostLimit == 8 << 20)
    }
}

/// A count that tasks share.
final class Counter: @unchecked Sendable { // Sendable: `count` behind a lock.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
