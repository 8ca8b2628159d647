import ArchiveStore
import Foundation
import KeyedArchive

/// BenchRecord's archive read with an index on `count` (the "largest recordCount" question).
struct CountIndexed: ArchiveRecord, Hashable, Sendable {
    var record: BenchRecord
    var id: String { record.id }
    static var archivedClassName: String { "BenchRecord" }
    func encode(with coder: KeyedArchiver) { record.encode(with: coder) }
    init(record: BenchRecord) { self.record = record }
    init(coder: KeyedUnarchiver) throws { record = try BenchRecord(coder: coder) }
    var count: Int { record.count }
    static let indexes: [RecordIndex<CountIndexed>] = [RecordIndex("count", \.count)]
}

/// The same with three indexes (count, date, note).
struct ThreeIndexed: ArchiveRecord, Hashable, Sendable {
    var record: BenchRecord
    var id: String { record.id }
    static var archivedClassName: String { "BenchRecord" }
    func encode(with coder: KeyedArchiver) { record.encode(with: coder) }
    init(record: BenchRecord) { self.record = record }
    init(coder: KeyedUnarchiver) throws { record = try BenchRecord(coder: coder) }
    var count: Int { record.count }
    var date: Date { record.date }
    var note: String { record.note }
    static let indexes: [RecordIndex<ThreeIndexed>] = [
        RecordIndex("count", \.count), RecordIndex("date", \.date), RecordIndex("note", \.note),
    ]
}

/// `keyed-bench query-vs-sqlite N`: the property indexes' figures. The largest `count` with and without an index, the
/// first 20 records by `count`, the cost of one and three indexes on a single add, the first build of an
/// index, and how soon `changes()` hears of a commit by this process and by another.
enum QueryVsSQLite {
    static let usage = """
        USAGE: keyed-bench query-vs-sqlite <n> [--rounds <k>]

        Builds a store of n BenchRecords with each engine (in child processes), then alternating the engines
        each round: max(count) without an index (ours decodes every record; SQLite scans), the first build of
        ours's index, max(count) and the first 20 rows by count with an index, and single adds with no, one
        and three indexes (ours) against SQLite's with no and one index. Then the latency of changes(): a
        commit by this process, and by a child process (median of 100 commits, the waiting side asleep).
        """

