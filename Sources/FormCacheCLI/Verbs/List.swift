import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func list(_ session: Session) -> Command {
        Command(
            name: "list", abstract: "Print the records as a table or a JSON array.",
            options: [
                .flag("json", help: "Print a JSON array of records."),
                .flag("include-expired", help: "Include records that have expired but are not purged yet."),
            ]
        ) { context in
            let includeExpired = context.arguments.flag("include-expired")
            if context.arguments.flag("json") {
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
                (try cache.list(includeExpired: includeExpired), cache.clock.now())
            }
            if records.isEmpty {
                context.stderr.write("No records.\n")
            } else {
                context.stdout.write(RecordRendering.table(records, now: now))
            }
            return ExitStatus.success
        }
    }
}
