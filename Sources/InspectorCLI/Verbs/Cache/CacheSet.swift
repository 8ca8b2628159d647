import ArchiveStore
import CommandLineSupport

extension Verbs {
    /// `keyedarchive cache set DIR KEY [FILE] [--ttl T] [--durability D]` stores raw bytes for a key, as
    /// `ArchiveCache<[UInt8]>.set(_:forKey:timeToLive:)` does.
    static var cacheSet: Command {
        Command(
            name: "set",
            abstract: "Store bytes for a key, as ArchiveCache<[UInt8]> stores them.",
            discussion: "Reads the value from FILE (a file, a pipe or a FIFO, read to its end), or from stdin when "
                + "FILE is '-' or not given, and stores it for KEY as an ArchiveCache<[UInt8]> stores bytes (an "
                + "NSData value); 'cache get --raw' prints it back. The entry expires after --ttl (a number followed "
                + "by s, m, h or d, as 12h; default 30d). Exits 0 only once the entry is stored at the durability "
                + "asked: 'synchronous' (the default) syncs the files and directories it writes, so the entry "
                + "survives a power cut; 'relaxed' leaves them to the system (a power cut may lose the entry, never "
                + "tear it). A set whose durability is unknown (the entry is in place, a sync failed) exits 74. "
                + "Entries over the byte limit of the cache's own options evict as the cache does; none are set here. "
                + "Put -- before a key that starts with '-'.",
            usage: ["[--ttl <t>] [--durability synchronous|relaxed] <dir> <key> [<file>]"],
            arguments: [
                cacheDirectoryArgument, .required("key", help: "The key, exactly (compared as UTF-8 bytes)."),
                .optional("file", help: "Where the value's bytes are; '-' or none: stdin."),
            ],
            options: [
                .option("ttl", valueName: "t", help: "How long the entry lives: 90s, 15m, 12h, 30d.", defaultValue: "30d"),
                cacheDurabilityOption,
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            guard let key = context.arguments.value("key") else { throw UsageError("Missing expected argument '<key>'.") }
            let ttlText = context.arguments.value("ttl") ?? "30d"
            let ttl: TimeToLive
            do throws(StoreError) {
                ttl = try TimeToLive(parsing: ttlText)
            } catch {
                throw UsageError("The value '\(ttlText)' is invalid for '--ttl <t>'; \(error.reason).")
            }
            var options = CacheOptions()
            options.durability = try CacheAccess.durability(context)
            let file = context.arguments.value("file") ?? "-"
            let value = try InputFiles.readFile(file == "-" ? "/dev/stdin" : file)
            let cache = try CacheAccess.open(directory, options: options)
            try CacheAccess.perform { () throws(StoreError) in try cache.set(value, forKey: key, timeToLive: ttl) }
            return ExitStatus.success
        }
    }

    /// `keyedarchive cache remove DIR KEY [--durability D]` removes a key's entry.
    static var cacheRemove: Command {
        Command(
            name: "remove",
            abstract: "Remove the entry of a key.",
            discussion: "Removes KEY's entry, as ArchiveCache.removeValue(forKey:) does; a key with no entry is no "
                + "error (as 'rm -f'). Exits 0 only once the removal is made at the durability asked (see 'cache "
                + "set'). Put -- before a key that starts with '-'.",
            usage: ["[--durability synchronous|relaxed] <dir> <key>"],
            arguments: [cacheDirectoryArgument, .required("key", help: "The key, exactly (compared as UTF-8 bytes).")],
            options: [cacheDurabilityOption]
        ) { context in
            let directory = try CacheAccess.directory(context)
            guard let key = context.arguments.value("key") else { throw UsageError("Missing expected argument '<key>'.") }
            var options = CacheOptions()
            options.durability = try CacheAccess.durability(context)
            let cache = try CacheAccess.open(directory, options: options)
            try CacheAccess.perform { () throws(StoreError) in try cache.removeValue(forKey: key) }
            return ExitStatus.success
        }
    }

    /// The `--durability` option of the verbs that write.
    static var cacheDurabilityOption: OptionSpec {
        .option("durability", valueName: "d", help: "synchronous (survives a power cut) or relaxed.", defaultValue: "synchronous")
    }
}

extension CacheAccess {
    /// The `--durability` option's value.
    static func durability(_ context: CommandContext) throws -> Durability {
        switch context.arguments.value("durability") ?? "synchronous" {
        case "synchronous": return .synchronous
        case "relaxed": return .relaxed
        case let other:
            throw UsageError("The value '\(other)' is invalid for '--durability <d>'; expected 'synchronous' or 'relaxed'.")
        }
    }
}
