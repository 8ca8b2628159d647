import CommandLineSupport
import KeyedArchive

extension Inspector {
    /// `keyedarchive decode FILE [--pretty] [--max-objects N]` prints a keyed archive's object graph as
    /// archive-JSON.
    static var decodeCommand: Command {
        Command(
            name: "decode",
            abstract: "Print a keyed archive's object graph as archive-JSON.",
            discussion: "FILE may be a binary or an XML keyed archive; its format is detected. archive-JSON is "
                + "plist-JSON for scalars; NSString as a string; NSNumber as an integer, {\"real\": x} or a bool; "
                + "NSArray as an array; NSDictionary as {\"dict\": {k: v}} ({\"dict\": [[k, v], ...]} when a key is "
                + "not a string); NSSet as {\"set\": [...]}; NSOrderedSet as {\"orderedset\": [...]}; NSDate as "
                + "{\"date\": s}; NSData as {\"data\": base64}; NSUUID as {\"uuid\": \"UPPERCASE\"}; NSURL as {\"url\": "
                + "absolute string}; NSNull and nil as null; any other class as {\"class\": name, \"fields\": {key: "
                + "value}}; a reference back to an object still being printed as {\"ref\": name}. An archive whose "
                + "$top is not just root prints as {\"$top\": {key: value, ...}}.\n\n"
                + "Shared objects print in full at each use, so a heavily shared graph (a compiled nib) can be "
                + "exponentially larger than its archive. Printing stops with exit status 65 past a budget of "
                + "objects (counting a shared object at each use): by default the larger of 100000 and 16 times "
                + "the archive's object count. Raise it with --max-objects, or use 'keyedarchive dump', which "
                + "prints each object once.\n\n"
                + "An archive written by another archiver than NSKeyedArchiver (a subclass such as Sketch's "
                + "MSArchiver) is printed too, with a note on stderr naming the archiver.",
            arguments: [.required("file", help: "The binary or XML keyed archive to print.")],
            options: [
                .flag("pretty", help: "Indent the JSON, one level per space (as Python's json with indent=1)."),
                .option("max-objects", valueName: "n",
                        help: "Most objects to print, counting a shared object at each use (default: the larger "
                            + "of 100000 and 16 times the archive's object count)."),
            ]
        ) { context in
            let arguments = context.arguments
            guard let file = arguments.value("file") else { throw UsageError("Missing expected argument '<file>'.") }
            var limit: Int?
            if let text = arguments.value("max-objects") {
                guard let n = Int(text), n > 0 else {
                    throw UsageError("The value '\(text)' is invalid for '--max-objects <n>'; expected a positive integer.")
                }
                limit = n
            }
            let bytes = try readInput(file)
            let graph = try malformed(file) { try ArchiveGraph(bytes: bytes, acceptedArchivers: .any) }
            noteArchiver(graph.archiver, context)
            let maxObjects = limit ?? ArchiveJSON.defaultMaxObjects(for: graph)
            let json: String
            do {
                json = try ArchiveJSON.render(graph, pretty: arguments.flag("pretty"), maxObjects: maxObjects)
            } catch let error as KeyedArchiveError where error.code == .elementLimitExceeded {
                throw dataError(file, "archive-JSON would print more than \(maxObjects) objects, because shared "
                    + "objects print in full at each use (the archive has \(graph.objects.count)); raise the limit "
                    + "with --max-objects <n>, or run 'keyedarchive dump', which prints each object once")
            } catch let error as KeyedArchiveError {
                throw dataError(file, error.description)
            }
            context.stdout.write(json + "\n")
            return ExitStatus.success
        }
    }
}
