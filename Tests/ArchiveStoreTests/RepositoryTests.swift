import Foundation
import KeyedArchive
import Testing
import TestSupport
@testable import ArchiveStore

/// A record type that is only a model: no repository code of its own.
struct ExerciseLog: ArchiveRecord, Equatable {
    var id: String
    var exercise: String
    var count: Int

    init(id: String, exercise: String, count: Int) {
        self.id = id
        self.exercise = exercise
        self.count = count
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(exercise, forKey: "exercise")
        coder.encode(count, forKey: "count")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        exercise = try coder.decode(String.self, forKey: "exercise")
        count = try coder.decode(Int.self, forKey: "count")
    }
}

/// A type-specific operation, written against the public repository API only.
extension ArchiveRepository where Record == ExerciseLog {
    func maximumCount(of exercise: String) throws(StoreError) -> Int? {
        try records(matching: RecordQuery().where { $0.exercise == exercise }).map(\.count).max()
    }
}

@Suite("ArchiveRepository")
struct RepositoryTests {
    func repository(_ directory: TemporaryDirectory) -> ArchiveRepository<ExerciseLog> {
        ArchiveRepository(path: directory.file("data/Exercise.archive"))
    }

    /// A closure condition with a limit of one and no order stops its walk at the first match (no error thrown
    /// to stop it): the records after it are not decoded, in a small store (read frame by frame) and in a large
    /// one (decoded 512 records a batch).
    @Test func aFirstMatchStopsDecodingAtTheFirstMatch() throws {
        let directory = try TemporaryDirectory()
        let small = ArchiveRepository<SampleRecord>(path: directory.file("small.archive"))
        try small.add(contentsOf: sampleRecords(0..<10))
        let before = small.statistics.recordsDecoded
        #expect(try small.records(matching: RecordQuery().where { $0.id == "id2" }.limit(1)).first?.id == "id2")
        #expect(small.statistics.recordsDecoded - before == 3)
        #expect(try small.records(matching: RecordQuery().where { $0.id == "none" }.limit(1)).first == nil)
        #expect(small.statistics.recordsDecoded - before == 13)

        let large = ArchiveRepository<SampleRecord>(path: directory.file("large.archive"))
        try large.add(contentsOf: sampleRecords(0..<2_000))
        let start = large.statistics.recordsDecoded
        #expect(try large.records(matching: RecordQuery().where { $0.id == "id600" }.limit(1)).first?.id == "id600")
        #expect(large.statistics.recordsDecoded - start == 1_024)   // the first two batches, not all four
    }

    @Test func exerciseLogGetsTheWholeAPIAndATypeSpecificExtension() throws {
        let directory = try TemporaryDirectory()
        let logs = repository(directory)
        #expect(try logs.records().isEmpty)
        try logs.add(ExerciseLog(id: "a", exercise: "push-up", count: 20))
        try logs.add(ExerciseLog(id: "b", exercise: "push-up", count: 35))
        try logs.add(ExerciseLog(id: "c", exercise: "squat", count: 50))
        #expect(try logs.maximumCount(of: "push-up") == 35)
        #expect(try logs.maximumCount(of: "plank") == nil)
        #expect(try logs.count() == 3)
        #expect(try logs.get("c")?.count == 50)
        #expect(try logs.count(matching: RecordQuery().where { $0.exercise == "push-up" }) == 2)
        #expect(try logs.records(matching: RecordQuery().where { $0.count > 30 }.limit(1)).first?.id == "b")

        try logs.update(ExerciseLog(id: "a", exercise: "push-up", count: 40))
        try logs.upsert(ExerciseLog(id: "d", exercise: "squat", count: 10))
        try logs.upsert(ExerciseLog(id: "d", exercise: "squat", count: 11))
        #expect(try logs.maximumCount(of: "push-up") == 40)
        #expect(try logs.records().map(\.id) == ["b", "c", "a", "d"])   // in the order of their last write
        #expect(try logs.remove("b")?.count == 35)
        #expect(try logs.remove("b") == nil)
        #expect(try logs.removeAll(where: { $0.exercise == "squat" }).map(\.id) == ["c", "d"])
        #expect(try logs.records() == [ExerciseLog(id: "a", exercise: "push-up", count: 40)])

        // A second repository on the same file sees the same records.
        #expect(try repository(directory).records() == (try logs.records()))
    }

