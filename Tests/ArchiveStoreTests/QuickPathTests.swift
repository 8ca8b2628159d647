import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TestSupport
@testable import ArchiveStore

/// A record type that reads its id alone, so `get` and `add` take the quick paths.
struct Reading: ArchiveRecord, Equatable {
    var id: String
    var value: Double
    var tags: [String]

    init(id: String, value: Double, tags: [String] = []) {
        self.id = id
        self.value = value
        self.tags = tags
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(value, forKey: "value")
        coder.encode(tags, forKey: "tags")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        value = try coder.decode(Double.self, forKey: "value")
        tags = try coder.decode([String].self, forKey: "tags")
    }

    static func decodeID(from coder: KeyedUnarchiver) throws -> String? { try coder.decode(String.self, forKey: "id") }
}

@Suite("Repository quick paths (append in place, lookup by id)")
struct QuickPathTests {
    func readings(_ directory: TemporaryDirectory) -> ArchiveRepository<Reading> {
        ArchiveRepository(path: directory.file("Readings.archive"))
    }

    func sample(_ i: Int) -> Reading {
        Reading(id: "r\(i)", value: Double(i) * 1.5, tags: i.isMultiple(of: 3) ? ["third", "t\(i)"] : ["t\(i)"])
    }

    @Test func addAppendsToTheStoredFileInsteadOfArchivingEverything() throws {
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        try repository.modify { records in
            records = (0..<20).map(sample)
            return true
        }
        let before = try directory.read("Readings.archive")
        let record = sample(20)
        // The quick path applies, and `add` wrote exactly what it gives (it is deterministic).
        let appended = try #require(try RepositoryFile<Reading>.appending(record, to: before, path: repository.path))
        try repository.add(record)
        #expect(try directory.read("Readings.archive") == appended)
        #expect(appended != (try RepositoryFile<Reading>.encode((0...20).map(sample), path: repository.path)))
        #expect(try repository.all() == (0...20).map(sample))
    }

