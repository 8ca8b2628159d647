import ArchiveStore
import CommandLineSupport
import FormCache

extension Verbs {
    static func export(_ session: Session) -> Command {
        Command(
            name: "export", abstract: "Write every record to one ordinary keyed archive.",
            discussion: """
                Writes every record, live and expired, to FILE as one NSKeyedArchiver archive (binary plist, mode \
                0600, replaced atomically): root ArchiveRepositoryFile with keys version and records, an NSArray \
                of FormRecord objects (id, name, fields, registeredAt, expiresAt). Apple's NSKeyedUnarchiver \
                reads it; 'formcache import FILE' reads it back. On a terminal, stderr shows the records read \
                so far (not with --quiet).
                """,
            arguments: [.required("file", help: "The archive to write.")],
            options: [.quietProgress]
        ) { context in
            let file = context.arguments.value("file") ?? ""
            let count = try session.withCache(reportingProgress: "export", context) { cache, progress throws(StoreError) in
                try cache.export(to: file, progress: progress)
            }
            context.stderr.write("Exported \(count) record\(count == 1 ? "" : "s") to \(file).\n")
            return ExitStatus.success
        }
    }
}
