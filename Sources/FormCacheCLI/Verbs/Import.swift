import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func importArchive(_ session: Session) -> Command {
        Command(
            name: "import", abstract: "Import records from a keyed archive ('export' output or legacy FormModels).",
            discussion: """
                Reads a keyed archive (NSKeyedArchiver, binary or XML): one that 'formcache export' wrote, whose \
                records keep their fields and expiry; or a legacy one whose root is a FormModel or an array of \
                them (keys id, registerDatetime, name; class FormModel or Model.FormModel), each becoming a \
                record expiring 30 days after its registration date. Ids already stored are skipped; the \
                records are added in one commit. Prints the imported ids, one a line. On a terminal, stderr shows \
                the records archived so far (not with --quiet).
                """,
            arguments: [.required("file", help: "The archive to import (a file, a pipe or a FIFO, such as /dev/stdin).")],
            options: [.quietProgress]
        ) { context in
            let file = context.arguments.value("file") ?? ""
            let result = try session.withCache(reportingProgress: "import", context) { cache, progress throws(StoreError) in
                try cache.importArchive(file: file, progress: progress)
            }
            context.stdout.write(result.imported.map { $0.id + "\n" }.joined())
            let count = result.imported.count
            try requireOutput(context, afterChange: "\(count) record\(count == 1 ? " was" : "s were") imported")
            var summary = "Imported \(count) record\(count == 1 ? "" : "s")"
            if !result.skippedIDs.isEmpty { summary += "; skipped \(result.skippedIDs.count) already present" }
            context.stderr.write(summary + ".\n")
            return ExitStatus.success
        }
    }
}
