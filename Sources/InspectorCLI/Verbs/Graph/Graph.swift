import ArchiveInspection
import CommandLineSupport
import KeyedArchive

extension Verbs {
    /// `keyedarchive graph FILE --format dot|html [--output PATH]`: a keyed archive's object graph as a picture.
    static var graph: Command {
        Command(
            name: "graph",
            abstract: "Draw a keyed archive's object graph as Graphviz DOT or a self-contained HTML page.",
            discussion: "FILE may be a binary or an XML keyed archive. Every object reached from $top is drawn once: "
                + "its class (or container kind) and index, with its scalar fields inside it (values as plist-JSON, "
                + "cut at 80 characters) and its references to other objects as edges labelled with the step "
                + "('.delegate', '[3]', '[\"name\"]'). An edge that first reaches an object is a tree edge; one to "
                + "an object reached before is a shared edge, one to an object on its own path a back (cycle) "
                + "edge.\n\n"
                + "--format dot writes a digraph for Graphviz ('dot -Tsvg'): nodes o<index> labelled with the class "
                + "over the fields; shared objects with a double border; shared edges dashed and blue; back edges "
                + "bold and red (and not used for ranking).\n\n"
                + "--format html writes one self-contained page (no network, no outside script or style; a "
                + "Content-Security-Policy forbids loading anything): a collapsible tree from the roots, each "
                + "object expanded on its first path; shared and cyclic references are links that open the path to "
                + "the object and jump to it; a search box finds objects by class or key. Loaded with the fragment "
                + "#selftest, the page checks itself (expand, follow a shared link, search) and writes SELFTEST PASS "
                + "or SELFTEST FAIL in an element with id 'selftest'.\n\n"
                + "Time and memory are linear in the archive. An archive written by another archiver than "
                + "NSKeyedArchiver (a subclass such as SceneKit's SCNKeyedArchiver) is drawn too, with a note on "
                + "stderr naming the archiver.\n\n"
                + "Exit status: 0 success, 64 usage error, 65 not a keyed archive, 66 cannot be opened, 73 output "
                + "cannot be created, 74 I/O error.",
            arguments: [.required("file", help: "The binary or XML keyed archive to draw.")],
            options: [
                .option("format", valueName: "format", help: "dot or html.", allowedValues: ["dot", "html"],
                        required: true),
                .option("output", short: "o", valueName: "path", help: "Write to this file instead of stdout ('-').",
                        defaultValue: "-"),
            ]
        ) { context in
            let arguments = context.arguments
            guard let file = arguments.value("file") else { throw UsageError("Missing expected argument '<file>'.") }
            guard let format = arguments.value("format") else {
                throw UsageError("Missing expected argument '--format <format>'.")
            }
            let bytes = try readInput(file)
            let model = try malformed(file) { try ObjectGraphModel(archive: bytes) }
            noteArchiver(model.archiver, context)
            let text = format == "dot" ? GraphDOT.render(model)
                : GraphHTML.render(model, title: file.split(separator: "/").last.map(String.init) ?? file)
            try writeOutput(Array(text.utf8), to: arguments.value("output") ?? "-", context)
            if context.stdout.writeError != nil { return ExitStatus.ioError }
            return ExitStatus.success
        }
    }
}