    static func run(count: Int, rounds: Int) throws {
        let (loaded, tried) = SQLiteLibrary.load()
        guard let library = loaded else {
            print("SKIPPED: query-vs-sqlite needs the SQLite library, and none of \(tried.joined(separator: ", ")) loads (apt-get install libsqlite3-dev)")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-vs-sqlite-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/ours", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/sqlite", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let oursPath = directory + "/ours/Records.archive"
        let sqlitePath = directory + "/sqlite/records.db"
        print("query-vs-sqlite: \(count) records, SQLite \(library.version) (journal_mode=WAL, synchronous=FULL), \(rounds) rounds")
        _ = try StoreVsSQLite.child(["store-build", "sqlite", String(count), sqlitePath])
        _ = try StoreVsSQLite.child(["store-build", "ours", String(count), oursPath])
        let sqlite = try SQLiteConnection(library, path: sqlitePath)
        let expected = (0..<count).map { BenchRecord.make($0).count }.max()

        // Without an index: ours decodes every record; SQLite scans the table.
        let plain = ArchiveRepository<BenchRecord>(path: oursPath)
        var scanOurs: [Double] = [], scanSQLite: [Double] = []
        for round in 0..<max(1, rounds) {
            for engine in round % 2 == 0 ? ["ours", "sqlite"] : ["sqlite", "ours"] {
                if engine == "ours" {
                    scanOurs.append(try timeMS { let found = try plain.max(of: \.count); precondition(found == expected) })
                } else {
                    scanSQLite.append(try timeMS { let found = try sqliteMax(sqlite); precondition(found == expected) })
                }
            }
        }
        report("max(count), no index", oursMS: median(scanOurs), sqliteMS: median(scanSQLite), count: count)
        plain.close()

        // The first use of an index: built from the records once (then kept by commits and in its file).
        let memoryBefore = residentBytes()
        let indexed = ArchiveRepository<CountIndexed>(path: oursPath)
        let buildMS = try timeMS { try indexed.prepareIndexes() }
        let memoryAfter = residentBytes()
        print(String(format: "index build on first use (count): %.0f ms (%.2f us per record), resident memory +%.1f MB; SQLite CREATE INDEX: %.0f ms",
                     buildMS, buildMS * 1_000 / Double(count), Double(memoryAfter - memoryBefore) / 1e6,
                     try timeMS { try sqlite.execute("CREATE INDEX records_count ON records(count)") }))
        print("RESULT workload=query-vs-sqlite n=\(count) op=\"index build\" ours_ms=\(String(format: "%.1f", buildMS)) memory_mb=\(String(format: "%.1f", Double(memoryAfter - memoryBefore) / 1e6))")

        // With an index on count.
        let maxOps = 20_000, topOps = 2_000
        var maxOurs: [Double] = [], maxSQLite: [Double] = [], topOurs: [Double] = [], topSQLite: [Double] = []
        let top = RecordQuery<CountIndexed>().sorted(by: \.count, ascending: false).limit(20)
        let expectedTop = try sqliteTop(sqlite).map(\.id)
        let foundTop = try indexed.records(matching: top).map(\.id)
        precondition(foundTop == expectedTop, "top 20 differ: \(foundTop) \(expectedTop)")
        for round in 0..<rounds {
            for engine in round % 2 == 0 ? ["ours", "sqlite"] : ["sqlite", "ours"] {
                if engine == "ours" {
                    maxOurs.append(try timeMS { for _ in 0..<maxOps { blackHole(try indexed.max(of: \.count)) } })
                    topOurs.append(try timeMS { for _ in 0..<topOps { blackHole(try indexed.records(matching: top)) } })
                } else {
                    maxSQLite.append(try timeMS { for _ in 0..<maxOps { blackHole(try sqliteMax(sqlite)) } })
                    topSQLite.append(try timeMS { for _ in 0..<topOps { blackHole(try sqliteTop(sqlite)) } })
                }
            }
        }
        report("max(count), indexed", oursMS: median(maxOurs) / Double(maxOps), sqliteMS: median(maxSQLite) / Double(maxOps), count: count)
        report("top 20 by count", oursMS: median(topOurs) / Double(topOps), sqliteMS: median(topSQLite) / Double(topOps), count: count)
        indexed.close()

        // Single adds with no, one and three indexes (ours); SQLite's with its one index. The three indexes on a
        // copy of the store (a record type of its own: the one-index type would remove the other two's files).
        let threePath = directory + "/ours/Three.archive"
        try FileManager.default.copyItem(atPath: oursPath, toPath: threePath)
        try? FileManager.default.copyItem(atPath: oursPath + ".index", toPath: threePath + ".index")
        let three = ArchiveRepository<ThreeIndexed>(path: threePath)
        try three.prepareIndexes()
        three.close()
        let adds = 300
        var addMS: [String: [Double]] = [:]
        for round in 0..<rounds {
            let engines = ["none", "one", "three", "sqlite"]
            for engine in round % 2 == 0 ? engines : engines.reversed() {
                let prefix = "add-\(round)-\(engine)"
                let ms: Double
                switch engine {
                case "none":
                    let repository = ArchiveRepository<BenchRecord>(path: oursPath)
                    _ = try repository.count()
                    ms = try timeMS { for i in 0..<adds { try repository.add(BenchRecord.make(i, prefix: prefix)) } }
                case "one":
                    let repository = ArchiveRepository<CountIndexed>(path: oursPath)
                    try repository.prepareIndexes()
                    ms = try timeMS { for i in 0..<adds { try repository.add(CountIndexed(record: BenchRecord.make(i, prefix: prefix))) } }
                    repository.close()
                case "three":
                    let repository = ArchiveRepository<ThreeIndexed>(path: threePath)
                    try repository.prepareIndexes()
                    ms = try timeMS { for i in 0..<adds { try repository.add(ThreeIndexed(record: BenchRecord.make(i, prefix: prefix))) } }
                    repository.close()
                default:
                    ms = try timeMS { for i in 0..<adds { try StoreVsSQLite.sqliteInsert(sqlite, BenchRecord.make(i, prefix: prefix)) } }
                }
                addMS[engine, default: []].append(ms / Double(adds))
            }
        }
        let none = median(addMS["none"] ?? []), one = median(addMS["one"] ?? []), threeMS = median(addMS["three"] ?? [])
        print(String(format: "add one: no index %.3f ms, one index %.3f ms (+%.1f%%), three indexes %.3f ms (+%.1f%%); SQLite with its index %.3f ms",
                     none, one, (one / none - 1) * 100, threeMS, (threeMS / none - 1) * 100, median(addMS["sqlite"] ?? [])))
        print("RESULT workload=query-vs-sqlite n=\(count) op=\"add cost of indexes\" none_ms=\(String(format: "%.4f", none)) one_ms=\(String(format: "%.4f", one)) three_ms=\(String(format: "%.4f", threeMS))")

        try changeLatency(directory: directory)
    }

    static func report(_ name: String, oursMS: Double, sqliteMS: Double, count: Int) {
        print(String(format: "%@: ours %.4f ms, SQLite %.4f ms, ours/SQLite speed %.2fx", name, oursMS, sqliteMS, sqliteMS / oursMS))
        print("RESULT workload=query-vs-sqlite n=\(count) op=\"\(name)\" ours_ms=\(String(format: "%.5f", oursMS)) sqlite_ms=\(String(format: "%.5f", sqliteMS)) ratio=\(String(format: "%.3f", sqliteMS / oursMS))")
    }

    // MARK: Changes

    /// The time from a commit to its change arriving through `changes()`: made by this process (the same
    /// object), and by a child process (`keyed-bench change-writer`), which stamps each record with the wall
    /// clock just before its commit.
    static func changeLatency(directory: String) throws {
        let path = directory + "/changes/Records.archive"
        try FileManager.default.createDirectory(atPath: directory + "/changes", withIntermediateDirectories: true)
        let repository = ArchiveRepository<BenchRecord>(path: path)
        try repository.add(BenchRecord.make(0, prefix: "seed"))
        let inProcess = try latencies(repository, commits: 100) { i in
            let start = Date()
            try repository.add(BenchRecord(id: "own-\(i)", date: start, count: i, note: ""))
        }
        // Another process commits every 20 ms; this one waits (asleep) for each change.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        writer.arguments = ["change-writer", path, "100"]
        var other: [Double] = []
        let done = DispatchSemaphore(value: 0)
        let box = Samples()
        let changes = repository.changes()
        Task.detached {
            for await change in changes {
                let now = Date()
                for id in change.added where id.hasPrefix("other-") {
                    if let record = try? repository.get(id) { box.append(now.timeIntervalSince(record.date) * 1_000) }
                }
                if box.count >= 100 { break }
            }
            done.signal()
        }
        try writer.run()
        writer.waitUntilExit()
        _ = done.wait(timeout: .now() + 10)
        other = box.values
        for (name, samples) in [("this process", inProcess), ("another process", other)] {
            let sorted = samples.sorted()
            guard !sorted.isEmpty else { print("changes(): \(name): no samples"); continue }
            print(String(format: "changes(): a commit by %@ arrives in median %.3f ms (p90 %.3f ms, %d commits)", name,
                         sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted.count))
            print("RESULT workload=query-vs-sqlite op=\"change latency\" from=\"\(name)\" median_ms=\(String(format: "%.4f", sorted[sorted.count / 2]))")
        }
    }

    private static func latencies(_ repository: ArchiveRepository<BenchRecord>, commits: Int,
                                  _ commit: @escaping @Sendable (Int) throws -> Void) throws -> [Double] {
        var iterator = repository.changes().makeAsyncIterator()
        var samples: [Double] = []
        let box = IteratorBox(iterator)
        for i in 0..<commits {
            let start = DispatchTime.now().uptimeNanoseconds
            try commit(i)
            let semaphore = DispatchSemaphore(value: 0)
            Task.detached { _ = await box.next(); semaphore.signal() }
            semaphore.wait()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        iterator = box.iterator
        _ = iterator
        return samples
    }

    /// `change-writer <path> <n>`: n adds, 20 ms apart, each stamped with the time just before its commit.
    static func writeChanges(path: String, count: Int) throws {
        let repository = ArchiveRepository<BenchRecord>(path: path)
        for i in 0..<count {
            usleep(20_000)
            try repository.add(BenchRecord(id: "other-\(i)", date: Date(), count: i, note: ""))
        }
    }

    final class Samples: @unchecked Sendable { // Sendable: guarded by `lock`.
        private let lock = NSLock()
        private var samples: [Double] = []
        func append(_ value: Double) { lock.withLock { samples.append(value) } }
        var count: Int { lock.withLock { samples.count } }
        var values: [Double] { lock.withLock { samples } }
    }

    final class IteratorBox: @unchecked Sendable { // Sendable: one task at a time uses it (the caller waits for each).
        var iterator: AsyncStream<RepositoryChange>.Iterator
        init(_ iterator: AsyncStream<RepositoryChange>.Iterator) { self.iterator = iterator }
        func next() async -> RepositoryChange? { await iterator.next() }
    }

    // MARK: SQLite

    static func sqliteMax(_ db: SQLiteConnection) throws -> Int? {
        try db.with("SELECT MAX(count) FROM records") { statement in
            guard db.library.step(statement) == SQLiteLibrary.row else { return nil }
            return Int(db.library.columnInt64(statement, 0))
        }
    }

    /// The first 20 rows by count (largest first; ties, as ours, the last written first), read into records.
    static func sqliteTop(_ db: SQLiteConnection) throws -> [BenchRecord] {
        try db.with("SELECT id, date, count, note FROM records ORDER BY count DESC, rowid DESC LIMIT 20") { statement in
            var rows: [BenchRecord] = []
            while db.library.step(statement) == SQLiteLibrary.row {
                rows.append(BenchRecord(id: db.text(statement, 0), date: Date(timeIntervalSinceReferenceDate: db.library.columnDouble(statement, 1)),
                                        count: Int(db.library.columnInt64(statement, 2)), note: db.text(statement, 3)))
            }
            return rows
        }
    }

    static func median(_ values: [Double]) -> Double { StoreVsSQLite.median(values) }

    /// The process's resident memory (Linux: /proc/self/statm; elsewhere 0).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// `keyed-bench query-profile top|max <n> <ops>`: a store of n records with an index on count, then ops
/// queries (the first 20 by count, or the largest count), for callgrind.
enum QueryProfile {
    static func run(_ what: String, count: Int, operations: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-profile-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if what.hasPrefix("add") {
            let path = directory + "/Records.archive"
            try ArchiveRepository<BenchRecord>(path: path).add(contentsOf: (0..<count).lazy.map { BenchRecord.make($0) })
            func adds<R: ArchiveRecord>(_ repository: ArchiveRepository<R>, _ make: (BenchRecord) -> R) throws {
                try repository.prepareIndexes()
                let ms = try timeMS { for i in 0..<operations { try repository.add(make(BenchRecord.make(i, prefix: what))) } }
                print(String(format: "%@: %.3f us per add", what, ms * 1_000 / Double(operations)))
                repository.close()
            }
            switch what {
            case "add0": try adds(ArchiveRepository<BenchRecord>(path: path)) { $0 }
            case "add1": try adds(ArchiveRepository<CountIndexed>(path: path), CountIndexed.init(record:))
            default: try adds(ArchiveRepository<ThreeIndexed>(path: path), ThreeIndexed.init(record:))
            }
            return
        }
        let repository = ArchiveRepository<CountIndexed>(path: directory + "/Records.archive")
        try repository.add(contentsOf: (0..<count).lazy.map { CountIndexed(record: BenchRecord.make($0)) })
        try repository.prepareIndexes()
        let top = RecordQuery<CountIndexed>().sorted(by: \.count, ascending: false).limit(20)
        let ms = try timeMS {
            for _ in 0..<operations {
                if what == "top" { blackHole(try repository.records(matching: top)) } else { blackHole(try repository.max(of: \.count)) }
            }
        }
        print(String(format: "%@: %.3f us per query", what, ms * 1_000 / Double(operations)))
    }
}
