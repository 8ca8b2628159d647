import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func get(_ session: Session) -> Command {
        Command(
            name: "get", abstract: "Print one record.",
            discussion: "Exits with status 1 if no record has the id or the record has expired.",
            arguments: [.required("id", help: "The record's id.")],
            options: [.flag("json", help: "Print the record as one JSON object.")]
        ) { context in
            let id = context.arguments.value("id") ?? ""
            let record = try session.withCache { cache throws(StoreError) in try cache.get(id) }
            let json = context.arguments.flag("json")
            context.stdout.write(json ? RecordRendering.json(record) + "\n" : RecordRendering.detail(record))
            return ExitStatus.success
        }
    }
}
