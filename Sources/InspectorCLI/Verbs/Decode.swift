import CommandLineSupport
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive decode FILE [--graph] [--pretty] [--max-objects N]` prints a keyed archive's object graph
    /// as archive-JSON: the tree form by default, the graph form with `--graph`.
    static var decode: Command {
        Command(
            name: "decode",
            abstract: "Print a keyed archive's object graph as archive-JSON.",
            discussion: "FILE may be a binary or an XML keyed archive; its format is detected. The tree form (the "
                + "default) prints the root object as nested values: plist-JSON for scalars; NSString as a string; "
                + "NSNumber as an integer, {\"real\": x} or a bool; NSArray as an array; NSDictionary as {\"dict\": "
                + "{k: v}} ({\"dict\": [[k, v], ...]} when a key is not a string); NSSet as {\"set\": [...]}; "
                + "NSOrderedSet as {\"orderedset\": [...]}; NSDate as {\"date\": s}; NSData as {\"data\": base64}; "
                + "NSUUID as {\"uuid\": \"UPPERCASE\"}; NSURL as {\"url\": absolute string}; NSNull and nil as null; "
                + "any other class as {\"class\": name, \"fields\": {key: value}}; a reference back to an object "
                + "still being printed as {\"ref\": name}. An archive whose $top is not just root prints as "
                + "{\"$top\": {key: value, ...}}.\n\n"
                + "The tree form prints shared objects in full at each use, so a heavily shared graph (a compiled "
                + "nib) can be exponentially larger than its archive: print those with --graph. It stops with exit "
                + "status 65, printing nothing, past a budget of objects (counting a shared object at each use): by "
                + "default the larger of 100000 and 16 times the archive's object count. The objects are counted "
                + "before anything is printed and the text is streamed, so memory does not grow with the budget; a "
                + "graph whose sharing is plainly past the budget is refused at once.\n\n"
                + "The graph form (--graph) prints every object once, in index order, one per line: {\"$archiver\": "
                + "\"NSKeyedArchiver\", \"$version\": 100000, \"$top\": {\"root\": {\"$ref\": 1}}, \"$objects\": [{\"$id\": 0, "
                + "\"value\": \"$null\"}, {\"$id\": 1, \"class\": name, \"fields\": {key: value, ..., \"$class\": {\"$ref\": "
                + "n}}}, ...]}. A dictionary entry lists all its keys in file order under \"fields\" (with \"class\" "
                + "when its $class names one); any other entry is {\"$id\": n, \"value\": v}. Values are plist-JSON "
                + "with references as {\"$ref\": n}. Its size and memory are linear in the archive's, however the "
                + "objects share; 'keyedarchive encode' reads it back with sharing and cycles intact.\n\n"
                + "An archive written by another archiver than NSKeyedArchiver (a subclass such as Sketch's "
                + "MSArchiver or SceneKit's SCNKeyedArchiver) is printed too, in either form, with a note on stderr "
                + "naming the archiver (the graph form's $archiver stays \"NSKeyedArchiver\").",
            arguments: [.required("file", help: "The binary or XML keyed archive to print.")],
            options: [
                .flag("graph", help: "Print the graph form: every object once, with its index; references as {\"$ref\": n}."),
                .flag("pretty", help: "Indent the JSON, one level per space (as Python's json with indent=1)."),
                .option("max-objects", valueName: "n",
                        help: "Tree form: most objects to print, counting a shared object at each use (default: "
                            + "the larger of 100000 and 16 times the archive's object count)."),
            ]
        ) { context in
            let arguments = context.arguments
            guard let file = arguments.value("file") else { throw UsageError("Missing expected argument '<file>'.") }
            var limit: Int?
            if let text = arguments.value("max-objects") {
                guard !arguments.flag("graph") else {
                    throw UsageError("--max-objects is for the tree form; the graph form prints each object once.")
                }
                guard let n = Int(text), n > 0 else {
                    throw UsageError("The value '\(text)' is invalid for '--max-objects <n>'; expected a positive integer.")
                }
                limit = n
            }
            let pretty = arguments.flag("pretty")
            let bytes = try readInput(file)
            let stdout = context.stdout
            // Chunks go out as they are rendered; a failed write stops the rendering (the tool then exits 74).
            let output: ([UInt8]) throws -> Void = { chunk in
                stdout.write(bytes: chunk)
                if stdout.writeError != nil { throw OutputStopped() }
            }
            do {
                if arguments.flag("graph") {
                    let archiver = try malformed(file) {
                        try ArchiveJSON.writeGraph(bytes, pretty: pretty, acceptedArchivers: .any, to: output)
                    }
                    noteArchiver(archiver, context)
                } else {
                    let graph = try malformed(file) { try ArchiveGraph(bytes: bytes, acceptedArchivers: .any) }
                    noteArchiver(graph.archiver, context)
                    let maxObjects = limit ?? ArchiveJSON.defaultMaxObjects(for: graph)
                    do {
                        try ArchiveJSON.write(graph, pretty: pretty, maxObjects: maxObjects, to: output)
                    } catch let error as KeyedArchiveError where error.code == .elementLimitExceeded {
                        throw dataError(file, "archive-JSON would print more than \(maxObjects) objects, because "
                            + "shared objects print in full at each use (the archive has \(graph.objects.count)); "
                            + "run 'keyedarchive decode --graph', which prints each object once, or raise the limit "
                            + "with --max-objects <n>")
                    } catch let error as KeyedArchiveError {
                        throw dataError(file, error.description)
                    }
                }
            } catch is OutputStopped {
                return ExitStatus.ioError
            }
            stdout.write("\n")
            return ExitStatus.success
        }
    }
}

/// Thrown by the output of `decode` once a write to stdout failed, to stop rendering.
private struct OutputStopped: Error {}
