import ArchiveStore
import Foundation
import KeyedArchive

/// `ArchiveCache` against python-diskcache and the naive way (one `NSKeyedArchiver` file per key).
///
/// One seeded plan (keys, values, operation sequences) is built here and written to a temporary directory,
/// so that every implementation, the Python peer included, replays exactly the same operations:
///
/// ```
/// keyed-bench cache [keys] [--only ours,diskcache,foundation-files] [--skip-1m] [--python P --peer S]
/// ```
///
/// Everything the benchmark writes goes under one temporary directory, removed at the end.
enum CacheWorkload {
    /// Counts and switches of one run. Defaults keep a whole run (three implementations) near 10 minutes on
    /// two cores.
    struct Settings {
        var keys = 100_000
        /// Timed gets in each of get-memory and get-disk.
        var getOps = 200_000
        /// Timed `.relaxed` sets: distinct keys in order, wrapping around past `keys`.
        var setOps = 50_000
        /// Timed `.synchronous` sets and raw writes (each costs two fsyncs).
        var syncOps = 2_000
        /// Untimed operations of the mixed sequence before the timed ones (the cache fills up).
        /// 400,000 Zipf draws touch about 41,000 keys, more than the byte limit holds (about 35,500 entries),
        /// so the cache is full and evicting before the timed operations start.
        var mixedWarmup = 400_000
        /// Timed operations of the mixed sequence.
        var mixedOps = 200_000
        /// Hottest keys made resident for get-memory.
        var hotKeys = 10_000
        /// Entries of the cache whose first get after opening is timed; 0 skips it.
        var openEntries = 1_000_000
        /// Warm gets timed after the first one.
        var warmGets = 1_000
        var memoryCostLimit = 32 << 20
        var only: Set<String>?
        var python: String?
        var peer: String?
        var keep = false
        var seed: UInt64 = 0x9e11_0009

        func runs(_ impl: String) -> Bool { only?.contains(impl) ?? true }
    }

    static let usage = """
        USAGE: keyed-bench cache [<keys>] [options]

        OPTIONS:
          --only <names>      ours,diskcache,foundation-files (default all)
          --skip-1m           skip the first-get-after-open figure on a 1,000,000-entry cache
          --open-entries <n>  entries of that cache (default 1000000)
          --get-ops <n>       timed gets per get phase (default 200000)
          --set-ops <n>       timed .relaxed sets (default 50000; foundation-files at most 20000)
          --sync-ops <n>      timed .synchronous sets and raw writes (default 2000)
          --mixed-ops <n>     timed mixed operations (default 200000), after --mixed-warmup <n> (default 400000)
          --python <path>     Python with diskcache 5.6 installed (the peer runs only when given)
          --peer <path>       Benchmarks/cache/diskcache_peer.py
          --keep              keep the temporary directory (its path is printed on stderr)
        """

