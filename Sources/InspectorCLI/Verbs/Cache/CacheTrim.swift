import ArchiveStore
import CommandLineSupport

extension Verbs {
    /// `keyedarchive cache trim DIR --bytes N` evicts entries, oldest first, until the directory takes N bytes.
    static var cacheTrim: Command {
        Command(
            name: "trim",
            abstract: "Evict entries, oldest first, until the cache takes at most a size on disk.",
            discussion: "Evicts entries as the cache does past its byte limit (the oldest segment first, whole; an "
                + "entry read since it was written is carried forward once instead) until DIR takes at most "
                + "--bytes on disk, as 'du' counts it (0 removes every entry), and removes temporary files of "
                + "writers that died. Then prints 'entries: N' and 'bytes: N', what is left (bytes as 'du' counts "
                + "them: an empty cache's own files take about 24k). On a terminal, stderr shows the bytes given back "
                + "so far unless --quiet.",
            arguments: [cacheDirectoryArgument],
            options: [
                .option("bytes", valueName: "n", help: "Most bytes DIR may take on disk: digits, optionally "
                    + "followed by k, M or G (times 1024, 1024², 1024³), as in 512k.", required: true),
                .quietProgress,
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            guard let text = context.arguments.value("bytes") else { throw UsageError("Missing expected argument '--bytes <n>'.") }
            let limit = try CacheAccess.byteCount(text, option: "--bytes <n>")
            let cache = try CacheAccess.open(directory)
            let progress = ProgressReporter.forCommand(context, label: "trim", unit: limit == 0 ? "files" : "bytes", total: nil,
                                                       quiet: context.arguments.flag("quiet"))
            try CacheAccess.perform { () throws(StoreError) in
                defer { progress.finish() }
                // 0: every entry, and the segments with them (trim would leave the empty head segment's file).
                if limit == 0 {
                    try cache.removeAll(progress: progress.update)
                } else {
                    try cache.trim(toByteLimit: limit, progress: progress.update)
                }
            }
            let statistics = cache.statistics
            context.stdout.write(CacheRendering.counts(
                [("entries", statistics.entryCount), ("bytes", statistics.byteCount)], json: false))
            return ExitStatus.success
        }
    }
}