    @Test func addOfATakenIdAndUpdateOfAMissingOneFail() throws {
        let directory = try TemporaryDirectory()
        let logs = repository(directory)
        try logs.add(ExerciseLog(id: "a", exercise: "x", count: 1))
        let taken = #expect(throws: StoreError.self) { try logs.add(ExerciseLog(id: "a", exercise: "y", count: 2)) }
        #expect(taken?.code == .duplicateID)
        #expect(taken?.recordID == "a")
        let missing = #expect(throws: StoreError.self) { try logs.update(ExerciseLog(id: "z", exercise: "y", count: 2)) }
        #expect(missing?.code == .notFound)
        #expect(missing?.recordID == "z")
        #expect(try logs.records().map(\.exercise) == ["x"])
    }

    @Test func readsAndNoOpChangesDoNotCreateTheDirectory() throws {
        let directory = try TemporaryDirectory()
        let logs = repository(directory)
        _ = try logs.records()
        #expect(try logs.remove("nothing") == nil)
        #expect(try logs.removeAll(where: { _ in true }).isEmpty)
        #expect(try directory.entries().isEmpty)
        try logs.add(ExerciseLog(id: "a", exercise: "x", count: 1))
        #expect(try directory.mode("data") == 0o700)
        #expect(try directory.mode("data/Exercise.archive") == 0o600)
        #expect(try directory.mode("data/Exercise.archive.lock") == 0o600)
    }

    @Test func concurrentInProcessWritersThroughTwoRepositoriesLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let first = repository(directory), second = repository(directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try (worker.isMultiple(of: 2) ? first : second)
                            .add(ExerciseLog(id: "\(worker)-\(index)", exercise: "x", count: index))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.count() == 200)
        #expect(Set(try second.records().map(\.id)).count == 200)
    }

    @Test func unreadableFileIsReportedAndNeverOverwritten() throws {
        let directory = try TemporaryDirectory()
        let logs = repository(directory)
        try logs.add(ExerciseLog(id: "a", exercise: "x", count: 1))
        let good = try directory.read("data/Exercise.archive")
        let truncated = Array(good.prefix(good.count / 2))
        try directory.write(truncated, to: "data/Exercise.archive")
        for operation in [{ _ = try logs.records() }, { try logs.add(ExerciseLog(id: "b", exercise: "y", count: 2)) },
                          { _ = try logs.removeAll(where: { _ in true }) }] {
            let error = #expect(throws: StoreError.self) { try operation() }
            #expect(error?.code == .corrupt)
            #expect(error?.path == directory.file("data/Exercise.archive"))
        }
        #expect(try directory.read("data/Exercise.archive") == truncated)
        let moved = try logs.moveAside(suffix: "bad")
        #expect(moved == directory.file("data/Exercise.archive.bad"))
        #expect(try directory.read("data/Exercise.archive.bad") == truncated)
        #expect(try logs.records().isEmpty)
    }

    @Test func moveAsideRefusesAReadableFile() throws {
        let directory = try TemporaryDirectory()
        let logs = repository(directory)
        try logs.add(ExerciseLog(id: "a", exercise: "x", count: 1))
        let error = #expect(throws: StoreError.self) { try logs.moveAside(suffix: "bad") }
        #expect(error?.code == .invalidArgument)
        #expect(try logs.count() == 1)
    }

    @Test func symbolicLinkStoreIsRefusedAndItsTargetUntouched() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        try directory.write([1, 2, 3], to: "target")
        try FileManager.default.createSymbolicLink(atPath: directory.file("data/Exercise.archive"), withDestinationPath: directory.file("target"))
        let logs = repository(directory)
        let readError = #expect(throws: StoreError.self) { try logs.records() }
        #expect(readError?.code == .symbolicLink)
        let writeError = #expect(throws: StoreError.self) { try logs.add(ExerciseLog(id: "a", exercise: "x", count: 1)) }
        #expect(writeError?.code == .symbolicLink)
        #expect(try directory.read("target") == [1, 2, 3])
    }

    @Test func theExportIsAnOrdinaryKeyedArchiveWithAVersion() throws {
        let directory = try TemporaryDirectory()
        try repository(directory).add(ExerciseLog(id: "a", exercise: "x", count: 7))
        try repository(directory).exportArchive(to: directory.file("data/Exercise.export"))
        let bytes = try directory.read("data/Exercise.export")
        let plist = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
        #expect(plist?["$archiver"] as? String == "NSKeyedArchiver")
        let objects = plist?["$objects"] as? [Any] ?? []
        let root = objects.compactMap { $0 as? [String: Any] }.first { $0["version"] != nil }
        #expect(root?["version"] as? Int == 1)
        #expect(objects.contains { ($0 as? [String: Any])?["$classname"] as? String == "ArchiveRepositoryFile" })
    }
}