    static func parse(_ arguments: [String], only: Set<String>?) throws -> Settings {
        var settings = Settings()
        settings.only = only
        var rest = arguments[...]
        func intValue(_ name: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text.replacingOccurrences(of: "_", with: "")), value >= 0 else {
                throw BenchUsageError("\(name) needs a whole number\n\(usage)")
            }
            return value
        }
        func text(_ name: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchUsageError("\(name) needs a value\n\(usage)") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--skip-1m": settings.openEntries = 0
            case "--open-entries": settings.openEntries = try intValue(argument)
            case "--get-ops": settings.getOps = try intValue(argument)
            case "--set-ops": settings.setOps = try intValue(argument)
            case "--sync-ops": settings.syncOps = try intValue(argument)
            case "--mixed-ops": settings.mixedOps = try intValue(argument)
            case "--mixed-warmup": settings.mixedWarmup = try intValue(argument)
            case "--hot-keys": settings.hotKeys = try intValue(argument)
            case "--python": settings.python = try text(argument)
            case "--peer": settings.peer = try text(argument)
            case "--keep": settings.keep = true
            default:
                guard let keys = Int(argument.replacingOccurrences(of: "_", with: "")), keys > 0 else {
                    throw BenchUsageError("unknown cache option '\(argument)'\n\(usage)")
                }
                settings.keys = keys
            }
        }
        settings.hotKeys = min(settings.hotKeys, settings.keys)
        return settings
    }

    static func run(arguments: [String], only: Set<String>?) throws {
        let settings = try parse(arguments, only: only)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer {
            if settings.keep {
                progress("kept \(root)")
            } else {
                progress("removing \(root)")
                removeTree(root)
            }
        }
        progress("plan: \(settings.keys) keys, seed \(settings.seed)")
        let plan = CachePlan(settings: settings)
        let planDirectory = root + "/plan"
        try plan.write(to: planDirectory)
        print("INFO keys=\(plan.keys.count) value_bytes_total=\(plan.valueBytes) value_bytes_min=\(plan.values.map(\.count).min() ?? 0)"
              + " value_bytes_max=\(plan.values.map(\.count).max() ?? 0) byte_limit=\(plan.byteLimit) zipf_s=1.1 write_fraction=0.1"
              + " mixed_warmup=\(settings.mixedWarmup) loadavg_start=\(loadAverage())")

        var results: [CacheResult] = []
        func emit(_ result: CacheResult) {
            print(result.line)
            if let detail = result.detail { print(detail) }
            fflush(nil)
            results.append(result)
        }
        let ours = settings.runs("ours") ? OursCacheRunner(plan: plan, root: root + "/ours") : nil

        // Durable writes first, on a quiet file system: raw writes and ours' .synchronous sets alternate in
        // rounds, so that drift in the machine's load falls on both alike.
        if settings.syncOps > 0 {
            progress("raw-write and ours set-synchronous: \(settings.syncOps) durable writes each, in 4 alternating rounds")
            let raw = try RawWriter(directory: root + "/raw-write", plan: plan)
            var rawTiming: LatencyRecorder.Timing?
            var synchronous: LatencyRecorder.Timing?
            for round in 0..<4 {
                let range = (settings.syncOps * round / 4)..<(settings.syncOps * (round + 1) / 4)
                rawTiming = rawTiming.merged(with: try raw.durableWrites(plan.setSynchronous[range]))
                if let ours { synchronous = synchronous.merged(with: try ours.synchronousSets(range)) }
            }
            if let rawTiming { emit(CacheResult(impl: "raw-write", op: "raw-write", timing: rawTiming)) }
            if let synchronous { emit(CacheResult(impl: "ours", op: "set-synchronous", timing: synchronous)) }
            // The floor of a relaxed set: create, write, close, rename (no fsync), a new name each time.
            let relaxedCount = min(settings.setOps, 20_000)
            progress("raw-write-relaxed: \(relaxedCount) writes without fsync")
            emit(CacheResult(impl: "raw-write", op: "raw-write-relaxed", timing: try raw.relaxedWrites(relaxedCount)))
        }
        if let ours { try ours.run(emit) }
        if settings.runs("foundation-files") {
            try FoundationFilesRunner(plan: plan, root: root + "/foundation-files").run(emit)
        }
        if settings.runs("diskcache") {
            if let python = settings.python, let peer = settings.peer {
                try runPeer(python: python, script: peer, planDirectory: planDirectory, work: root + "/diskcache") { line in
                    if let result = CacheResult(line: line) { emit(result) } else { print(line) }
                }
            } else {
                progress("diskcache: skipped (give --python and --peer, or run Benchmarks/cache/run.sh)")
            }
        }
        if let ours, settings.openEntries > 0 { try ours.firstGetAfterOpen(emit) }
        print("INFO loadavg_end=\(loadAverage())")
        printSummary(results)
    }

    /// Runs the Python peer on the plan, handing each stdout line to `line` as it comes; its stderr is ours.
    static func runPeer(python: String, script: String, planDirectory: String, work: String, _ line: (String) -> Void) throws {
        progress("diskcache: \(python) \(script)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, planDirectory, work]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var pending = Data()
        let handle = pipe.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0a) {
                line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CacheBenchFailure("diskcache peer exited with status \(process.terminationStatus)")
        }
    }

    /// The issue's targets, as ratios of the figures printed above.
    static func printSummary(_ results: [CacheResult]) {
        func find(_ impl: String, _ op: String) -> CacheResult? { results.first { $0.impl == impl && $0.op == op } }
        func throughput(_ impl: String, _ op: String) -> Double? { find(impl, op)?.fields["ops_per_s"].flatMap(Double.init) }
        print("SUMMARY targets")
        func line(_ name: String, _ value: Double?, _ target: String? = nil, format: String = "%.2fx", _ pass: (Double) -> Bool = { _ in true }) {
            guard let value, value.isFinite else {
                print("SUMMARY \(pad(name, 48)) n/a (figure missing)")
                return
            }
            let verdict = target.map { "  target \(pad($0, 10))  \(pass(value) ? "MET" : "MISSED")" } ?? ""
            print("SUMMARY \(pad(name, 48)) \(pad(String(format: format, value), 10, right: true))\(verdict)")
        }
        func ratio(_ a: Double?, _ b: Double?) -> Double? { if let a, let b, b > 0 { a / b } else { nil } }
        line("get hit, disk: ours / diskcache", ratio(throughput("ours", "get-disk"), throughput("diskcache", "get-disk")), ">= 2x") { $0 >= 2 }
        line("get hit, memory: ours / diskcache", ratio(throughput("ours", "get-memory"), throughput("diskcache", "get-memory")), ">= 20x") { $0 >= 20 }
        line("set .relaxed: ours / diskcache", ratio(throughput("ours", "set-relaxed"), throughput("diskcache", "set-relaxed")), ">= 1x") { $0 >= 1 }
        line("set .synchronous: ours / raw-write", ratio(throughput("ours", "set-synchronous"), throughput("raw-write", "raw-write")), ">= 0.8x") { $0 >= 0.8 }
        func field(_ impl: String, _ op: String, _ name: String) -> Double? { find(impl, op)?.fields[name].flatMap(Double.init) }
        line("du after mixed: ours / byte limit", field("ours", "bytes-on-disk", "du_ratio"), "<= 1.05x") { $0 <= 1.05 }
        let hitGap = field("ours", "hit-ratio", "value").flatMap { v in field("diskcache", "hit-ratio", "value").map { (v - $0) * 100 } }
        line("hit ratio: ours - diskcache (points)", hitGap, ">= 0", format: "%+.2f") { $0 >= 0 }
        let open = find("ours", "first-get-1m")
        let first = ratio(open?.fields["first_us"].flatMap(Double.init), open?.fields["warm_us"].flatMap(Double.init))
        line("first get after open / warm get", first, "<= 3x") { $0 <= 3 }
        print("SUMMARY other ratios")
        line("du after mixed: diskcache / byte limit", field("diskcache", "bytes-on-disk", "du_ratio"))
        line("entries kept at that du: ours / diskcache", ratio(field("ours", "bytes-on-disk", "entries"),
                                                                field("diskcache", "bytes-on-disk", "entries")))
        let lruGap = field("ours", "hit-ratio", "value").flatMap { v in field("ours", "hit-ratio", "lru").map { (v - $0) * 100 } }
        line("hit ratio: ours - exact LRU of frames (points)", lruGap, format: "%+.2f")
        line("set .relaxed: ours / raw-write-relaxed (fs floor)", ratio(throughput("ours", "set-relaxed"), throughput("raw-write", "raw-write-relaxed")))
        line("mixed: ours / diskcache", ratio(throughput("ours", "mixed"), throughput("diskcache", "mixed")))
        line("get hit, disk: ours / foundation-files", ratio(throughput("ours", "get-disk"), throughput("foundation-files", "get-disk")))
        line("set .relaxed: ours / foundation-files", ratio(throughput("ours", "set-relaxed"), throughput("foundation-files", "set-relaxed")))
        let peerOpen = find("diskcache", "first-get-1m")
        line("diskcache: first get after open / warm get", ratio(peerOpen?.fields["first_us"].flatMap(Double.init),
                                                                  peerOpen?.fields["warm_us"].flatMap(Double.init)))
        line("set .synchronous: diskcache (FULL) / raw-write", ratio(throughput("diskcache", "set-synchronous"), throughput("raw-write", "raw-write")))
    }
}

