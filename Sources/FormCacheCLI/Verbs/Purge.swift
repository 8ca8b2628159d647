import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func purge(_ session: Session) -> Command {
        Command(
            name: "purge", abstract: "Remove expired records and print their ids.",
            discussion: "Prints the id of each removed record (or, with --dry-run, each record it would remove), one a line. "
                + "On a terminal, stderr shows the records read so far (not with --quiet).",
            options: [
                .flag("all", help: "Remove every record, expired or not."),
                .flag("dry-run", help: "Only print what would be removed."),
                .quietProgress,
            ]
        ) { context in
            let all = context.arguments.flag("all")
            let dryRun = context.arguments.flag("dry-run")
            let purged = try session.withCache(reportingProgress: "purge", context) { cache, progress throws(StoreError) in
                try cache.purge(all: all, dryRun: dryRun, progress: progress)
            }
            context.stdout.write(purged.map { $0.id + "\n" }.joined())
            if !dryRun {
                try requireOutput(context, afterChange: "\(purged.count) record\(purged.count == 1 ? " was" : "s were") removed")
            }
            let verb = dryRun ? "Would remove" : "Removed"
            context.stderr.write("\(verb) \(purged.count) record\(purged.count == 1 ? "" : "s").\n")
            return ExitStatus.success
        }
    }
}
