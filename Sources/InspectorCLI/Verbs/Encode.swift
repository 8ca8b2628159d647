import BinaryPlist
import CommandLineSupport
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive encode IN.json -o OUT [--format binary|xml]` writes the keyed archive archive-JSON (either
    /// form) describes.
    static var encode: Command {
        Command(
            name: "encode",
            abstract: "Write the keyed archive that archive-JSON describes.",
            discussion: "IN.json is archive-JSON as 'keyedarchive decode' prints it, in either form.\n\n"
                + "The tree form: standard classes are written as Apple's NSKeyedArchiver writes them; {\"class\": "
                + "name, \"fields\": {...}} as an object of that class (its $classes: name, NSObject) whose integers, "
                + "reals, booleans and data are stored inline and everything else as references; {\"ref\": name} "
                + "refers to the nearest enclosing object of that class, recreating the cycle.\n\n"
                + "The graph form ('decode --graph', an object with $objects): every object is written at its "
                + "\"$id\", with its fields and classes as listed and each {\"$ref\": n} as a reference to object n, so "
                + "sharing and cycles stay as they were. An archive this package wrote comes back byte for byte, but "
                + "for some conditional references and Codable nested containers, which keep their graph.",
            usage: ["<in.json> --output <out> [--format <format>]"],
            arguments: [.required("in.json", help: "The archive-JSON to read.")],
            options: [
                .option("output", short: "o", valueName: "out", help: "Where to write the archive ('-' for stdout).",
                        required: true),
                .option("format", help: "The plist format of the archive.", defaultValue: "binary",
                        allowedValues: PlistFormat.allCases.map(\.rawValue)),
            ]
        ) { context in
            let arguments = context.arguments
            guard let input = arguments.value("in.json"), let output = arguments.value("output") else {
                throw UsageError("Missing expected argument '<in.json>'.")
            }
            let format = PlistFormat(rawValue: arguments.value("format") ?? "") ?? .binary
            let text = try readInput(input)
            let bytes = try malformed(input) {
                guard let json = validUTF8String(text) else {
                    throw PlistError(.invalidJSON, "the text is not valid UTF-8", format: "archive-json")
                }
                return try ArchiveJSON.encode(json, format: format)
            }
            try writeOutput(bytes, to: output, context)
            return ExitStatus.success
        }
    }
}
