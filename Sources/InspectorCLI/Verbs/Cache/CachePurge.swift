import ArchiveStore
import CommandLineSupport

extension Verbs {
    /// `keyedarchive cache purge DIR [--expired | --all]` removes expired entries, or every entry.
    static var cachePurge: Command {
        Command(
            name: "purge",
            abstract: "Remove expired entries (or every entry) and print how many.",
            discussion: "Prints 'removed: N'. Without an option, or with --expired, removes the entries past their "
                + "expiry; with --all, every entry (files in DIR that are not entries, and the cache's own files, "
                + "stay). With --all, N is the entry count just before the removal. On a terminal, stderr shows the "
                + "entries removed so far (with --all, the files) unless --quiet.",
            usage: ["[--expired | --all] [--quiet] <dir>"],
            arguments: [cacheDirectoryArgument],
            options: [
                .flag("expired", help: "Remove the entries past their expiry (the default)."),
                .flag("all", help: "Remove every entry."),
                .quietProgress,
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            let all = context.arguments.flag("all")
            if all && context.arguments.flag("expired") {
                throw UsageError("'--expired' and '--all' cannot be used together.")
            }
            let cache = try CacheAccess.open(directory)
            let progress = ProgressReporter.forCommand(context, label: "purge", unit: all ? "files" : "entries", total: nil,
                                                       quiet: context.arguments.flag("quiet"))
            let removed = try CacheAccess.perform { () throws(StoreError) -> Int in
                defer { progress.finish() }
                return all ? try cache.removeAll(progress: progress.update) : try cache.removeExpired(progress: progress.update)
            }
            context.stdout.write(CacheRendering.counts([("removed", removed)], json: false))
            return ExitStatus.success
        }
    }
}
