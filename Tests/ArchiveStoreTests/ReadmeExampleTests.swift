import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// The repository example of README.md, kept compiling and true (with its optional `decodeID` extension).
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
    }

    @Test func aNewRecordTypeNeedsOnlyItsModel() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = ArchiveRepository<Exercise>(path: directory.appendingPathComponent("exercises.archive").path)
        try log.add(Exercise(id: "push-ups", count: 20))
        try log.add(Exercise(id: "squats", count: 35))
        let best = try log.all().map(\.count).max()
        #expect(best == 35)
        #expect(try log.get("push-ups")?.count == 20)
    }

    @Test func readingIdsAloneIsOneStaticFunction() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("exercises.archive").path
        let log = ArchiveRepository<Exercise>(path: path)
        try log.add(Exercise(id: "push-ups", count: 20))
        let stored = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let squats = Exercise(id: "squats", count: 35)
        let appended = try #require(try RepositoryFile<Exercise>.appending(squats, to: stored, path: path))
        try log.add(squats)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == appended)
        #expect(try log.get("squats")?.count == 35)
        #expect(try log.all().map(\.id) == ["push-ups", "squats"])
    }
}

extension ReadmeExampleTests.Exercise {
    static func decodeID(from coder: KeyedUnarchiver) throws -> String? { try coder.decode(String.self, forKey: "id") }
}
