import ArchiveStore
import Foundation
import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The record of `store-vs-sqlite`: about 200 bytes (a 36-byte id, a date, an integer and
/// a 148-byte note), archived as an `NSCoding` class writes it.
struct BenchRecord: ArchiveRecord, Hashable, Sendable {
    var id: String
    var date: Date
    var count: Int
    var note: String

    init(id: String, date: Date, count: Int, note: String) {
        (self.id, self.date, self.count, self.note) = (id, date, count, note)
    }

    static var archivedClassName: String { "BenchRecord" }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(date, forKey: "date")
        coder.encode(count, forKey: "count")
        coder.encode(note, forKey: "note")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        date = try coder.decode(Date.self, forKey: "date")
        count = try coder.decode(Int.self, forKey: "count")
        note = try coder.decode(String.self, forKey: "note")
    }

    /// Record `i` of a workload (`salt` varies the values of an update).
    static func make(_ i: Int, prefix: String = "", salt: Int = 0) -> BenchRecord {
        let id = prefix.isEmpty ? String(format: "%08x-0000-4000-8000-%012x", i, i &* 2_654_435_761 & 0xFFFF_FFFF_FFFF) : prefix + "-\(i)"
        let letters = Array("abcdefghijklmnopqrstuvwxyz ".utf8)
        var seed = UInt64(truncatingIfNeeded: i &* 31 &+ salt) &* 0x9E37_79B9_7F4A_7C15
        var note = [UInt8](repeating: 0, count: 148)
        for k in 0..<148 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            note[k] = letters[Int(seed >> 59) % letters.count]
        }
        return BenchRecord(id: id, date: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(i)), count: (i &* 7 &+ salt) % 100_000,
                           note: String(decoding: note, as: UTF8.self))
    }
}

/// `keyed-bench store-vs-sqlite N`: the repository beside SQLite at equal durability (WAL, `synchronous=FULL`),
/// in one process, engines alternating each round.
enum StoreVsSQLite {
    static let usage = """
        USAGE: keyed-bench store-vs-sqlite <n> [--rounds <k>] [--p99 <adds>]

        Builds a store of n records (~200 bytes each) with each engine in a child process (one commit: the
        repository's add(contentsOf:), SQLite's INSERTs in one transaction), then times add one, get by id,
        update, remove, count and list all, alternating the engines each round, and prints ops/s, the ratio,
        syncs per commit, bytes on disk per record, the bulk build's time and peak memory, and the median and
        p99 of single adds. SQLite is loaded at run time; without it the workload says so and stops.
        """

    struct Phase {
        var name: String
        var operations: Int
        var ours: [Double] = []     // ops/s per round
        var sqlite: [Double] = []
    }

