import Foundation

/// What the phases need of an implementation: set a key's value, read a key (whether it hit).
protocol CacheSubject {
    func set(_ k: Int) throws
    func get(_ k: Int) throws -> Bool
}

/// The phases every implementation shares.
enum CachePhases {
    struct Mixed {
        var timing: LatencyRecorder.Timing
        var gets = 0
        var hits = 0
        var hitRatio: Double { gets == 0 ? .nan : Double(hits) / Double(gets) }
    }

    /// The mixed sequence: a write sets the value; a read that misses sets it (read-through). The first
    /// `mixedWarmup` operations are untimed and not counted in the hit ratio.
    static func mixed<C: CacheSubject>(_ plan: CachePlan, _ subject: C, warm: Bool = true, limit: Int? = nil) throws -> Mixed {
        let warmup = plan.settings.mixedWarmup
        let timed = min(plan.mixed.count - warmup, limit ?? .max)
        for i in 0..<(warm ? warmup : 0) {
            let (k, write) = plan.mixed[i]
            if try write || !subject.get(k) { try subject.set(k) }
        }
        var (gets, hits) = (0, 0)
        let timing = try LatencyRecorder.time(timed) { i in
            let (k, write) = plan.mixed[warmup + i]
            if write {
                try subject.set(k)
            } else {
                gets += 1
                if try subject.get(k) { hits += 1 } else { try subject.set(k) }
            }
        }
        return Mixed(timing: timing, gets: gets, hits: hits)
    }

    /// Hits the exact LRU would have had on the same sequence, over the same (timed) window.
    static func exactLRUHitRatio(_ plan: CachePlan, sizes: [Int], limit: Int) -> Double {
        var lru = ExactLRU(sizes: sizes, limit: limit)
        var (gets, hits) = (0, 0)
        for (i, op) in plan.mixed.enumerated() {
            if op.write {
                lru.set(op.key)
            } else {
                let hit = lru.get(op.key)
                if i >= plan.settings.mixedWarmup {
                    gets += 1
                    if hit { hits += 1 }
                }
                if !hit { lru.set(op.key) }
            }
        }
        return gets == 0 ? .nan : Double(hits) / Double(gets)
    }

    /// Regular files under `path`: how many, their sizes, and the blocks allocated to them; and `du`, what
    /// `du -s` counts: the blocks of every file and directory below `path`, its own included.
    static func diskUsage(_ path: String) -> (files: Int, bytes: Int, allocated: Int, du: Int) {
        var result = (files: 0, bytes: 0, allocated: 0, du: 0)
        var root = stat()
        if lstat(path, &root) == 0 { result.du = Int(root.st_blocks) * 512 }
        guard let walker = FileManager.default.enumerator(atPath: path) else { return result }
        while let relative = walker.nextObject() as? String {
            var info = stat()
            guard lstat(path + "/" + relative, &info) == 0 else { continue }
            result.du += Int(info.st_blocks) * 512
            guard (info.st_mode & S_IFMT) == S_IFREG else { continue }
            result.files += 1
            result.bytes += Int(info.st_size)
            result.allocated += Int(info.st_blocks) * 512
        }
        return result
    }
}

// MARK: - foundation-files

/// The naive way: one `NSKeyedArchiver` file per key, written with `Data.write(options: .atomic)` and read
/// with `FileManager.contents(atPath:)` and `NSKeyedUnarchiver`. No limit, no eviction, no memory layer.
final class FoundationFilesSubject: CacheSubject {
    let paths: [String]
    let values: [Data]

    init(plan: CachePlan, directory: String, values: [Data]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        paths = plan.keys.map { directory + "/" + $0 }
        self.values = values
    }

    func set(_ k: Int) throws {
        let archived = try NSKeyedArchiver.archivedData(withRootObject: values[k] as NSData, requiringSecureCoding: true)
        try archived.write(to: URL(fileURLWithPath: paths[k]), options: .atomic)
    }

    func get(_ k: Int) throws -> Bool {
        guard let archived = FileManager.default.contents(atPath: paths[k]) else { return false }
        guard let value = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSData.self, from: archived) else { return false }
        blackHole(value.length)
        return true
    }
}

struct FoundationFilesRunner {
    let plan: CachePlan
    let root: String

    func run(_ emit: (CacheResult) -> Void) throws {
        let impl = "foundation-files"
        let values = plan.values.map { Data($0) }
        // Fewer sets than the others (each is a file create, the slowest thing here): the run stays short.
        let setCount = min(plan.setRelaxed.count, 20_000)
        progress("\(impl): set-relaxed (\(setCount))")
        let files = try FoundationFilesSubject(plan: plan, directory: root + "/files", values: values)
        let sets = try LatencyRecorder.time(setCount) { i in try files.set(plan.setRelaxed[i]) }
        emit(CacheResult(impl: impl, op: "set-relaxed", timing: sets))

        progress("\(impl): get-disk (populating the keys it reads)")
        let written = Set(plan.setRelaxed.prefix(setCount))
        for k in Set(plan.getDisk) where !written.contains(k) { try files.set(k) }
        var misses = 0
        let gets = try LatencyRecorder.time(plan.getDisk.count) { i in if !(try files.get(plan.getDisk[i])) { misses += 1 } }
        if misses > 0 { progress("\(impl): get-disk: \(misses) unexpected misses") }
        emit(CacheResult(impl: impl, op: "get-disk", timing: gets))

        // No limit (the naive way never evicts), so no warm-up, and fewer operations: each miss and
        // write is a Foundation atomic write, milliseconds here.
        let mixedCount = min(plan.mixed.count - plan.settings.mixedWarmup, 50_000)
        progress("\(impl): mixed (\(mixedCount) operations of the timed window, cold, no limit)")
        let fresh = try FoundationFilesSubject(plan: plan, directory: root + "/mixed", values: values)
        let mixed = try CachePhases.mixed(plan, fresh, warm: false, limit: mixedCount)
        emit(CacheResult(impl: impl, op: "mixed", timing: mixed.timing))
        emit(CacheResult(impl: impl, op: "hit-ratio-unbounded", [("value", String(format: "%.4f", mixed.hitRatio))]))
        let usage = CachePhases.diskUsage(root + "/mixed")
        emit(CacheResult(impl: impl, op: "bytes-on-disk", [
            ("du", String(usage.du)), ("files", String(usage.files)), ("file_bytes", String(usage.bytes)),
            ("allocated_bytes", String(usage.allocated)), ("limit", "none"),
        ]))
    }
}