/// `raw-write`: plain system calls over the same value bytes, the floors the cache's writes are held to.
struct RawWriter {
    let directory: String
    let plan: CachePlan
    private let names: [String]

    init(directory: String, plan: CachePlan) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.plan = plan
        names = plan.keys.map { directory + "/" + $0 }
    }

    /// Per key: open a temporary file, write the value bytes, fsync, close, rename over the key's file,
    /// fsync the directory.
    func durableWrites(_ keys: ArraySlice<Int>) throws -> LatencyRecorder.Timing {
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY)
        guard directoryFD >= 0 else { throw CacheBenchFailure("cannot open \(directory): errno \(errno)") }
        defer { close(directoryFD) }
        let temporary = directory + "/.staging"
        let keys = Array(keys)
        return try LatencyRecorder.time(keys.count) { i in
            try write(plan.values[keys[i]], temporary: temporary, to: names[keys[i]], sync: true)
            guard fsync(directoryFD) == 0 else { throw CacheBenchFailure("fsync \(directory): errno \(errno)") }
        }
    }

    /// The same without fsync, each to a new name (`relaxed-<key>`).
    func relaxedWrites(_ count: Int) throws -> LatencyRecorder.Timing {
        let temporary = directory + "/.staging"
        return try LatencyRecorder.time(count) { i in
            let k = i % plan.keys.count
            try write(plan.values[k], temporary: temporary, to: directory + "/relaxed-" + plan.keys[k], sync: false)
        }
    }

    private func write(_ bytes: [UInt8], temporary: String, to name: String, sync: Bool) throws {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CacheBenchFailure("open \(temporary): errno \(errno)") }
        let written = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, !sync || fsync(fd) == 0 else {
            close(fd)
            throw CacheBenchFailure("write \(temporary): errno \(errno)")
        }
        guard close(fd) == 0, rename(temporary, name) == 0 else { throw CacheBenchFailure("rename \(name): errno \(errno)") }
    }
}

