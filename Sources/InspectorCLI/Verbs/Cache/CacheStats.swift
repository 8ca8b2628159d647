import ArchiveStore
import CommandLineSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
extension Verbs {
    /// `keyedarchive cache stats DIR [--json]` prints the entry count, their bytes and how many have expired.
    static var cacheStats: Command {
        Command(
            name: "stats",
            abstract: "Print how many entries the cache holds and their size.",
            discussion: "Prints 'entries: N' (as the cache's table counts them), 'bytes: N' (what DIR takes on "
                + "disk, as 'du' counts it: the limit a byte limit keeps) and 'expired: N' (entries past their "
                + "expiry, not yet purged), one a line; "
                + "with --json, one object {\"entries\": N, \"bytes\": N, \"expired\": N}.",
            arguments: [cacheDirectoryArgument],
            options: [.flag("json", help: "Print a JSON object.")]
        ) { context in
            let (cache, entries) = try CacheAccess.openWithEntries(context)
            let now = cache.options.clock.now()
            let expired = entries.count { entry in entry.expires.map { $0 <= now } ?? false }
            let statistics = cache.statistics
            context.stdout.write(CacheRendering.counts(
                [("entries", statistics.entryCount), ("bytes", statistics.byteCount), ("expired", expired)],
                json: context.arguments.flag("json")))
            return ExitStatus.success
        }
    }
}
