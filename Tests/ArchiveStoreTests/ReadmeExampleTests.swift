import ArchiveStore
import Foundation
import KeyedArchive
import Testing
import TestSupport

/// The repository example of README.md, kept compiling and true.
@Suite("README example")
struct ReadmeExampleTests {
    final class Exercise: ArchiveRecord {
        let id: String
        var count: Int
        init(id: String, count: Int) { (self.id, self.count) = (id, count) }
        init(coder: KeyedUnarchiver) throws {
            id = try coder.decode(String.self, forKey: "id")
            count = try coder.decode(Int.self, forKey: "count")
        }
        func encode(with coder: KeyedArchiver) {
            coder.encode(id, forKey: "id")
            coder.encode(count, forKey: "count")
        }
        static let indexes: [RecordIndex<Exercise>] = [RecordIndex("count", \.count)]
    }

    struct Reading: ArchiveRecord, Codable {
        let id: String
        var celsius: Double
    }

    @Test func aCodableRecordNeedsNoCoderMethods() throws {
        let directory = try TemporaryDirectory(prefix: "readme")
        defer { directory.remove() }
        let path = directory.file("readings.archive")
        try ArchiveRepository<Reading>(path: path).add(Reading(id: "kitchen", celsius: 21.5))
        #expect(try ArchiveRepository<Reading>(path: path).get("kitchen")?.celsius == 21.5)
        #expect(try ArchiveRepository<Reading>(path: path).count() == 1)
    }

    @Test func aNewRecordTypeNeedsOnlyItsModel() throws {
        let directory = try TemporaryDirectory(prefix: "readme")
        defer { directory.remove() }
        let log = ArchiveRepository<Exercise>(path: directory.file("exercises.archive"))
        try log.add(Exercise(id: "push-ups", count: 20))
        try log.add(Exercise(id: "squats", count: 35))
        let best = try log.max(of: \.count)   // from the index: no record decoded
        let top = try log.records(matching: RecordQuery().sorted(by: \.count, ascending: false).limit(10))
        #expect(best == 35)
        #expect(top.map(\.id) == ["squats", "push-ups"])
        #expect(log.statistics.recordsDecoded == 2)   // the two returned by `top`, none by `max`
        #expect(try log.get("push-ups")?.count == 20)
    }
}