    static func run(count: Int, rounds: Int, arguments: [String]) throws {
        let (loaded, tried) = SQLiteLibrary.load()
        guard let library = loaded else {
            print("SKIPPED: store-vs-sqlite needs the SQLite library, and none of \(tried.joined(separator: ", ")) loads (apt-get install libsqlite3-dev)")
            return
        }
        let p99Adds = arguments.firstIndex(of: "--p99").flatMap { Int(arguments[$0 + 1]) } ?? 2_000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-vs-sqlite-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/ours", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/sqlite", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let oursPath = directory + "/ours/Records.archive"
        let sqlitePath = directory + "/sqlite/records.db"
        print("store-vs-sqlite: \(count) records, SQLite \(library.version) (journal_mode=WAL, synchronous=FULL), \(rounds) rounds")

        // The bulk builds, each in a child process (its peak memory is the build's).
        let sqliteBuild = try child(["store-build", "sqlite", String(count), sqlitePath])
        let oursBuild = try child(["store-build", "ours", String(count), oursPath])
        print(String(format: "bulk build: ours %.2f s, %.1f MB peak; SQLite %.2f s, %.1f MB peak; time ratio ours/SQLite %.2fx",
                     oursBuild.seconds, Double(oursBuild.peak) / 1e6, sqliteBuild.seconds, Double(sqliteBuild.peak) / 1e6,
                     oursBuild.seconds / sqliteBuild.seconds))

        let ours = ArchiveRepository<BenchRecord>(path: oursPath)
        let sqlite = try SQLiteConnection(library, path: sqlitePath)
        var openedCount = 0
        let opened = try timeMS { openedCount = try ours.count() }
        precondition(openedCount == count)
        print(String(format: "open (index and frames after it read): ours %.1f ms", opened))
        _ = try sqliteCount(sqlite)

        let small = count <= 100_000
        var phases = [
            Phase(name: "add one", operations: 300), Phase(name: "get by id", operations: 20_000),
            Phase(name: "update", operations: 300), Phase(name: "remove", operations: 300),
            Phase(name: "count", operations: 2_000), Phase(name: "list all", operations: small ? 10 : 1),
        ]
        var random = SystemRandomNumberGenerator()
        let statisticsBefore = ours.statistics
        var oursCommits = 0
        for round in 0..<rounds {
            let order = round % 2 == 0 ? ["ours", "sqlite"] : ["sqlite", "ours"]
            for engine in order {
                let prefix = "add-\(round)-\(engine)"
                for index in phases.indices {
                    let n = phases[index].operations
                    let ids = (0..<n).map { _ in BenchRecord.make(Int.random(in: 0..<count, using: &random)).id }
                    let updates = (0..<n).map { BenchRecord.make(Int.random(in: 0..<count, using: &random), salt: round * 1_000 + $0 + 1) }
                    let ms: Double
                    if engine == "ours" {
                        ms = try timeMS {
                            switch phases[index].name {
                            case "add one": for i in 0..<n { try ours.add(BenchRecord.make(i, prefix: prefix)) }
                            case "get by id": for id in ids { blackHole(try ours.get(id)) }
                            case "update": for record in updates { try ours.update(record) }
                            case "remove": for i in 0..<n { blackHole(try ours.remove("\(prefix)-\(i)")) }
                            case "count": for _ in 0..<n { blackHole(try ours.count()) }
                            default: for _ in 0..<n { var seen = 0; try ours.forEach { blackHole($0); seen += 1 }; precondition(seen == count) }
                            }
                        }
                        if ["add one", "update", "remove"].contains(phases[index].name) { oursCommits += n }
                        phases[index].ours.append(Double(n) / (ms / 1_000))
                    } else {
                        ms = try timeMS {
                            switch phases[index].name {
                            case "add one": for i in 0..<n { try sqliteInsert(sqlite, BenchRecord.make(i, prefix: prefix)) }
                            case "get by id": for id in ids { blackHole(try sqliteGet(sqlite, id)) }
                            case "update": for record in updates { try sqliteUpdate(sqlite, record) }
                            case "remove": for i in 0..<n { try sqliteDelete(sqlite, "\(prefix)-\(i)") }
                            case "count": for _ in 0..<n { blackHole(try sqliteCount(sqlite)) }
                            default: for _ in 0..<n { let listed = try sqliteList(sqlite); precondition(listed == count) }
                            }
                        }
                        phases[index].sqlite.append(Double(n) / (ms / 1_000))
                    }
                }
            }
        }
        let statistics = ours.statistics
        print("")
        print(pad("operation", 12) + pad("ours ops/s", 14, right: true) + pad("SQLite ops/s", 14, right: true)
              + pad("ours/SQLite", 13, right: true) + "   (median of \(rounds) rounds; per round: ours / SQLite ratios)")
        for phase in phases {
            let o = median(phase.ours), s = median(phase.sqlite)
            let perRound = zip(phase.ours, phase.sqlite).map { String(format: "%.2f", $0 / $1) }.joined(separator: " ")
            print(pad(phase.name, 12) + pad(format(o), 14, right: true) + pad(format(s), 14, right: true)
                  + pad(String(format: "%.2fx", o / s), 13, right: true) + "   " + perRound)
            print("RESULT workload=store-vs-sqlite n=\(count) op=\"\(phase.name)\" ours_ops_s=\(format(o)) sqlite_ops_s=\(format(s)) ratio=\(String(format: "%.3f", o / s))")
        }
        let syncs = statistics.syncs - statisticsBefore.syncs
        print(String(format: "syncs per commit (ours, counted through the file-system seam): %.2f (%d syncs, %d commits); SQLite WAL synchronous=FULL: 1 by its design",
                     Double(syncs) / Double(max(1, statistics.commits - statisticsBefore.commits)), syncs,
                     statistics.commits - statisticsBefore.commits))

        // The slowest adds: blocks of single adds, alternating engines.
        var oursLatencies: [Double] = []
        var sqliteLatencies: [Double] = []
        let block = max(1, p99Adds / 10)
        for b in 0..<10 {
            for engine in b % 2 == 0 ? ["ours", "sqlite"] : ["sqlite", "ours"] {
                for i in 0..<block {
                    let record = BenchRecord.make(b * block + i, prefix: "p99-\(engine)")
                    if engine == "ours" {
                        oursLatencies.append(try timeMS { try ours.add(record) })
                    } else {
                        sqliteLatencies.append(try timeMS { try sqliteInsert(sqlite, record) })
                    }
                }
            }
        }
        for (name, samples) in [("ours", oursLatencies), ("SQLite", sqliteLatencies)] {
            let sorted = samples.sorted()
            let p50 = sorted[sorted.count / 2], p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            print(String(format: "single adds (%d): %@ median %.3f ms, p99 %.3f ms (p99/median %.2fx), max %.3f ms",
                         sorted.count, name, p50, p99, p99 / p50, sorted.last ?? 0))
            print("RESULT workload=store-vs-sqlite n=\(count) op=\"add latency\" impl=\(name) p50_ms=\(String(format: "%.4f", p50)) p99_ms=\(String(format: "%.4f", p99))")
        }
        ours.close()
        let oursBytes = allocated(oursPath) + allocated(oursPath + ".index")
        let sqliteBytes = allocated(sqlitePath) + allocated(sqlitePath + "-wal") + allocated(sqlitePath + "-shm")
        let records = try ours.count()
        print(String(format: "bytes on disk per record (allocated blocks): ours %.0f (log %d + index %d), SQLite %.0f (database, WAL and shm)",
                     Double(oursBytes) / Double(records), allocated(oursPath), allocated(oursPath + ".index"),
                     Double(sqliteBytes) / Double(try sqliteCount(sqlite))))
    }

