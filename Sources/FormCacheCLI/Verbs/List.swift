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
            let (records, now) = try session.withCache { cache throws(StoreError) in
                (try cache.list(includeExpired: includeExpired), cache.clock.now())
            }
            if context.arguments.flag("json") {
                context.stdout.write(RecordRendering.json(records) + "\n")
            } else if records.isEmpty {
                context.stderr.write("No records.\n")
            } else {
                context.stdout.write(RecordRendering.table(records, now: now))
            }
            return ExitStatus.success
        }
    }
}
