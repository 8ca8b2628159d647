import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// A power cut at any point of any cache operation, in every state the crash model allows (see
/// ``CrashModel``), under both durabilities. Every state opens and takes the next write. `.synchronous`: no
/// acknowledged entry is lost (an entry the operation did not change reads as it was; one it changed reads as
/// before or after, and after once it returned; a removed or evicted one is gone or as before). `.relaxed`: an
/// entry is missing or holds bytes that were written for its key, never other bytes.
@Suite("ArchiveCache: power cuts")
struct CacheCrashTests {
    enum Operation: String, CaseIterable {
        case setIntoAnEmptyCache, setSmall, setLarge, replace, replaceLarge, replaceLargeWithSmall, remove, setEvictingByCount,
             trimCarryingTheOldestSegment, setGrowingTheTable, removeExpired
    }

    struct Scenario: CustomTestStringConvertible {
        var operation: Operation
        var durability: Durability
        var testDescription: String { "\(operation.rawValue), \(durability)" }
    }

    static let scenarios = Operation.allCases.flatMap { operation in
        [Durability.synchronous, .relaxed].map { Scenario(operation: operation, durability: $0) }
    }

    static let large = 70 << 10

    static func options(_ scenario: Scenario, clock: ManualClock) -> CacheOptions {
        var options = CacheOptions()
        options.durability = scenario.durability
        options.clock = clock
        options.memoryCostLimit = 0
        if scenario.operation == .setEvictingByCount { options.countLimit = 5 }
        if scenario.operation == .trimCarryingTheOldestSegment { options.byteLimit = 400_000 }   // 16 KiB segments
        return options
    }

    static func cache(_ root: String, _ scenario: Scenario, clock: ManualClock, _ fileSystem: FileSystem = .kernel) throws -> ArchiveCache<[UInt8]> {
        try ArchiveCache<[UInt8]>(directory: root + "/cache", registry: .standard, options: options(scenario, clock: clock),
                                  fileSystem: fileSystem, keyHash: { StableHash($0.utf8) })
    }

    /// The keys the setup writes, with their values.
    static func setUp(_ scenario: Scenario, _ cache: ArchiveCache<[UInt8]>) throws -> [String: [UInt8]] {
        var values: [String: [UInt8]] = [:]
        func set(_ key: String, _ value: [UInt8], ttl: TimeToLive = .hours(1)) throws {
            try cache.set(value, forKey: key, timeToLive: ttl)
            values[key] = value
        }
        switch scenario.operation {
        case .setIntoAnEmptyCache:
            _ = try cache.entries()
        case .setGrowingTheTable:
            for i in 0..<179 { try set("k\(i)", payload("k\(i)", 0, size: 16)) }
        case .trimCarryingTheOldestSegment:
            for i in 0..<12 { try set("k\(i)", payload("k\(i)", 0, size: 3_000)) }
            for i in 0..<4 { try set("k\(i)", payload("k\(i)", 1, size: 3_000)) }   // dead frames in the oldest segment
        default:
            for i in 0..<5 { try set("k\(i)", payload("k\(i)", 0), ttl: i == 4 ? .seconds(30) : .hours(1)) }
            if scenario.operation == .replaceLarge || scenario.operation == .replaceLargeWithSmall {
                try set("big", payload("big", 0, size: large))
            }
        }
        return values
    }

    /// Runs the operation; returns the values it writes (for the relaxed promise).
    static func perform(_ scenario: Scenario, _ cache: ArchiveCache<[UInt8]>, clock: ManualClock) throws -> [String: [UInt8]] {
        switch scenario.operation {
        case .setIntoAnEmptyCache, .setSmall, .setEvictingByCount:
            try cache.set(payload("new", 1), forKey: "new")
            return ["new": payload("new", 1)]
        case .setGrowingTheTable:
            try cache.set(payload("new", 1, size: 16), forKey: "new")
            return ["new": payload("new", 1, size: 16)]
        case .setLarge:
            try cache.set(payload("big", 1, size: large), forKey: "big")
            return ["big": payload("big", 1, size: large)]
        case .replace:
            try cache.set(payload("k1", 1), forKey: "k1")
            return ["k1": payload("k1", 1)]
        case .replaceLarge:   // by a large entry of another size: a file of its own under the other name
            try cache.set(payload("big", 1, size: large + 10_000), forKey: "big")
            return ["big": payload("big", 1, size: large + 10_000)]
        case .replaceLargeWithSmall:   // the file goes once the small entry's slot is written
            try cache.set(payload("big", 1), forKey: "big")
            return ["big": payload("big", 1)]
        case .remove:
            try cache.removeValue(forKey: "k2")
        case .trimCarryingTheOldestSegment:
            try cache.trim(toByteLimit: 30_000)
        case .removeExpired:
            clock.advance(60)
            _ = try cache.removeExpired()
        }
        return [:]
    }

    @Test(arguments: scenarios)
    func everyCrashStateOpensAndKeepsTheDurabilitysPromise(scenario: Scenario) throws {
        let clock = ManualClock()
        var before: [String: [UInt8]] = [:]
        var written: [String: [UInt8]] = [:]
        var final: [String: [UInt8]] = [:]
        var keys: [String] = []
        let report = try CrashSweep.run("cache \(scenario.testDescription)", setUp: { root in
            var setup = scenario
            setup.durability = .relaxed   // what the setup wrote is taken as durable either way
            before = try Self.setUp(scenario, try Self.cache(root, setup, clock: clock))
        }, operate: { root, fileSystem in
            written = try Self.perform(scenario, try Self.cache(root, scenario, clock: clock, fileSystem), clock: clock)
            keys = Array(Set(before.keys).union(written.keys)).sorted()
            let plain = try Self.cache(root, scenario, clock: clock)
            for key in keys { final[key] = try plain.value(forKey: key) }
        }, check: { root, acknowledged in
            let cache = try Self.cache(root, scenario, clock: clock)
            var problems: [String] = []
            for key in keys {
                let seen = try cache.value(forKey: key)
                let old = before[key], new = final[key]
                let fine: Bool
                if scenario.durability == .relaxed {
                    fine = seen == nil || seen == old || seen == written[key]
                } else if old == new {
                    fine = seen == old
                } else if acknowledged && new != nil {
                    fine = seen == new
                } else {
                    fine = seen == old || seen == new
                }
                if !fine {
                    problems.append("\(key) reads \(seen.map { "\($0.count) bytes \(String(decoding: $0.prefix(8), as: UTF8.self))" } ?? "nil")")
                }
            }
            try cache.set([9, 9], forKey: "next")
            let reopened = try Self.cache(root, scenario, clock: clock)
            if try reopened.value(forKey: "next") != [9, 9] { problems.append("the next write did not read back") }
            // What the byte limit is held to stays what `du` shows, whatever the power cut kept.
            if scenario.durability == .synchronous {
                let counted = reopened.statistics.byteCount, onDisk = diskUsage(of: root + "/cache")
                if counted != onDisk { problems.append("counted \(counted) bytes, du \(onDisk)") }
            }
            return problems
        })
        #expect(report.failures == [], "\(report.failures.prefix(5))")
        #expect(report.points > 2 && report.states >= report.points, "\(report)")
    }
}