    // MARK: The children that build the stores

    /// `store-build ours|sqlite <n> <path>`: builds the store in one commit, prints its time and peak memory.
    static func build(engine: String, count: Int, path: String) throws {
        let records = (0..<count).lazy.map { BenchRecord.make($0) }
        let seconds: Double
        if engine == "ours" {
            let repository = ArchiveRepository<BenchRecord>(path: path)
            var added = 0
            seconds = try timeMS { added = try repository.add(contentsOf: records) } / 1_000
            precondition(added == count)
            repository.close()
        } else {
            let (loaded, _) = SQLiteLibrary.load()
            guard let library = loaded else { throw SQLiteConnection.Failure(description: "no SQLite") }
            let sqlite = try SQLiteConnection(library, path: path)
            try sqlite.execute("CREATE TABLE records (id TEXT PRIMARY KEY, date REAL, count INTEGER, note TEXT)")
            seconds = try timeMS {
                try sqlite.execute("BEGIN")
                for record in records { try sqliteInsert(sqlite, record) }
                try sqlite.execute("COMMIT")
            } / 1_000
        }
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        let peak = Int(usage.ru_maxrss)
        #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peak = Int(usage.ru_maxrss) * 1024
        #endif
        print("BUILD seconds=\(seconds) peak=\(peak)")
    }

