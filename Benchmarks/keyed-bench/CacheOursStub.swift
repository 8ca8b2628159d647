// Stands in for the ArchiveCache runner until ArchiveCache is merged from main.
struct OursCacheRunner {
    let plan: CachePlan
    let root: String
    func run(_ emit: (CacheResult) -> Void) throws { progress("ours: ArchiveCache is not merged yet; skipped") }
}
