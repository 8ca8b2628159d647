// The same client with a Sendable value: it must compile (Scripts/check-sendability.sh), and the cache, its
// get-or-load and its values cross tasks and actors freely.
import ArchiveStore
import KeyedArchive

struct Tally: Codable, Sendable {
    var n: Int
}

actor Scoreboard {
    let cache: ArchiveCache<Tally>
    init(cache: ArchiveCache<Tally>) { self.cache = cache }
    func bump() async throws -> Int {
        let current = try await cache.value(forKey: "k") { _ in Tally(n: 0) }
        try cache.set(Tally(n: current.n + 1), forKey: "k")
        return current.n + 1
    }
}

func share(directory: String) async throws {
    var options = CacheOptions()
    options.memoryCostLimit = 1 << 20
    let cache = try ArchiveCache<Tally>(directory: directory, options: options)
    try cache.set(Tally(n: 0), forKey: "k")
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<2 {
            group.addTask {
                for _ in 0..<1_000 {
                    if let t = try? cache.value(forKey: "k") { _ = t.n + 1 }
                }
            }
        }
    }
    let board = Scoreboard(cache: cache)
    _ = try await board.bump()
}
