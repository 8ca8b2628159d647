import ArchiveStore
import BinaryPlist
import Foundation
import KeyedArchive

/// Issue 5, in-process: where the time of `formcache add` and `get` goes on a store of n form records.
/// The whole-process figures come from `Benchmarks/formcache/figures.py`; this splits them into phases.
enum StoreWorkload {
    static func run(count: Int, rounds: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let records = (0..<count).map { i in
            FormRecord(id: String(format: "00000000-0000-4000-8000-%012d", i), name: "form-\(i)",
                       fields: ["email": "user\(i)@example.com"], registeredAt: start, timeToLive: .defaultValue)
        }
        let cache = FormCache(directory: directory.path)
        try cache.repository.modify { stored in
            stored = records
            return true
        }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cache.path)))
        print("store: \(count) records, \(bytes.count) bytes")
        var phases: [(String, [Double])] = [
            ("read file", []), ("digest", []), ("parse (offset table)", []), ("parse + check layout", []), ("scan ids (decodeID)", []),
            ("append (archive one record, splice)", []), ("RepositoryFile.appending (ids + splice + read back)", []),
            ("full path: decode all", []), ("full path: encode all, read back", []),
            ("FormCache.add (whole, with fsyncs)", []), ("FormCache.get (whole)", []),
        ]
        let extra = FormRecord(id: "bench-extra", name: "extra", fields: ["k": "v"], registeredAt: start, timeToLive: .defaultValue)
        for round in 0..<rounds {
            var i = 0
            func time(_ body: () throws -> Void) rethrows {
                phases[i].1.append(try timeMS(body))
                i += 1
            }
            try time { blackHole(try Data(contentsOf: URL(fileURLWithPath: cache.path))) }
            time { blackHole(StoreDigest.of(bytes)) }
            try time { blackHole(try BinaryPlistDocument(bytes).objectCount) }
            try time { blackHole(try BinaryPlistAppender(try BinaryPlistDocument(bytes)).objectCount) }
            try time {
                try KeyedUnarchiver.withUnarchiver(for: bytes, registry: RepositoryFile<FormRecord>.registry) { coder in
                    guard let root = try coder.objectUID(forKey: "root") else { return }
                    try coder.visitObject(root, key: "root") {
                        for uid in try coder.elementUIDs(forKey: "records") {
                            blackHole(try coder.visitObject(uid, key: "records") { try FormRecord.decodeID(from: coder) })
                        }
                    }
                }
            }
            try time { blackHole(try KeyedArchiveAppender.appending(extra, toArrayAt: ["root", "records"], in: bytes)) }
            try time {
                guard try RepositoryFile<FormRecord>.appending(extra, to: bytes, path: cache.path) != nil else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the quick append did not apply"])
                }
            }
            var decoded: [FormRecord] = []
            try time { decoded = try RepositoryFile<FormRecord>.decode(bytes, path: cache.path).records }
            try time { blackHole(try RepositoryFile<FormRecord>.encode(decoded, path: cache.path)) }
            let added = FormRecord(id: "bench-\(round)", name: "added", fields: ["k": "v"], registeredAt: start,
                                   timeToLive: .defaultValue)
            try time { try cache.repository.add(added) }
            try time { blackHole(try cache.repository.get("00000000-0000-4000-8000-\(String(format: "%012d", count / 2))")) }
            try cache.repository.remove(added.id)
        }
        for (name, samples) in phases {
            let sorted = samples.sorted()
            print("RESULT op=\"\(name)\" n=\(count) median_ms=\(String(format: "%.2f", sorted[sorted.count / 2]))")
        }
    }
}

extension StoreWorkload {
    /// Repeats one phase for a profiler: `keyed-bench store-profile layout|ids [n] --rounds k`.
    static func profile(_ phase: String, count: Int, repeats: Int) throws {
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let records = (0..<count).map { i in
            FormRecord(id: String(format: "00000000-0000-4000-8000-%012d", i), name: "form-\(i)",
                       fields: ["email": "user\(i)@example.com"], registeredAt: start, timeToLive: .defaultValue)
        }
        let bytes = try RepositoryFile<FormRecord>.encode(records, path: "-")
        for _ in 0..<repeats {
            switch phase {
            case "layout": blackHole(try BinaryPlistAppender(try BinaryPlistDocument(bytes)).objectCount)
            default:
                try KeyedUnarchiver.withUnarchiver(for: bytes, registry: RepositoryFile<FormRecord>.registry) { coder in
                    guard let root = try coder.objectUID(forKey: "root") else { return }
                    try coder.visitObject(root, key: "root") {
                        for uid in try coder.elementUIDs(forKey: "records") {
                            blackHole(try coder.visitObject(uid, key: "records") { try FormRecord.decodeID(from: coder) })
                        }
                    }
                }
            }
        }
    }
}
