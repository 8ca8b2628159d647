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
    /// (an `NSKeyedArchiver` subclass such as Sketch's "MSArchiver"); nothing for "NSKeyedArchiver".
    static func noteArchiver(_ name: String, _ context: CommandContext) {
        guard name != "NSKeyedArchiver" else { return }
        context.stderr.write("note: written by archiver \"\(name.replacingNewlines)\", not NSKeyedArchiver\n")
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
