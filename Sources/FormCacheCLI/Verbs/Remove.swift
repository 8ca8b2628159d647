import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func remove(_ session: Session) -> Command {
        Command(
            name: "remove", abstract: "Remove one record (live or expired).",
            discussion: "Exits with status 1 if no record has the id.",
            arguments: [.required("id", help: "The record's id.")]
        ) { context in
            let id = context.arguments.value("id") ?? ""
            try session.withCache { cache throws(StoreError) in _ = try cache.remove(id) }
            return ExitStatus.success
        }
    }
}
