import ArchiveStore
import BinaryPlist
import CommandLineSupport
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive cache get DIR KEY [--pretty | --archive | --raw]` prints one entry's value as archive-JSON,
    /// writes its whole keyed archive, or writes the bytes of a value stored as bytes.
    static var cacheGet: Command {
        Command(
            name: "get",
            abstract: "Print the value stored for a key as archive-JSON.",
            discussion: "Prints the value object of the key's entry file as 'keyedarchive decode' prints a whole "
                + "archive (see 'keyedarchive help decode'); raw bytes are NSData, {\"data\": base64}. Classes need "
                + "not be known. Reading does not count as a use. Exits with status 1 when the key has no entry "
                + "or its entry has expired. Put -- before a key that starts with '-'.\n\n"
                + "With --archive: writes the entry's whole keyed archive (root object ArchiveCacheEntry, checksum "
                + "verified) to stdout as it is stored, for NSKeyedUnarchiver or 'keyedarchive dump'.\n\n"
                + "With --raw: writes the value's bytes to stdout, for a value stored as bytes (by 'cache set' or an "
                + "ArchiveCache<[UInt8]>); any other value exits 65.",
            usage: ["[--pretty | --archive | --raw] <dir> <key>"],
            arguments: [cacheDirectoryArgument, .required("key", help: "The key, exactly (compared as UTF-8 bytes).")],
            options: [
                .flag("pretty", help: "Indent the JSON, one level per space (as Python's json with indent=1)."),
                .flag("archive", help: "Write the entry's keyed archive instead of the value's JSON."),
                .flag("raw", help: "Write the value's bytes (a value stored as bytes) instead of its JSON."),
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            guard let key = context.arguments.value("key") else { throw UsageError("Missing expected argument '<key>'.") }
            let archive = context.arguments.flag("archive")
            let raw = context.arguments.flag("raw")
            let chosen = [("--pretty", context.arguments.flag("pretty")), ("--archive", archive), ("--raw", raw)].filter(\.1).map(\.0)
            if chosen.count > 1 { throw UsageError("'\(chosen[0])' and '\(chosen[1])' cannot be used together.") }
            let cache = try CacheAccess.open(directory)
            if raw {
                guard let value = try CacheAccess.perform({ () throws(StoreError) in try cache.storedBytes(forKey: key) }) else {
                    return context.fail(ExitStatus.failure, "\(directory): no live entry for key \(CacheAccess.quoted(key))")
                }
                context.stdout.write(bytes: value)
                return ExitStatus.success
            }
            guard let bytes = try CacheAccess.perform({ () throws(StoreError) in try cache.archivedEntry(forKey: key) }) else {
                return context.fail(ExitStatus.failure, "\(directory): no live entry for key \(CacheAccess.quoted(key))")
            }
            if archive {
                context.stdout.write(bytes: bytes)
                return ExitStatus.success
            }
            let label = "\(directory): entry \(CacheAccess.quoted(key))"
            let json = try malformed(label) { try CacheRendering.value(ofEntry: bytes, pretty: context.arguments.flag("pretty")) }
            context.stdout.write(json + "\n")
            return ExitStatus.success
        }
    }
}

extension CacheRendering {
    /// The archive-JSON of the `value` of an entry file: the graph re-rooted at the value, rendered as
    /// `keyedarchive decode` renders a whole archive (with its default budget of objects).
    static func value(ofEntry bytes: [UInt8], pretty: Bool) throws -> String {
        let graph = try ArchiveGraph(bytes: bytes)
        guard let root = graph.topObject(), let entry = graph.instance(root),
              graph.classChain(of: root)?.first == "ArchiveCacheEntry"
        else {
            throw KeyedArchiveError(.invalidValue, "the root object is not an ArchiveCacheEntry")
        }
        guard let value = entry["value"] else { throw KeyedArchiveError(.invalidValue, "the entry has no value") }
        return try ArchiveJSON.render(ArchiveGraph(top: ["root": value], objects: graph.objects), pretty: pretty)
    }
}
