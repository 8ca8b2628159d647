import BinaryPlist
import CommandLineSupport
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive diff A B [--json]`: the semantic diff of two keyed archives' object graphs.
    static var diff: Command {
        Command(
            name: "diff",
            abstract: "Compare two keyed archives' object graphs by meaning.",
            discussion: "A and B may each be a binary or an XML keyed archive. Their graphs are walked together from "
                + "the $top keys; objects are matched by their path from the roots (a field's key, an array index, a "
                + "dictionary key, a set member), never by UID, so UID numbering, object order, string uniquing, "
                + "binary against XML, and Apple's archiver against this one make no difference. Instances of "
                + "classes whose chain holds NSArray or NSOrderedSet compare by element, NSDictionary by key, NSSet "
                + "by member (a scalar by its value, an object by its class and scalar fields); other objects by "
                + "field.\n\n"
                + "Each difference is one line on stdout, depth first, children in a stable order:\n"
                + "<path>: changed: <A> -> <B> (a value, or a value against an object, <Class>)\n"
                + "<path>: class: <A> -> <B> (the class, or its $classes chain)\n"
                + "<path>: removed: <A> (only A has it)\n"
                + "<path>: added: <B> (only B has it)\n"
                + "<path>: sharing: A: ...; B: ... (one reaches an object met before, the other a separate one)\n"
                + "<path>: cycle: A: ...; B: ... (one reaches an object on its own path, the other does not)\n"
                + "A path reads root.items[2][\"name\"]{\"red\"}.title: a $top key, then fields (.key), elements "
                + "([i]), dictionary keys ([\"k\"]) and set members ({m}); a run of more than three equal steps is "
                + "written once with its count: root(.next)*599. Values are plist-JSON, cut at 120 "
                + "characters. A sharing or cycle difference is not followed further. With --json, each difference "
                + "is a JSON object on its own line: {\"path\": ..., \"kind\": ..., \"a\": ..., \"b\": ...}. Nothing "
                + "is printed when the graphs are equal. An archive written by another archiver than NSKeyedArchiver "
                + "(a subclass such as SceneKit's SCNKeyedArchiver) is compared too, with a note on stderr: 'note: "
                + "<file>: written by archiver ...'; archivers that differ are a difference at $archiver.\n\n"
                + "Time and memory are linear in the two archives; the walk needs no recursion however deep the "
                + "graph.\n\n"
                + "Exit status (as diff(1) and cmp(1)): 0 no differences, 1 differences, 64 usage error, 65 an "
                + "input is not a keyed archive, 66 an input cannot be opened, 74 output error.",
            arguments: [
                .required("a", help: "The first keyed archive (binary or XML)."),
                .required("b", help: "The second keyed archive (binary or XML)."),
            ],
            options: [.flag("json", help: "Print each difference as a JSON object on its own line.")]
        ) { context in
            let arguments = context.arguments
            guard let fileA = arguments.value("a"), let fileB = arguments.value("b") else {
                throw UsageError("Missing expected argument '<a> <b>'.")
            }
            let bytesA = try readInput(fileA)
            let bytesB = try readInput(fileB)
            let json = arguments.flag("json")
            for (file, bytes) in [(fileA, bytesA), (fileB, bytesB)] {
                if let archiver = archiverName(ofArchive: bytes) { noteArchiver(archiver, file: file, context) }
            }
            var out = ChunkedOutput(context.stdout)
            var count = 0
            do {
                try ArchiveDiff.differences(between: bytesA, and: bytesB) { difference in
                    count += 1
                    try out.write((json ? difference.jsonRecord : difference.description.replacingNewlines) + "\n")
                }
                try out.flush()
            } catch let failure as ArchiveDiffError {
                throw dataError(failure.side == .a ? fileA : fileB, failure.underlying.description)
            } catch is ChunkedOutput.Stopped {
                return ExitStatus.ioError
            }
            return count == 0 ? ExitStatus.success : ExitStatus.failure
        }
    }
}

/// Text for stdout gathered into chunks of 64 KiB, so that a long listing is not one write per line. A failed
/// write stops the command (``Stopped``).
struct ChunkedOutput {
    struct Stopped: Error {}
    private let sink: OutputSink
    private var buffer: [UInt8] = []

    init(_ sink: OutputSink) { self.sink = sink }

    mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        sink.write(bytes: buffer)
        buffer.removeAll(keepingCapacity: true)
        if sink.writeError != nil { throw Stopped() }
    }
}

extension ArchiveDifference {
    /// `{"path": ..., "kind": ..., "a": ..., "b": ...}` on one line (`a`/`b` left out when absent).
    var jsonRecord: String {
        var w = JSONWriter(pretty: false)
        w.open(.object)
        w.member("path", first: true)
        w.string(path)
        w.member("kind")
        w.string(kind.rawValue)
        for (name, value) in [("a", a), ("b", b)] {
            guard let value else { continue }
            w.member(name)
            w.string(value)
        }
        w.close(.object, empty: false)
        return w.text
    }
}

extension JSONWriter {
    /// An object member's separator and key: `, "key": ` (no separator for the first).
    mutating func member(_ key: String, first: Bool = false) {
        item(first: first)
        self.key(key)
    }
}
