import BinaryPlist
import CommandLineSupport
import TypedStream
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive lint [--verbose] [--archiver <name> ...] [--any-archiver] [--require-root] <file> ...`
    /// checks many property lists and keyed archives in one process, as `plutil -lint` does.
    static var lint: Command {
        Command(
            name: "lint",
            abstract: "Check that files are valid property lists or keyed archives.",
            discussion: "Each FILE, binary or XML, is read once and must be a property list that 'keyedarchive plist' "
                + "reads. A plist whose top level is a dictionary with $archiver, $objects or $top is a keyed "
                + "archive and must also have a sound structure: the header ($archiver a string, $version 100000, "
                + "$top, $objects starting with $null), every UID below the object count, every $class a UID of a "
                + "class description with a string $classname and a $classes array of strings. Objects are not "
                + "decoded. An archive written by another archiver than NSKeyedArchiver (a subclass such as "
                + "SceneKit's SCNKeyedArchiver or Sketch's MSArchiver) is checked too, with a note on stderr: "
                + "'note: <file>: written by archiver \"SCNKeyedArchiver\", not NSKeyedArchiver' (none for the names "
                + "given with --archiver, nor any with --any-archiver).\n\n"
                + "For each file that fails, one line '<file>: <reason>' is printed on stdout; valid files print "
                + "nothing unless --verbose is given ('<file>: OK'). Lines follow the order of the arguments.\n\n"
                + "While it works, a progress line (files checked, rate, time left) is drawn on stderr when stderr is a "
                + "terminal, and erased before each line of output; never when stderr is not a terminal, nor with "
                + "--quiet.\n\n"
                + "Exit status: 0 when every file is valid; 66 when a file cannot be opened or read (its line says "
                + "why; the others are still checked); otherwise 65 when a file is invalid; 64 usage error.",
            usage: ["[--verbose] [--quiet] [--archiver <name> ...] [--any-archiver] [--require-root] <file> ..."],
            arguments: [.repeated("file", help: "The property lists or keyed archives to check (one or more).")],
            options: [
                .flag("verbose", short: "v", help: "Also print '<file>: OK' for each valid file."),
                .flag("quiet", short: "q", help: "Draw no progress line on stderr."),
                .repeated("archiver", valueName: "name",
                          help: "Expect keyed archives whose $archiver is <name> (written by an NSKeyedArchiver "
                              + "subclass, such as SceneKit's SCNKeyedArchiver): no note for them."),
                .flag("any-archiver", help: "Expect keyed archives whatever their $archiver name: no note for any."),
                .flag("require-root", help: "Also fail keyed archives whose $top has no \"root\" key, which "
                    + "NSKeyedUnarchiver.unarchivedObject(ofClass:from:) reads (nibs and archives of unkeyed values "
                    + "have none)."),
            ]
        ) { context in
            let arguments = context.arguments
            let files = arguments.values("file")
            guard !files.isEmpty else { throw UsageError("Missing expected argument '<file> ...'.") }
            let expected: AcceptedArchivers = arguments.flag("any-archiver")
                ? .any : AcceptedArchivers(["NSKeyedArchiver"] + arguments.values("archiver"))
            let linter = Linter(requiresRoot: arguments.flag("require-root"))
            let verbose = arguments.flag("verbose")
            var unreadable = false
            var invalid = false
            let progress = ProgressReporter.forCommand(context, label: "lint", unit: "files", total: files.count,
                                                       quiet: arguments.flag("quiet"))
            defer { progress.finish() }
            let stdout = context.stdout
            func say(_ line: String) {
                progress.finish()
                stdout.write(line + "\n")
            }
            for file in files {
                defer { progress.advance() }
                let bytes: [UInt8]
                do {
                    bytes = try InputFiles.readFile(file)
                } catch let failure as CommandFailure {
                    unreadable = true
                    say(failure.message.replacingNewlines)
                    continue
                }
                if TypedStreamHeader.isTypedStream(bytes) {
                    // A typedstream is checked by reading it whole, as the keyed archive it converts to.
                    do {
                        _ = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes)
                        if verbose { say("\(file): OK (typedstream)") }
                    } catch {
                        invalid = true
                        say("\(file): \("\(error)".replacingNewlines)")
                    }
                    continue
                }
                let result = linter.check(bytes)
                if let archiver = result.archiver, !expected.accepts(archiver) {
                    progress.finish()
                    noteArchiver(archiver, file: file, context)
                }
                if let problem = result.problem {
                    invalid = true
                    say("\(file): \(problem.replacingNewlines)")
                } else if verbose {
                    say("\(file): OK")
                }
            }
            if unreadable { return ExitStatus.noInput }
            return invalid ? ExitStatus.dataError : ExitStatus.success
        }
    }
}

/// What `lint` checks in one file's bytes.
struct Linter {
    var requiresRoot: Bool

    /// The one-line reason `bytes` are not a valid plist or keyed archive (`nil` when they are), and the
    /// `$archiver` of a keyed archive whose header could be read (any name is read).
    ///
    /// The bytes are decoded once; a keyed archive's graph is taken from that decoding (an XML archive is
    /// first converted to binary, as ``KeyedUnarchiver`` reads it) and validated.
    func check(_ bytes: [UInt8]) -> (problem: String?, archiver: String?) {
        var archiver: String?
        return (problem(in: bytes, archiver: &archiver), archiver)
    }

    private func problem(in bytes: [UInt8], archiver: inout String?) -> String? {
        do {
            let value: PlistValue
            var document: BinaryPlistDocument?
            if PropertyList.detectFormat(bytes) == .binary {
                let binary = try BinaryPlistDocument(bytes)
                value = try binary.decodeTopObject()
                document = binary
            } else {
                value = try PropertyList.decode(bytes)  // XML, or the error that says what else it is
            }
            guard value.looksLikeKeyedArchive else { return nil }
            let archive = try document ?? BinaryPlistDocument(PropertyList.encode(value, format: .binary))
            let graph = try ArchiveGraph(document: archive, root: value, acceptedArchivers: .any)
            archiver = graph.archiver
            try graph.validate()
            if requiresRoot && graph.top["root"] == nil {
                return KeyedArchiveError(.valueNotFound, "$top has no \"root\" key").description
            }
            return nil
        } catch let error as PlistError {
            return error.description
        } catch let error as KeyedArchiveError {
            return error.description
        } catch {
            return "\(error)"
        }
    }
}