/// Version 2 of a record type whose version 1 stored `total` instead of `count`.
struct CounterV2: ArchiveRecord {
    var id: String
    var count: Int
    static var archiveFormatVersion: Int { 2 }
    static var archivedClassName: String { "Counter" }
    init(id: String, count: Int) { self.id = id; self.count = count }
    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(count, forKey: "count")
    }
    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        // Version 1 wrote the same class with `total`.
        count = try coder.decode(Int.self, forKey: try coder.containsValue(forKey: "count") ? "count" : "total")
    }
    static func migrateRecords(fromVersion version: Int, coder: KeyedUnarchiver) throws -> [CounterV2] {
        guard version == 1 else { throw StoreError(.unsupportedVersion, "no migration from version \(version)") }
        return try coder.decode([CounterV2].self, forKey: "records")
    }
    static func migrateRecord(fromVersion version: Int, coder: KeyedUnarchiver) throws -> CounterV2 {
        CounterV2(id: try coder.decode(String.self, forKey: "id"), count: try coder.decode(Int.self, forKey: "total"))
    }
}

struct CounterV1: ArchiveRecord {
    var id: String
    var total: Int
    static var archivedClassName: String { "Counter" }
    init(id: String, total: Int) { self.id = id; self.total = total }
    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(total, forKey: "total")
    }
    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        total = try coder.decode(Int.self, forKey: "total")
    }
}

@Suite("Store format versions")
struct FormatVersionTests {
    @Test func olderVersionIsMigratedAndRewrittenOnTheNextChange() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Counter.archive")
        try ArchiveRepository<CounterV1>(path: path).add(CounterV1(id: "a", total: 5))
        let v2 = ArchiveRepository<CounterV2>(path: path)
        #expect(try v2.get("a")?.count == 5)
        try v2.add(CounterV2(id: "b", count: 6))
        #expect(try v2.records().map(\.count) == [5, 6])
        #expect(try v2.get("b")?.count == 6)
        // Now at version 2, which version 1 refuses.
        let error = #expect(throws: StoreError.self) { try ArchiveRepository<CounterV1>(path: path).records() }
        #expect(error?.code == .unsupportedVersion)
    }

    @Test func anOlderSingleArchiveStoreIsMigratedByItsFileLevelMigration() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Counter.archive")
        try directory.write(try RepositoryFile<CounterV1>.encode([CounterV1(id: "a", total: 5)], path: path), to: "Counter.archive")
        let v2 = ArchiveRepository<CounterV2>(path: path)
        #expect(try v2.get("a")?.count == 5)
        try v2.add(CounterV2(id: "b", count: 6))
        #expect(RecordLog.isLog(try directory.read("Counter.archive")))
        #expect(try v2.records().map(\.count) == [5, 6])
    }

    @Test func olderVersionWithoutAMigrationIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("Counter.archive")
        try ArchiveRepository<CounterV1>(path: path).add(CounterV1(id: "a", total: 5))
        let before = try directory.read("Counter.archive")
        let error = #expect(throws: StoreError.self) { try ArchiveRepository<CounterV3>(path: path).add(CounterV3(id: "b")) }
        #expect(error?.code == .unsupportedVersion)
        #expect(try directory.read("Counter.archive") == before)
    }
}

/// A version 3 with no migration at all.
struct CounterV3: ArchiveRecord {
    var id: String
    static var archiveFormatVersion: Int { 3 }
    static var archivedClassName: String { "Counter" }
    init(id: String) { self.id = id }
    func encode(with coder: KeyedArchiver) { coder.encode(id, forKey: "id") }
    init(coder: KeyedUnarchiver) throws { id = try coder.decode(String.self, forKey: "id") }
}
