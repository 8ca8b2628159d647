import ArchiveStore
import CommandLineSupport
import FormCache

extension Verbs {
    static func list(_ session: Session) -> Command {
        Command(
            name: "list", abstract: "Print the records as a table or a JSON array.",
            discussion: "Records come in the order of their last write, or with --sort by a date or the name, "
                + "read from the store's indexes (only the records printed are read).",
            options: [
                .flag("json", help: "Print a JSON array of records."),
                .flag("include-expired", help: "Include records that have expired but are not purged yet."),
                .option("sort", valueName: "key", help: "Order by registered, expires or name."),
                .flag("descending", help: "With --sort: the largest first."),
                .option("limit", valueName: "n", help: "Print at most n records."),
                .option("offset", valueName: "n", help: "Skip the first n records."),
            ]
        ) { context in
            let includeExpired = context.arguments.flag("include-expired")
            let sort = context.arguments.value("sort")
            let ascending = !context.arguments.flag("descending")
            var query = RecordQuery<FormRecord>()
            switch sort {
            case nil: break
            case "registered": query = query.sorted(by: \.registeredAt, ascending: ascending)
            case "expires": query = query.sorted(by: \.expiresAt, ascending: ascending)
            case "name": query = query.sorted(by: \.name, ascending: ascending)
            case let name?: throw UsageError("--sort takes registered, expires or name, not '\(name)'.")
            }
            let limit = try context.arguments.value("limit").map { try count($0, option: "limit") }
            let offset = try context.arguments.value("offset").map { try count($0, option: "offset") } ?? 0
            if !ascending && sort == nil { throw UsageError("--descending needs --sort.") }
            if let limit { query = query.limit(limit) }
            let windowed = sort != nil || limit != nil || offset > 0
            if context.arguments.flag("json") && !windowed {
                // Streamed: one record decoded and printed at a time, in chunks of about 64 KiB.
                var buffer = ""
                var first = true
                try session.withCache { cache throws(StoreError) in
                    try cache.forEachRecord(includeExpired: includeExpired) { record throws(StoreError) in
                        buffer += (first ? "[\n  " : ",\n  ") + RecordRendering.json(record)
                        first = false
                        if buffer.utf8.count >= 65_536 {
                            context.stdout.write(buffer)
                            buffer = ""
                            if context.stdout.writeError != nil {
                                throw StoreError(.io, "standard output failed")   // stop reading; reported below
                            }
                        }
                    }
                }
                context.stdout.write(buffer + (first ? "[]\n" : "\n]\n"))
                return ExitStatus.success
            }
            let (records, now) = try session.withCache { cache throws(StoreError) in
                let records = try cache.list(matching: query.offset(offset), includeExpired: includeExpired)
                return (records, cache.clock.now())
            }
            if context.arguments.flag("json") {
                context.stdout.write(records.isEmpty ? "[]\n" : "[\n  " + records.map(RecordRendering.json).joined(separator: ",\n  ") + "\n]\n")
            } else if records.isEmpty {
                context.stderr.write("No records.\n")
            } else {
                context.stdout.write(RecordRendering.table(records, now: now))
            }
            return ExitStatus.success
        }
    }

    /// A count given to `--<option>`: a whole number from 0.
    static func count(_ text: String, option: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw UsageError("--\(option) takes a whole number from 0, not '\(text)'.") }
        return value
    }
}