    static func child(_ arguments: [String]) throws -> (seconds: Double, peak: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("BUILD ") }) else {
            throw SQLiteConnection.Failure(description: "the build \(arguments) failed: \(output)")
        }
        var values: [String: Double] = [:]
        for field in line.dropFirst(6).split(separator: " ") {
            let parts = field.split(separator: "=")
            if parts.count == 2 { values[String(parts[0])] = Double(parts[1]) }
        }
        return (values["seconds"] ?? .nan, Int(values["peak"] ?? 0))
    }

    // MARK: SQLite's side, the same work

    static func sqliteInsert(_ db: SQLiteConnection, _ record: BenchRecord) throws {
        try db.with("INSERT INTO records (id, date, count, note) VALUES (?, ?, ?, ?)") { statement in
            db.bind(statement, 1, record.id)
            _ = db.library.bindDouble(statement, 2, record.date.timeIntervalSinceReferenceDate)
            _ = db.library.bindInt64(statement, 3, Int64(record.count))
            db.bind(statement, 4, record.note)
            try db.run(statement, "insert")
        }
    }

    static func sqliteGet(_ db: SQLiteConnection, _ id: String) throws -> BenchRecord? {
        try db.with("SELECT date, count, note FROM records WHERE id = ?") { statement in
            db.bind(statement, 1, id)
            guard db.library.step(statement) == SQLiteLibrary.row else { return nil }
            return BenchRecord(id: id, date: Date(timeIntervalSinceReferenceDate: db.library.columnDouble(statement, 0)),
                               count: Int(db.library.columnInt64(statement, 1)), note: db.text(statement, 2))
        }
    }

    static func sqliteUpdate(_ db: SQLiteConnection, _ record: BenchRecord) throws {
        try db.with("UPDATE records SET date = ?, count = ?, note = ? WHERE id = ?") { statement in
            _ = db.library.bindDouble(statement, 1, record.date.timeIntervalSinceReferenceDate)
            _ = db.library.bindInt64(statement, 2, Int64(record.count))
            db.bind(statement, 3, record.note)
            db.bind(statement, 4, record.id)
            try db.run(statement, "update")
        }
    }

    static func sqliteDelete(_ db: SQLiteConnection, _ id: String) throws {
        try db.with("DELETE FROM records WHERE id = ?") { statement in
            db.bind(statement, 1, id)
            try db.run(statement, "delete")
        }
    }

    static func sqliteCount(_ db: SQLiteConnection) throws -> Int {
        try db.with("SELECT COUNT(*) FROM records") { statement in
            guard db.library.step(statement) == SQLiteLibrary.row else { return -1 }
            return Int(db.library.columnInt64(statement, 0))
        }
    }

    /// Every row read into a record, as `forEach` gives every record.
    static func sqliteList(_ db: SQLiteConnection) throws -> Int {
        try db.with("SELECT id, date, count, note FROM records") { statement in
            var n = 0
            while db.library.step(statement) == SQLiteLibrary.row {
                blackHole(BenchRecord(id: db.text(statement, 0), date: Date(timeIntervalSinceReferenceDate: db.library.columnDouble(statement, 1)),
                                      count: Int(db.library.columnInt64(statement, 2)), note: db.text(statement, 3)))
                n += 1
            }
            return n
        }
    }

    // MARK: Helpers

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    /// The bytes a file's blocks take (what `du` counts); 0 when it is missing.
    static func allocated(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int(info.st_blocks) * 512
    }
}

/// `keyed-bench store-profile encode|decode|get|list <n> [--rounds k]`: fixed work on BenchRecord for callgrind
/// (Benchmarks/callgrind.sh) and quick timing: one record's archive encoded or decoded n times, n gets, or
/// the list of a store of n records.
enum StoreProfile {
    static func run(_ what: String, count: Int, rounds: Int) throws {
        let record = BenchRecord.make(42)
        let registry = ClassRegistry([BenchRecord.self])
        let archive: [UInt8] = try KeyedArchiver.archivedData(withRootObject: record)
        switch what {
        case "encode":
            let ms = try timeMS { for _ in 0..<count { blackHole(try KeyedArchiver.archivedData(withRootObject: record) as [UInt8]) } }
            print(String(format: "encode: %.3f us per record (%d bytes)", ms * 1_000 / Double(count), archive.count))
        case "decode":
            let ms = try timeMS {
                for _ in 0..<count {
                    blackHole(try KeyedUnarchiver.unarchivedObject(ofType: BenchRecord.self, from: archive, registry: registry,
                                                                   requiresSecureCoding: false))
                }
            }
            print(String(format: "decode: %.3f us per record (%d bytes)", ms * 1_000 / Double(count), archive.count))
        default:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-profile-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let repository = ArchiveRepository<BenchRecord>(path: directory + "/Records.archive")
            try repository.add(contentsOf: (0..<count).lazy.map { BenchRecord.make($0) })
            let ids = (0..<count).map { BenchRecord.make($0).id }
            if what == "add" {
                let ms = try timeMS { for i in 0..<count { try repository.add(BenchRecord.make(i, prefix: "added")) } }
                print(String(format: "add: %.3f us per record", ms * 1_000 / Double(count)))
                return
            }
            for _ in 0..<rounds {
                if what == "get" {
                    let ms = try timeMS { for id in ids { blackHole(try repository.get(id)) } }
                    print(String(format: "get: %.3f us per record", ms * 1_000 / Double(count)))
                } else {
                    let ms = try timeMS { try repository.forEach { blackHole($0) } }
                    print(String(format: "list: %.3f us per record", ms * 1_000 / Double(count)))
                }
            }
        }
    }
}
