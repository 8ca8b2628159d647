import ArchiveStore
import CommandLineSupport

extension Inspector {
    /// `keyedarchive cache trim DIR --bytes N` evicts least recently used entries down to N bytes.
    static var cacheTrimCommand: Command {
        Command(
            name: "trim",
            abstract: "Evict least recently used entries until the cache fits in a size.",
            discussion: "Removes entries, least recently used first, until their files take at most --bytes "
                + "(0 removes every entry), and removes temporary files of writers that died. Then prints "
                + "'entries: N' and 'bytes: N', what is left.",
            arguments: [cacheDirectoryArgument],
            options: [
                .option("bytes", valueName: "n", help: "Most bytes of entry files to keep: digits, optionally "
                    + "followed by k, M or G (times 1024, 1024², 1024³), as in 512k.", required: true),
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            guard let text = context.arguments.value("bytes") else { throw UsageError("Missing expected argument '--bytes <n>'.") }
            let limit = try CacheAccess.byteCount(text, option: "--bytes <n>")
            let cache = try CacheAccess.open(directory)
            try CacheAccess.perform { () throws(StoreError) in
                // trim(toByteLimit: 0) takes 0 as "no limit" (as CacheOptions.byteLimit does) and evicts nothing.
                if limit == 0 { try cache.removeAll() } else { try cache.trim(toByteLimit: limit) }
            }
            let statistics = cache.statistics
            context.stdout.write(CacheRendering.counts(
                [("entries", statistics.entryCount), ("bytes", statistics.byteCount)], json: false))
            return ExitStatus.success
        }
    }
}
