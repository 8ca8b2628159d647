import ArchiveStore
import BinaryPlist
import ArchiveInspection
import CommandLineSupport

extension Verbs {
    /// `keyedarchive cache <subcommand>`: the entries of an ``ArchiveCache`` directory, listed, printed, set,
    /// removed, counted, purged and trimmed, plus a self-check for directories shared by several processes.
    static var cache: Command {
        Command(
            name: "cache",
            abstract: "Inspect and maintain an ArchiveCache directory.",
            discussion: "DIR is the directory of an ArchiveCache: each entry is a keyed archive whose root object "
                + "(class ArchiveCacheEntry) holds the entry's key, value, created and expires; a small one is a "
                + "frame of a segment file (segments/<8 hex digits>.seg), a larger one a file of its own "
                + "(large/<32 hex digits>.archive), and cache.table says where each key's entry is (cache.lock is "
                + "the writers' lock). DIR must exist: it is never created. Other processes may use the cache "
                + "meanwhile.\n\n"
                + "Exit status: 0 success, 1 no live entry for the key (get) or a wrong value read back "
                + "(exercise), 64 usage error, 65 malformed entry, 66 DIR or the input cannot be opened, 74 I/O "
                + "error (a set or remove whose durability is unknown too).",
            subcommands: [
                cacheList, cacheGet, cacheSet, cacheRemove, cacheStats,
                cachePurge, cacheTrim, cacheExercise,
            ])
    }

    /// The `<dir>` argument every `cache` verb takes.
    static var cacheDirectoryArgument: ArgumentSpec {
        .required("dir", help: "The cache directory (it must exist).")
    }
}

/// Opening a cache directory for the `cache` verbs, and their failures as exit statuses.
enum CacheAccess {
    /// The `<dir>` argument, or a usage error.
    static func directory(_ context: CommandContext) throws -> String {
        guard let directory = context.arguments.value("dir") else { throw UsageError("Missing expected argument '<dir>'.") }
        return directory
    }

    /// Opens the cache in `directory`, which must already exist (opening a cache creates its directory).
    /// The value type does not matter to the directory-level operations; `[UInt8]` decodes nothing else.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/noInput`` when `directory` is missing, not a directory,
    ///   or cannot be opened as a cache.
    static func open(_ directory: String, options: CacheOptions = CacheOptions()) throws -> ArchiveCache<[UInt8]> {
        try InputFiles.requireDirectory(directory)
        do {
            return try ArchiveCache<[UInt8]>(directory: directory, options: options)
        } catch {
            throw CommandFailure(status: ExitStatus.noInput, "\(directory): cannot open the cache: \(error.reason)")
        }
    }

    /// Opens the cache of the `<dir>` argument and reads its entries, least recently used first (`list`, `stats`).
    static func openWithEntries(_ context: CommandContext) throws -> (cache: ArchiveCache<[UInt8]>, entries: [CacheEntryInfo]) {
        let cache = try open(directory(context))
        return (cache, try perform { () throws(StoreError) in try cache.entries() })
    }

    /// Runs `body`, turning a ``StoreError`` into the exit status that fits it.
    static func perform<T>(_ body: () throws(StoreError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw failure(error)
        }
    }

    /// A usage error (64) for an argument the cache refused (an entry larger than the byte limit), else
    /// `Error: <description>` with 65 for damaged data, 75 for a lock held too long or data protected while
    /// the device is locked, 74 for everything else (failed system calls).
    static func failure(_ error: StoreError) -> any Error {
        let status: Int32
        switch error.code {
        case .invalidArgument, .entryTooLarge: return UsageError(error.description)
        case .corrupt, .invalidArchive, .unsupportedVersion: status = ExitStatus.dataError
        case .locked, .protectedDataUnavailable: status = ExitStatus.temporaryFailure
        default: status = ExitStatus.ioError
        }
        return CommandFailure(status: status, error.description)
    }

    /// Parses a count of bytes: digits, optionally followed by `k`, `M` or `G` (1024, 1024², 1024³).
    /// - Throws: ``UsageError`` naming `option` for anything else, or a count past `Int.max`.
    static func byteCount(_ text: String, option: String) throws -> Int {
        var digits = Substring(text)
        var multiplier = 1
        switch digits.last {
        case "k", "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: break
        }
        if multiplier != 1 { digits = digits.dropLast() }
        let invalid = UsageError("The value '\(text)' is invalid for '\(option)'; expected a number of bytes, "
            + "optionally followed by k, M or G (times 1024, 1024², 1024³).")
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(digits) else { throw invalid }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw invalid }
        return bytes
    }

    /// Parses a whole number of at least `minimum`.
    static func count(_ text: String, option: String, minimum: Int = 0) throws -> Int {
        guard text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text), value >= minimum else {
            let expected = minimum == 0 ? "a whole number" : "a whole number of at least \(minimum)"
            throw UsageError("The value '\(text)' is invalid for '\(option)'; expected \(expected).")
        }
        return value
    }

    /// `text` as a JSON string literal (control characters escaped), so that any key stays on one line.
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(pretty: false)
        writer.string(text)
        return writer.text
    }
}
