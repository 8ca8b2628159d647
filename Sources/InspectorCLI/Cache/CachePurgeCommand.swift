import ArchiveStore
import CommandLineSupport

extension Inspector {
    /// `keyedarchive cache purge DIR [--expired | --all]` removes expired entries, or every entry.
    static var cachePurgeCommand: Command {
        Command(
            name: "purge",
            abstract: "Remove expired entries (or every entry) and print how many.",
            discussion: "Prints 'removed: N'. Without an option, or with --expired, removes the entries past their "
                + "expiry; with --all, every entry (files in DIR that are not entries, and the cache's own files, "
                + "stay). With --all, N is the entry count just before the removal.",
            usage: ["[--expired | --all] <dir>"],
            arguments: [cacheDirectoryArgument],
            options: [
                .flag("expired", help: "Remove the entries past their expiry (the default)."),
                .flag("all", help: "Remove every entry."),
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            let all = context.arguments.flag("all")
            if all && context.arguments.flag("expired") {
                throw UsageError("'--expired' and '--all' cannot be used together.")
            }
            let cache = try CacheAccess.open(directory)
            let removed = try CacheAccess.perform { () throws(StoreError) -> Int in
                guard all else { return try cache.removeExpired() }
                // removeAll() does not say how many it removed; the index's count just before is the answer.
                let count = cache.statistics.entryCount
                try cache.removeAll()
                return count
            }
            context.stdout.write(CacheRendering.counts([("removed", removed)], json: false))
            return ExitStatus.success
        }
    }
}