/// `write(2)`, named so that the C function is found inside a type that has a `write` method of its own.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }

/// `/proc/loadavg`'s first three fields, comma-separated: the machine is shared, so the figures say how busy.
func loadAverage() -> String {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
    return text.split(separator: " ").prefix(3).joined(separator: ",")
}

/// Removes a directory tree of up to millions of files with `rm -rf` (much faster than FileManager here).
func removeTree(_ path: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/rm")
    process.arguments = ["-rf", "--", path]
    do {
        try process.run()
        process.waitUntilExit()
    } catch {
        try? FileManager.default.removeItem(atPath: path)
    }
}

struct BenchUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A benchmark that could not run to the end (exit status 1).
struct CacheBenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func progress(_ message: String) {
    FileHandle.standardError.write(Data("cache-bench: \(message)\n".utf8))
}

// MARK: - Results

/// One `RESULT` line: implementation, operation and ordered fields.
struct CacheResult {
    var impl: String
    var op: String
    var ordered: [(String, String)]

    var fields: [String: String] { Dictionary(ordered, uniquingKeysWith: { a, _ in a }) }

    init(impl: String, op: String, _ ordered: [(String, String)]) {
        (self.impl, self.op, self.ordered) = (impl, op, ordered)
    }

    /// Mean, p99.9 and maximum of a timed figure, on a line of its own (`DETAIL ...`).
    var detail: String?

    init(impl: String, op: String, timing: LatencyRecorder.Timing) {
        defer {
            detail = "DETAIL impl=\(impl) op=\(op) mean_us=\(String(format: "%.2f", timing.meanus))"
                + " p999_us=\(String(format: "%.2f", timing.percentile(0.999))) max_us=\(String(format: "%.2f", timing.percentile(1)))"
        }
        self.init(impl: impl, op: op, [
            ("n", String(timing.count)), ("ops_per_s", String(format: "%.0f", timing.opsPerSecond)),
            ("p50_us", String(format: "%.2f", timing.p50us)), ("p99_us", String(format: "%.2f", timing.p99us)),
        ])
    }

