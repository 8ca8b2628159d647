import ArchiveStore
import BinaryPlist
import ArchiveInspection
import CommandLineSupport

extension Verbs {
    /// `keyedarchive cache list DIR [--json]` prints every entry, in the order eviction takes them.
    static var cacheList: Command {
        Command(
            name: "list",
            abstract: "Print every entry, in the order eviction takes them.",
            discussion: "One line per entry, five tab-separated columns: the key as a JSON string literal (so a "
                + "key with tabs, line breaks or NUL stays on its line), the size of its keyed archive in bytes, "
                + "when it was created, when it expires ('-' for never) and when the segment that holds it was "
                + "last written, times in ISO 8601 UTC. Entries not read since they were written come first, "
                + "oldest first, then those read since (eviction carries them forward once). "
                + "Expired entries not yet purged are listed too. An empty cache prints nothing (and 'No entries.' "
                + "on stderr).\n\n"
                + "With --json: an array of {\"key\", \"bytes\", \"created\", \"expires\", \"lastAccess\"} objects, one a "
                + "line, expires null for never.",
            arguments: [cacheDirectoryArgument],
            options: [.flag("json", help: "Print a JSON array of entries.")]
        ) { context in
            let entries = try CacheAccess.openWithEntries(context).entries
            if context.arguments.flag("json") {
                context.stdout.write(CacheRendering.json(entries) + "\n")
            } else if entries.isEmpty {
                context.stderr.write("No entries.\n")
            } else {
                context.stdout.write(entries.map { CacheRendering.line($0) + "\n" }.joined())
            }
            return ExitStatus.success
        }
    }
}

/// The text and JSON forms of cache entries and counts.
enum CacheRendering {
    /// `"key"<TAB>bytes<TAB>created<TAB>expires or -<TAB>lastAccess`.
    static func line(_ entry: CacheEntryInfo) -> String {
        [CacheAccess.quoted(entry.key), String(entry.byteCount), ISO8601Text.format(entry.created),
         entry.expires.map(ISO8601Text.format) ?? "-", ISO8601Text.format(entry.lastAccess)].joined(separator: "\t")
    }

    /// `{"key": ..., "bytes": n, "created": ..., "expires": ... or null, "lastAccess": ...}` on one line.
    static func json(_ entry: CacheEntryInfo) -> String {
        JSONNode.object([
            ("key", .string(entry.key)),
            ("bytes", .integer(entry.byteCount)),
            ("created", .string(ISO8601Text.format(entry.created))),
            ("expires", entry.expires.map { .string(ISO8601Text.format($0)) } ?? .null),
            ("lastAccess", .string(ISO8601Text.format(entry.lastAccess))),
        ]).render(pretty: false)
    }

    /// A JSON array, one entry per line (`[]` when empty).
    static func json(_ entries: [CacheEntryInfo]) -> String {
        if entries.isEmpty { return "[]" }
        return "[\n" + entries.map { "  " + json($0) }.joined(separator: ",\n") + "\n]"
    }

    /// `name: value` lines, or with `json` one object `{"name": value, ...}`; values are whole numbers.
    static func counts(_ pairs: [(String, Int)], json: Bool) -> String {
        guard json else { return pairs.map { "\($0.0): \($0.1)\n" }.joined() }
        return JSONNode.object(pairs.map { ($0.0, .integer($0.1)) }).render(pretty: false) + "\n"
    }
}
