import BinaryPlist
import CommandLineSupport
import KeyedArchive

extension Verbs {
    /// The bytes of `path`, or a failure with ``ExitStatus/noInput``; a typedstream (`NSArchiver`) comes as
    /// the keyed archive it converts to (see ``archiveInput(_:)``).
    static func readInput(_ path: String) throws -> [UInt8] {
        try archiveInput(path).bytes
    }

    /// Runs `body`, turning a ``PlistError`` or ``KeyedArchiveError`` into a failure with
    /// ``ExitStatus/dataError`` whose one-line message names `file`.
    static func malformed<T>(_ file: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PlistError {
            throw dataError(file, error.description)
        } catch let error as KeyedArchiveError {
            throw dataError(file, error.description)
        }
    }

    /// A failure with ``ExitStatus/dataError``: `file: reason`, kept to one line.
    static func dataError(_ file: String, _ reason: String) -> CommandFailure {
        let line = reason.replacingNewlines
        return CommandFailure(status: ExitStatus.dataError, "\(file): \(line)")
    }

    /// Writes, on stderr, the one-line note that an archive was written by another archiver than Apple's
    /// (an `NSKeyedArchiver` subclass such as Sketch's "MSArchiver" or SceneKit's "SCNKeyedArchiver"); nothing
    /// for "NSKeyedArchiver". Verbs of several files (`lint`, `audit`, `diff`) name the file:
    /// `note: a.plist: written by archiver "SCNKeyedArchiver", not NSKeyedArchiver`.
    static func noteArchiver(_ name: String, file: String? = nil, _ context: CommandContext) {
        guard name != "NSKeyedArchiver" else { return }
        let place = file.map { "\($0.replacingNewlines): " } ?? ""
        context.stderr.write("note: \(place)written by archiver \"\(name.replacingNewlines)\", not NSKeyedArchiver\n")
    }

    /// The `$archiver` of the keyed archive `bytes` (binary or XML, any name), or `nil` when they are not one:
    /// the verb that reads them says what is wrong.
    static func archiverName(ofArchive bytes: [UInt8]) -> String? {
        try? ArchiveObjectTable.read(bytes, acceptedArchivers: .any) { $0.archiver }
    }

    /// The `$archiver` string of a plist that is a dictionary holding one, or `nil`.
    static func archiverName(of value: PlistValue) -> String? {
        value.dictionaryValue?["$archiver"]?.stringValue
    }

    /// Writes `bytes` to the file `output`, or to stdout when it is `-`.
    static func writeOutput(_ bytes: [UInt8], to output: String, _ context: CommandContext) throws {
        if output == "-" {
            context.stdout.write(bytes: bytes)
        } else {
            try InputFiles.writeFile(bytes, to: output)
        }
    }
}

extension String {
    /// The text with line breaks shown as `\n` and `\r`, so a message stays one line.
    var replacingNewlines: String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
