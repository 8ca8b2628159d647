import CommandLineSupport
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive dump FILE` prints a keyed archive as a readable tree with class names and UIDs.
    static var dump: Command {
        Command(
            name: "dump",
            abstract: "Print a keyed archive as a readable tree with class names and UIDs.",
            discussion: "Like 'plutil -p', but with the object graph resolved: each object shows as [uid] class "
                + "with its fields under their raw keys, starting from $top. An object already printed shows as "
                + "-> [uid] class, so shared objects and cycles print once and any archive, however shared, "
                + "prints in about its own size.\n\n"
                + "An archive written by another archiver than NSKeyedArchiver (a subclass such as Sketch's "
                + "MSArchiver) is printed too, with a note on stderr naming the archiver.",
            arguments: [.required("file", help: "The binary or XML keyed archive to print.")]
        ) { context in
            guard let file = context.arguments.value("file") else {
                throw UsageError("Missing expected argument '<file>'.")
            }
            let bytes = try readInput(file)
            let graph = try malformed(file) { try ArchiveGraph(bytes: bytes, acceptedArchivers: .any) }
            noteArchiver(graph.archiver, context)
            context.stdout.write(ArchiveDump.render(graph))
            return ExitStatus.success
        }
    }
}
