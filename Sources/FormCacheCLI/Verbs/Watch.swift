import ArchiveInspection
import ArchiveStore
import CommandLineSupport
import Dispatch
import FormCache

extension Verbs {
    static func watch(_ session: Session) -> Command {
        Command(
            name: "watch", abstract: "Print one JSON line per change to the store until interrupted.",
            discussion: """
                Each commit, by this machine's other processes too, prints {"added": [ids], "updated": [ids], "removed": [ids], "reload": false}; \
                "reload" is true when the change was too large to list, or the store was replaced. The process sleeps \
                between changes (a file watch: inotify on Linux, kqueue on macOS) and holds no lock while it waits. \
                Stderr says when it is watching.
                """,
            options: [
                .option("count", valueName: "n", help: "Stop after n changes (default: run until interrupted)."),
            ]
        ) { context in
            let limit = try context.arguments.value("count").map { try count($0, option: "count") }
            let cache = try session.cache()
            let changes = cache.changes()
            context.stderr.write("Watching \(cache.path) (Ctrl-C to stop).\n")
            if limit == 0 { return ExitStatus.success }
            let output = LinePrinter(sink: context.stdout)
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                var printed = 0
                for await change in changes {
                    output.print(Self.json(change))
                    printed += 1
                    if let limit, printed >= limit { break }
                    if output.failed { break }
                }
                done.signal()
            }
            withExtendedLifetime(cache) { done.wait() }
            if output.failed { throw CommandFailure(status: ExitStatus.ioError, "cannot write to standard output") }
            return ExitStatus.success
        }
    }

    /// One change as a line of JSON.
    static func json(_ change: RepositoryChange) -> String {
        JSONNode.object([
            ("added", .array(change.added.map(JSONNode.string))),
            ("updated", .array(change.updated.map(JSONNode.string))),
            ("removed", .array(change.removed.map(JSONNode.string))),
            ("reload", .bool(change.isReload)),
        ]).render(pretty: false) + "\n"
    }
}

/// Standard output for the task that prints changes.
private final class LinePrinter: @unchecked Sendable { // Sendable: one task prints; the command reads `failed` only after it signalled that it is done.
    let sink: OutputSink
    init(sink: OutputSink) { self.sink = sink }
    func print(_ line: String) { sink.write(line) }
    var failed: Bool { sink.writeError != nil }
}
