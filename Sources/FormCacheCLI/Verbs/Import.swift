import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func importArchive(_ session: Session) -> Command {
        Command(
            name: "import", abstract: "Import a legacy keyed archive of FormModel objects.",
            discussion: """
                Reads a keyed archive (NSKeyedArchiver, binary or XML) whose root is a FormModel or an array of \
                them (keys id, registerDatetime, name; class FormModel or Model.FormModel). Each becomes a \
                record expiring 30 days after its registration date. Ids already stored are skipped. Prints \
                the imported ids, one a line.
                """,
            arguments: [.required("file", help: "The archive to import.")]
        ) { context in
            let file = context.arguments.value("file") ?? ""
            let result = try session.withCache { cache throws(StoreError) in try cache.importLegacy(file: file) }
            context.stdout.write(result.imported.map { $0.id + "\n" }.joined())
            let count = result.imported.count
            var summary = "Imported \(count) record\(count == 1 ? "" : "s")"
            if !result.skippedIDs.isEmpty { summary += "; skipped \(result.skippedIDs.count) already present" }
            context.stderr.write(summary + ".\n")
            return ExitStatus.success
        }
    }
}
