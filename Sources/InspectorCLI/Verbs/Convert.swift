import BinaryPlist
import CommandLineSupport
import KeyedArchive
import TypedStream

extension Verbs {
    /// `keyedarchive convert FILE --to keyed|typedstream [-o OUT] [--format binary|xml]` writes the other
    /// NSCoding format.
    static var convert: Command {
        Command(
            name: "convert",
            abstract: "Convert between typedstreams (NSArchiver) and keyed archives (NSKeyedArchiver).",
            discussion: "FILE's format is known by its header. --to keyed reads a typedstream and writes the keyed "
                + "archive of the same values: Foundation objects as the same Foundation objects, of the same "
                + "classes (NSMutableArray stays NSMutableArray, with the class chain Apple writes); an object of "
                + "any other class as an object of its class chain whose fields are its class versions ($versions), "
                + "the type encodings of its groups of values ($types) and the values ($0, $1, ...). A stream of one "
                + "object group (what NSArchiver writes) becomes an archive whose root is that object; any other "
                + "stream (several groups, as a colour list holds) an archive whose $top holds its groups the same "
                + "way: $types, one type encoding a group, and the values $0, $1, ... (numbers inline, objects by "
                + "reference). --to typedstream writes those groups back.\n\n"
                + "--to typedstream reads a binary or XML keyed archive and writes the typedstream NSUnarchiver "
                + "reads: Foundation objects, objects converted from a typedstream (written back as they were) and "
                + "objects whose fields are all unkeyed ($0, $1, ...). NSUUID, NSOrderedSet, NSIndexSet and "
                + "objects with keyed fields have no typedstream form: exit status 65. An archive written by another "
                + "archiver than NSKeyedArchiver (a subclass such as SceneKit's SCNKeyedArchiver) is converted too, "
                + "with a note on stderr naming the archiver.\n\n"
                + "Exit status: 0 success; 65 FILE is malformed, already in the format asked for, or holds what the "
                + "other format cannot; 66 FILE cannot be opened; 73/74 OUT cannot be written; 64 usage error.",
            usage: ["<file> --to <format> [--output <out>] [--format <plist-format>]"],
            arguments: [.required("file", help: "The typedstream or keyed archive to convert.")],
            options: [
                .option("to", valueName: "format", help: "The format to write.", allowedValues: ["keyed", "typedstream"],
                        required: true),
                .option("output", short: "o", valueName: "out", help: "Where to write ('-' for stdout).", defaultValue: "-"),
                .option("format", valueName: "plist-format", help: "With --to keyed: the plist format of the archive.",
                        defaultValue: "binary", allowedValues: PlistFormat.allCases.map(\.rawValue)),
            ]
        ) { context in
            let arguments = context.arguments
            guard let file = arguments.value("file") else { throw UsageError("Missing expected argument '<file>'.") }
            let output = arguments.value("output") ?? "-"
            let format = PlistFormat(rawValue: arguments.value("format") ?? "") ?? .binary
            let bytes = try InputFiles.readFile(file)
            let isTypedStream = TypedStreamHeader.isTypedStream(bytes)
            let converted: [UInt8]
            do {
                switch arguments.value("to") {
                case "keyed":
                    guard isTypedStream else { throw dataError(file, "not a typedstream (its header is not NSArchiver's)") }
                    converted = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, format: format)
                default:
                    guard !isTypedStream else { throw dataError(file, "already a typedstream") }
                    converted = try TypedStreamConversion.typedStream(fromKeyedArchive: bytes, acceptedArchivers: .any)
                    if let archiver = archiverName(ofArchive: bytes) { noteArchiver(archiver, context) }
                }
            } catch let error as TypedStreamError {
                throw dataError(file, (error.underlying?.description ?? error.description))
            }
            try writeOutput(converted, to: output, context)
            return ExitStatus.success
        }
    }
}