    /// Parses a `RESULT impl=… op=… k=v …` line (the peer's).
    init?(line: String) {
        let words = line.split(separator: " ")
        guard words.first == "RESULT" else { return nil }
        var pairs: [(String, String)] = []
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "=") else { return nil }
            pairs.append((String(word[..<eq]), String(word[word.index(after: eq)...])))
        }
        guard let impl = pairs.first(where: { $0.0 == "impl" })?.1, let op = pairs.first(where: { $0.0 == "op" })?.1 else { return nil }
        self.init(impl: impl, op: op, pairs.filter { $0.0 != "impl" && $0.0 != "op" })
    }

    var line: String { "RESULT impl=\(impl) op=\(op)" + ordered.map { " \($0.0)=\($0.1)" }.joined() }
}

/// Per-operation latencies from the monotonic clock, and the wall time of the whole loop.
enum LatencyRecorder {
    struct Timing {
        var count: Int
        var totalNanoseconds: UInt64
        var sorted: [UInt64]

        var opsPerSecond: Double { count == 0 ? .nan : Double(count) / (Double(totalNanoseconds) / 1e9) }
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
            return Double(sorted[max(0, index)]) / 1e3
        }
        var p50us: Double { percentile(0.50) }
        var meanus: Double { count == 0 ? .nan : Double(sorted.reduce(0, +)) / Double(count) / 1e3 }
        var p99us: Double { percentile(0.99) }

        /// Both sets of operations as one: latencies pooled, wall times added.
        func merged(with other: Timing) -> Timing {
            Timing(count: count + other.count, totalNanoseconds: totalNanoseconds + other.totalNanoseconds,
                   sorted: (sorted + other.sorted).sorted())
        }
    }

    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Runs `body(0..<count)`, timing every call.
    @inline(__always)
    static func time(_ count: Int, _ body: (Int) throws -> Void) rethrows -> Timing {
        var latencies = [UInt64](repeating: 0, count: count)
        let start = now()
        try latencies.withUnsafeMutableBufferPointer { buffer in
            for i in 0..<count {
                let t0 = now()
                try body(i)
                buffer[i] = now() &- t0
            }
        }
        let total = now() &- start
        latencies.sort()
        return Timing(count: count, totalNanoseconds: total, sorted: latencies)
    }
}

extension Optional where Wrapped == LatencyRecorder.Timing {
    func merged(with other: LatencyRecorder.Timing) -> LatencyRecorder.Timing { self?.merged(with: other) ?? other }
}

// MARK: - Exact LRU

/// A byte-limited LRU over key indices, exact: after a new entry is inserted, the least recently used
/// entries are removed until the total is at most the limit (the new entry itself is never removed).
struct ExactLRU {
    private var previous: [Int32]
    private var next: [Int32]
    private var present: [Bool]
    private let sizes: [Int]
    private let limit: Int
    private let head: Int32  // sentinel: next = newest, previous = oldest
    private(set) var bytes = 0

    init(sizes: [Int], limit: Int) {
        self.sizes = sizes
        self.limit = limit
        head = Int32(sizes.count)
        previous = [Int32](repeating: Int32(sizes.count), count: sizes.count + 1)
        next = previous
        present = [Bool](repeating: false, count: sizes.count)
    }

    private mutating func unlink(_ k: Int32) {
        let (p, n) = (previous[Int(k)], next[Int(k)])
        next[Int(p)] = n
        previous[Int(n)] = p
    }

    private mutating func pushNewest(_ k: Int32) {
        let first = next[Int(head)]
        next[Int(k)] = first
        previous[Int(k)] = head
        previous[Int(first)] = k
        next[Int(head)] = k
    }

    /// A get: whether it hits; a hit becomes the newest.
    mutating func get(_ k: Int) -> Bool {
        guard present[k] else { return false }
        unlink(Int32(k))
        pushNewest(Int32(k))
        return true
    }

    mutating func set(_ k: Int) {
        if present[k] {
            unlink(Int32(k))
        } else {
            present[k] = true
            bytes += sizes[k]
        }
        pushNewest(Int32(k))
        guard limit > 0 else { return }
        while bytes > limit {
            let oldest = previous[Int(head)]
            guard oldest != Int32(k) else { break }
            unlink(oldest)
            present[Int(oldest)] = false
            bytes -= sizes[Int(oldest)]
        }
    }
}
