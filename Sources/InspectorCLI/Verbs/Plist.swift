import BinaryPlist
import ArchiveInspection
import CommandLineSupport

extension Verbs {
    /// `keyedarchive plist FILE` prints FILE as plist-JSON; `keyedarchive plist --from-json IN -o OUT` writes
    /// the plist IN describes.
    static var plist: Command {
        Command(
            name: "plist",
            abstract: "Print a property list as plist-JSON, or write one from plist-JSON.",
            discussion: "FILE may be a binary or an XML plist; its format is detected. plist-JSON is described in "
                + "shared/tools/plist-json.py: reals as {\"real\": x}, dates as {\"date\": seconds since 2001}, data as "
                + "{\"data\": base64}, UIDs as {\"uid\": n}, dictionaries as {\"dict\": {...}}, sets as {\"set\": [...]}.\n\n"
                + "A keyed archive whose $archiver is not NSKeyedArchiver (a subclass such as Sketch's MSArchiver) "
                + "gets a note on stderr naming the archiver.",
            usage: ["<file>", "--from-json <in.json> --output <out> [--format <format>]"],
            arguments: [.optional("file", help: "The binary or XML plist to print.")],
            options: [
                .option("from-json", valueName: "in.json", help: "Read plist-JSON from this file and write a plist."),
                .option("output", short: "o", valueName: "out", help: "Where --from-json writes ('-' for stdout)."),
                .option("format", help: "The format --from-json writes.", defaultValue: "binary",
                        allowedValues: PlistFormat.allCases.map(\.rawValue)),
            ]
        ) { context in
            let arguments = context.arguments
            if let input = arguments.value("from-json") {
                if let file = arguments.value("file") { throw UsageError("Unexpected argument '\(file)' with --from-json.") }
                guard let output = arguments.value("output") else { throw UsageError("--from-json needs --output <out>.") }
                let format = PlistFormat(rawValue: arguments.value("format") ?? "") ?? .binary
                let bytes = try malformed(input) {
                    try PropertyList.encode(PlistJSON.parse(try readInput(input)), format: format)
                }
                try writeOutput(bytes, to: output, context)
                return ExitStatus.success
            }
            guard let file = arguments.value("file") else { throw UsageError("Missing expected argument '<file>'.") }
            for option in ["output", "format"] where arguments.isPresent(option) {
                throw UsageError("--\(option) is only for --from-json.")
            }
            let value = try malformed(file) { try PropertyList.decode(try readInput(file)) }
            if let name = archiverName(of: value) { noteArchiver(name, context) }
            context.stdout.write(PlistJSON.render(value) + "\n")
            return ExitStatus.success
        }
    }
}
