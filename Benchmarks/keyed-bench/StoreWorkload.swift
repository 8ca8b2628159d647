import ArchiveStore
import Foundation
import KeyedArchive
import FormCache

/// In-process: what one operation of `ArchiveRepository` costs on a store of n form records, without the
/// process start that `Benchmarks/formcache/figures.py` includes. Each figure is the median of `rounds`.
enum StoreWorkload {
    static func run(count: Int, rounds: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let records = (0..<count).map { i in
            FormRecord(id: String(format: "00000000-0000-4000-8000-%012d", i), name: "form-\(i)",
                       fields: ["email": "user\(i)@example.com"], registeredAt: start, timeToLive: .defaultValue)
        }
        // The repository FormCache keeps, at the same path (its `repository` is not public).
        let repository = ArchiveRepository<FormRecord>(path: FormCache(directory: directory.path).path)
        let built = try timeMS { try repository.add(contentsOf: records, skippingExisting: false) }
        let size = (try FileManager.default.attributesOfItem(atPath: repository.path)[.size] as? NSNumber)?.intValue ?? 0
        print("store: \(count) records, \(size) bytes, added in one commit in \(String(format: "%.0f", built)) ms")
        var phases: [(String, [Double])] = [
            ("get", []), ("add", []), ("update", []), ("remove", []), ("count", []), ("expired(at:), none expired", []),
        ]
        for round in 0..<rounds {
            var i = 0
            func time(_ body: () throws -> Void) rethrows {
                phases[i].1.append(try timeMS(body))
                i += 1
            }
            var added = FormRecord(id: "bench-\(round)", name: "added", fields: ["k": "v"], registeredAt: start,
                                   timeToLive: .defaultValue)
            try time { blackHole(try repository.get(records[(round * 7919) % count].id)) }
            try time { try repository.add(added) }
            added.name = "updated"
            try time { try repository.update(added) }
            try time { blackHole(try repository.remove(added.id)) }
            try time { blackHole(try repository.count()) }
            try time { blackHole(try repository.expired(at: start)) }
        }
        for (name, samples) in phases {
            let sorted = samples.sorted()
            print("RESULT op=\"\(name)\" n=\(count) median_ms=\(String(format: "%.3f", sorted[sorted.count / 2]))")
        }
    }
}
