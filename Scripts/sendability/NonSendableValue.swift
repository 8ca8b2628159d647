// A client in the Swift 6 language mode sharing an ArchiveCache of a non-Sendable class across tasks: two
// TaskGroup children would mutate one Counter (the memory layer hands both the same instance). It must NOT
// compile: Scripts/check-sendability.sh expects a Sendable diagnostic here.
import ArchiveStore
import KeyedArchive

final class Counter: KeyedArchivable {
    var n = 0
    init() {}
    init(coder: KeyedUnarchiver) throws { n = try coder.decode(Int.self, forKey: "n") }
    func encode(with coder: KeyedArchiver) { coder.encode(n, forKey: "n") }
}

func race(directory: String) async throws {
    var options = CacheOptions()
    options.memoryCostLimit = 1 << 20
    let cache = try ArchiveCache<Counter>(directory: directory, registry: ClassRegistry([Counter.self]), options: options)
    try cache.set(Counter(), forKey: "k")
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<2 {
            group.addTask {
                for _ in 0..<1_000 {
                    if let c = try? cache.value(forKey: "k") { c.n += 1 }
                }
            }
        }
    }
}
