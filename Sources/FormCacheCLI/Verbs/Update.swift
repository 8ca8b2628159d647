import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func update(_ session: Session) -> Command {
        Command(
            name: "update", abstract: "Change a live record's name, fields or expiry.",
            discussion: """
                Sets the name (--name), sets fields (--field key=value adds or replaces that key; the other \
                fields stay), and with --ttl gives a new expiry counted from now. Prints the id. Exit status 1 \
                when there is no live record with the id.
                """,
            arguments: [.required("id", help: "The record's id.")],
            options: [
                .option("name", valueName: "name", help: "The form's new name."),
                .repeated("field", valueName: "key=value", help: "A field to add or replace (repeatable)."),
                .option("ttl", valueName: "duration", help: "A new time to live, from now: 45s, 90m, 12h or 30d."),
            ]
        ) { context in
            let id = context.arguments.value("id") ?? ""
            let name = context.arguments.value("name")
            if let name, name.isEmpty { throw UsageError("The --name may not be empty.") }
            let fields = try parseFields(context.arguments.values("field"))
            var timeToLive: TimeToLive?
            if let text = context.arguments.value("ttl") {
                do throws(StoreError) {
                    timeToLive = try TimeToLive(parsing: text)
                } catch {
                    throw UsageError(error.reason.prefix(1).uppercased() + error.reason.dropFirst() + ".")
                }
            }
            let updated = try session.withCache { cache throws(StoreError) in
                try cache.update(id, name: name, fields: fields, timeToLive: timeToLive)
            }
            context.stdout.write(updated.id + "\n")
            try requireOutput(context, afterChange: "the record \(updated.id) was updated")
            return ExitStatus.success
        }
    }
}