    @Test func quickAndFullPathsKeepTheSameRecordsThroughRandomChanges() throws {
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        var model: [Reading] = []
        var rng = SeededGenerator(seed: 11)
        var next = 0
        for step in 0..<120 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                let record = sample(next)
                next += 1
                try repository.add(record)
                model.append(record)
            case 6:
                guard !model.isEmpty else { continue }
                let victim = model.remove(at: Int.random(in: 0..<model.count, using: &rng))
                #expect(try repository.remove(victim.id) == victim)
            case 7:
                guard !model.isEmpty else { continue }
                let index = Int.random(in: 0..<model.count, using: &rng)
                model[index].value += 100
                try repository.update(model[index])
            default:
                let id = "r\(Int.random(in: 0..<(next + 2), using: &rng))"
                #expect(try repository.get(id) == model.first { $0.id == id }, "step \(step): get \(id)")
            }
            #expect(try repository.count() == model.count, "step \(step)")
        }
        #expect(try repository.all() == model)
    }

    @Test func aTakenIdIsRefusedByTheQuickPathAndTheFileIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        for i in 0..<5 { try repository.add(sample(i)) }
        let before = try directory.read("Readings.archive")
        let error = #expect(throws: StoreError.self) { try repository.add(Reading(id: "r3", value: 0)) }
        #expect(error?.code == .duplicateID)
        #expect(error?.recordID == "r3")
        #expect(try directory.read("Readings.archive") == before)
    }

    @Test func recordTypesThatDoNotReadIdsAloneTakeTheFullPath() throws {
        let directory = try TemporaryDirectory()
        let logs = ArchiveRepository<ExerciseLog>(path: directory.file("Exercise.archive"))
        try logs.add(ExerciseLog(id: "a", exercise: "x", count: 1))
        let bytes = try directory.read("Exercise.archive")
        #expect(try RepositoryFile<ExerciseLog>.appending(ExerciseLog(id: "b", exercise: "y", count: 2), to: bytes, path: logs.path) == nil)
        try logs.add(ExerciseLog(id: "b", exercise: "y", count: 2))
        #expect(try logs.all().map(\.id) == ["a", "b"])
        #expect(try directory.read("Exercise.archive") == (try RepositoryFile<ExerciseLog>.encode(logs.all(), path: logs.path)))
    }

    @Test func aStoreInXMLIsRewrittenInFullAsBinary() throws {
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        let xml = try KeyedArchiver.archivedData(withRootObject: RepositoryFile(records: [sample(0)]), format: .xml)
        try directory.write(xml, to: "Readings.archive")
        try repository.add(sample(1))
        let bytes = try directory.read("Readings.archive")
        #expect(Array(bytes.prefix(6)) == Array("bplist".utf8))
        #expect(try repository.all() == [sample(0), sample(1)])
    }

    @Test func aStoreChangedBehindTheRepositorysBackIsReadInFull() throws {
        // A record damaged in a field other than its id, by something other than the repository: the file no
        // longer matches the digest of the last write, so `get` and `add` decode it in full, report it as
        // corrupt like `all`, and write nothing.
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        for i in 0..<4 { try repository.add(sample(i)) }
        #expect(try repository.get("r1") == sample(1))
        var graph = try ArchiveGraph(bytes: directory.read("Readings.archive"))
        let damaged = try #require(graph.objects.indices.first { graph.instance($0)?["value"] != nil && graph.objects[$0]["id"].flatMap { $0.uidValue }.map { graph.objects[Int($0.value)] } == "r2" })
        var fields = try #require(graph.objects[damaged].dictionaryValue)
        fields["value"] = "not a number"
        graph.objects[damaged] = .dictionary(fields)
        let bytes = try graph.encoded()
        try directory.write(bytes, to: "Readings.archive")

        for operation in [{ _ = try repository.all() }, { _ = try repository.get("r1") }, { try repository.add(sample(9)) }] {
            let error = #expect(throws: StoreError.self) { try operation() }
            #expect(error?.code == .corrupt)
        }
        #expect(try directory.read("Readings.archive") == bytes)
    }

    @Test func aStoreRewrittenByAnotherProgramTakesTheFullPathOnce() throws {
        // Same records, other bytes (as another writer would lay them out): read in full, then archived anew,
        // after which the quick path applies again.
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        for i in 0..<3 { try repository.add(sample(i)) }
        let other = try ArchiveGraph(bytes: directory.read("Readings.archive")).encoded(format: .xml)
        try directory.write(try PropertyList.encode(PropertyList.decode(other), format: .binary), to: "Readings.archive")
        try repository.add(sample(3))
        #expect(try directory.read("Readings.archive") == (try RepositoryFile<Reading>.encode((0...3).map(sample), path: repository.path)))
        let before = try directory.read("Readings.archive")
        let appended = try #require(try RepositoryFile<Reading>.appending(sample(4), to: before, path: repository.path))
        try repository.add(sample(4))
        #expect(try directory.read("Readings.archive") == appended)
    }

    @Test func aMissingOrUnreadableDigestOnlyCostsTheQuickPath() throws {
        let directory = try TemporaryDirectory()
        let repository = readings(directory)
        var next = 0
        for _ in 0..<3 {
            try repository.add(sample(next))
            next += 1
        }
        // An empty lock file or a digest that does not parse: read in full, and the next write records one.
        for garbage in [[UInt8](), Array("archive-digest zz\n".utf8)] {
            try directory.write(garbage, to: "Readings.archive.lock")
            #expect(try repository.get("r1") == sample(1))
            try repository.add(sample(next))
            next += 1
            #expect(String(decoding: try directory.read("Readings.archive.lock"), as: UTF8.self).hasPrefix("archive-digest "))
        }
        // Anything else in the lock file is never overwritten: the store keeps working, in full.
        let foreign: [UInt8] = [0xFF, 0x00, 0x41]
        try directory.write(foreign, to: "Readings.archive.lock")
        #expect(try repository.get("r1") == sample(1))
        try repository.add(sample(next))
        #expect(try repository.all() == (0...next).map(sample))
        #expect(try directory.read("Readings.archive.lock") == foreign)
    }

    @Test func theDigestChangesWithAnyChangedByte() throws {
        let bytes = try RepositoryFile<Reading>.encode((0..<30).map(sample), path: "x")
        let digest = StoreDigest.of(bytes)
        #expect(StoreDigest.of(bytes) == digest)
        var rng = SeededGenerator(seed: 3)
        var digests: Set<UInt64> = [digest]
        var flips: Set<Int> = []
        for _ in 0..<500 {
            var changed = bytes
            let at = Int.random(in: 0..<changed.count, using: &rng)
            let bit = Int.random(in: 0..<8, using: &rng)
            changed[at] ^= UInt8(1 << bit)
            flips.insert(at * 8 + bit)
            digests.insert(StoreDigest.of(changed))
        }
        // Every distinct one-bit change gives a digest of its own.
        #expect(digests.count == flips.count + 1)
        #expect(StoreDigest.of(bytes + [0]) != digest)
        #expect(StoreDigest.of(Array(bytes.dropLast())) != digest)
    }

    @Test func concurrentQuickAddsLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let first = readings(directory)
        let second = readings(directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try (worker.isMultiple(of: 2) ? first : second).add(Reading(id: "\(worker)-\(index)", value: 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try first.all()
        #expect(all.count == 200)
        #expect(Set(all.map(\.id)).count == 200)
    }

    @Test func foundationReadsAFormCacheStoreAfterQuickAdds() throws {
        let directory = try TemporaryDirectory()
        let clock = FixedClock(Date(timeIntervalSince1970: 1_800_000_000))
        let cache = FormCache(directory: directory.path, clock: clock)
        var added: [FormRecord] = []
        for i in 0..<12 {
            added.append(try cache.add(name: "form \(i)", fields: ["email": "u\(i)@example.com", "n": "\(i)"]))
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: cache.path))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FoundationStoreFile.self, forClassName: "ArchiveRepositoryFile")
        unarchiver.setClass(FoundationFormRecord.self, forClassName: "FormRecord")
        let root = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FoundationStoreFile)
        #expect(root.version == 1)
        #expect(root.records.map(\.id) == added.map(\.id))
        #expect(root.records.map(\.name) == added.map(\.name))
        #expect(root.records.map(\.fields) == added.map(\.fields))
        #expect(root.records.map(\.expiresAt) == added.map(\.expiresAt))
    }
}

struct FixedClock: StoreClock {
    let date: Date
    init(_ date: Date) { self.date = date }
    func now() -> Date { date }
}

/// Foundation's view of the store file, for the compatibility test.
final class FoundationStoreFile: NSObject, NSCoding {
    let version: Int
    let records: [FoundationFormRecord]
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {
        version = coder.decodeInteger(forKey: "version")
        records = coder.decodeObject(forKey: "records") as? [FoundationFormRecord] ?? []
    }
}

final class FoundationFormRecord: NSObject, NSCoding {
    let id: String
    let name: String
    let fields: [String: String]
    let expiresAt: Date
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {
        guard let id = coder.decodeObject(forKey: "id") as? String, let name = coder.decodeObject(forKey: "name") as? String,
              let fields = coder.decodeObject(forKey: "fields") as? [String: String],
              let expiresAt = coder.decodeObject(forKey: "expiresAt") as? Date
        else { return nil }
        (self.id, self.name, self.fields, self.expiresAt) = (id, name, fields, expiresAt)
    }
}
