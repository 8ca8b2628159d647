import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// A model-based test of the property indexes: random adds, updates, removes and transactions through one
/// repository object, with a second object on the same store following through the log, the store closed and
/// opened again, compacted, and its index files damaged; after each step random queries through both objects
/// must return exactly what a full scan of a model returns (never a record that does not match, never one
/// missing, in the same order).
@Suite("Repository: queries against a full scan")
struct QueryModelTests {
    struct Model {
        var records: [String: IndexedExercise] = [:]
        /// Ids in the order of their last write.
        var order: [String] = []

        mutating func put(_ record: IndexedExercise) {
            records[record.id] = record
            order.removeAll { $0 == record.id }
            order.append(record.id)
        }

        mutating func remove(_ id: String) {
            records[id] = nil
            order.removeAll { $0 == id }
        }

        func run(_ query: RecordQuery<IndexedExercise>) -> [IndexedExercise] {
            var rows = order.enumerated().compactMap { position, id -> (Int, IndexedExercise)? in
                guard let record = records[id] else { return nil }
                for condition in query.conditions {
                    guard condition.admits(condition.property.value(record)) else { return nil }
                }
                return (position, record)
            }
            if let order = query.order {
                let value = order.property.value
                rows.sort { a, b in
                    let x = value(a.1), y = value(b.1)
                    if x != y { return order.ascending ? x < y : y < x }
                    return order.ascending ? a.0 < b.0 : b.0 < a.0
                }
            }
            let start = min(query.offsetCount, rows.count)
            let end = query.limitCount.map { min(rows.count, start + $0) } ?? rows.count
            return rows[start..<end].map(\.1)
        }
    }

    func randomQuery(_ random: inout SeededGenerator) -> RecordQuery<IndexedExercise> {
        var query = RecordQuery<IndexedExercise>()
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                let low = Int.random(in: -25...80, using: &random)
                query = query.where(\.recordCount, in: low...(low + Int.random(in: 0...40, using: &random)))
            case 1: query = query.where(\.recordCount, equals: Int.random(in: -20...80, using: &random))
            case 2: query = query.where(\.recordDate, in: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...96, using: &random) * 1000))...)
            case 3: query = query.where(\.note, equals: Bool.random(using: &random) ? nil : "n\(Int.random(in: 0..<4, using: &random))")
            case 4: query = query.where(\.weight, in: 1.0..<Double(Int.random(in: 2...6, using: &random)))   // not indexed
            default: query = query.where(\.recordDate, in: ..<Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...96, using: &random) * 1000)))
            }
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: query = query.sorted(by: \.recordCount, ascending: Bool.random(using: &random))
        case 1: query = query.sorted(by: \.recordDate, ascending: Bool.random(using: &random))
        case 2: query = query.sorted(by: \.note, ascending: Bool.random(using: &random))
        case 3: query = query.sorted(by: \.weight, ascending: Bool.random(using: &random))   // not indexed
        default: break
        }
        if Bool.random(using: &random) { query = query.limit(Int.random(in: 0...30, using: &random)) }
        if Bool.random(using: &random) { query = query.offset(Int.random(in: 0...20, using: &random)) }
        return query
    }

    func check(_ repository: ArchiveRepository<IndexedExercise>, _ model: Model, _ random: inout SeededGenerator, step: Int) throws {
        for _ in 0..<3 {
            let query = randomQuery(&random)
            let expected = model.run(query)
            let found = try repository.records(matching: query)
            #expect(found == expected, "step \(step): \(query.conditions.count) conditions, order \(query.order.map { "\($0.property.keyPath.map { "\($0)" } ?? "a closure") \($0.ascending)" } ?? "none"), offset \(query.offsetCount), limit \(query.limitCount.map(String.init) ?? "none")")
            #expect(try repository.ids(matching: query) == expected.map(\.id), "step \(step)")
            #expect(try repository.count(matching: query) == expected.count, "step \(step)")
            var unwindowed = query
            unwindowed.limitCount = nil
            unwindowed.offsetCount = 0
            let matching = model.run(unwindowed)
            #expect(try repository.max(of: \.recordCount, matching: query) == matching.map(\.recordCount).max(), "step \(step)")
            #expect(try repository.min(of: \.recordDate, matching: query) == matching.map(\.recordDate).min(), "step \(step)")
            #expect(try repository.sum(of: \.recordCount, matching: query) == matching.map(\.recordCount).reduce(0, +), "step \(step)")
            #expect(try repository.max(of: \.note, matching: query) == matching.compactMap(\.note).max(), "step \(step)")
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func queriesAlwaysMatchAFullScanOfAModel(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        var options = RepositoryOptions()
        options.tuning.maintainsInBackground = false
        options.tuning.compactionFloor = 8 << 10   // compactions happen within the run
        options.tuning.mergeFrames = 16
        let path = directory.file("Exercises.archive")
        var writer = ArchiveRepository<IndexedExercise>(path: path, options: options)
        var reader = ArchiveRepository<IndexedExercise>(path: path, options: options)
        var model = Model()
        var random = SeededGenerator(seed: seed)
        var next = 0
        func newRecord() -> IndexedExercise {
            next += 1
            return exercise(next, count: Int.random(in: -20...80, using: &random),
                            note: Bool.random(using: &random) ? nil : "n\(Int.random(in: 0..<4, using: &random))")
        }
        for step in 0..<80 {
            let ids = model.order
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1, 2:
                let record = newRecord()
                try writer.add(record)
                model.put(record)
            case 3:
                guard let id = ids.randomElement(using: &random), var record = model.records[id] else { continue }
                record.recordCount = Int.random(in: -20...80, using: &random)
                record.note = Bool.random(using: &random) ? nil : "n\(Int.random(in: 0..<4, using: &random))"
                try writer.update(record)
                model.put(record)
            case 4:
                guard let id = ids.randomElement(using: &random) else { continue }
                try writer.remove(id)
                model.remove(id)
            case 5:
                // A transaction of several changes, from either object.
                let through = Bool.random(using: &random) ? writer : reader
                var staged = model
                try through.write { transaction in
                    for _ in 0..<Int.random(in: 1...8, using: &random) {
                        if let id = staged.order.randomElement(using: &random), Bool.random(using: &random) {
                            try transaction.remove(id)
                            staged.remove(id)
                        } else {
                            let record = newRecord()
                            try transaction.upsert(record)
                            staged.put(record)
                        }
                    }
                }
                model = staged
            case 6:
                let batch = (0..<Int.random(in: 1...40, using: &random)).map { _ in newRecord() }
                try writer.add(contentsOf: batch)
                for record in batch { model.put(record) }
            case 7:
                // Opened again: the second object from the files, the first one later.
                if Bool.random(using: &random) { reader.close() } else { reader = ArchiveRepository<IndexedExercise>(path: path, options: options) }
            case 8:
                // An index file damaged (or removed) while nobody has the store open.
                writer.close()
                reader.close()
                let name = ["recordDate", "recordCount", "note"].randomElement(using: &random) ?? "note"
                let file = writer.propertyIndexPath(name)
                if var bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: file))), !bytes.isEmpty {
                    if Bool.random(using: &random) {
                        bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                        try Data(bytes).write(to: URL(fileURLWithPath: file))
                    } else {
                        try FileManager.default.removeItem(atPath: file)
                    }
                }
                writer = ArchiveRepository<IndexedExercise>(path: path, options: options)
            default:
                break
            }
            try check(Bool.random(using: &random) ? writer : reader, model, &random, step: step)
        }
        try check(writer, model, &random, step: -1)
        try check(reader, model, &random, step: -2)
    }
}
