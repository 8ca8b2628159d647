import ArchiveStore
import CommandLineSupport
import FormCache

/// The `formcache` command as a function: arguments, environment and output streams in, exit status out.
///
/// ```swift
/// let status = FormCacheTool.run(arguments: ["add", "--name", "signup"], environment: env, io: .standard)
/// ```
///
/// Exit statuses: 0 success; 1 not found or expired; 64 usage error; 65 store unreadable or corrupt (or an
/// import file that is not a FormModel archive); 74 I/O error; 75 store locked past the timeout
/// (`FORMCACHE_LOCK_TIMEOUT` seconds, default 10). Data goes alone to stdout; `Error: ...` and a hint to stderr.
///
/// Mirrors swift-argument-parser's `ParsableCommand.main()` for a tool with subcommands.
package enum FormCacheTool {
    /// Runs one `formcache` command line (without the program name) and returns its exit status.
    /// `fileSystem`: the seam every store call goes through (tests inject faults there).
    package static func run(
        arguments: [String], environment: [String: String], io: CommandIO, clock: any StoreClock = SystemClock(),
        fileSystem: FileSystem = .kernel
    ) -> Int32 {
        tool(session: Session(environment: environment, clock: clock, fileSystem: fileSystem)).run(
            arguments: arguments, environment: environment, io: io)
    }

    static func tool(session: Session) -> CommandLineTool {
        CommandLineTool(
            name: "formcache",
            abstract: "Keep form records, with an expiry, in your data directory.",
            discussion: """
                The store is FormCache.cache, a log of keyed-archive records (with FormCache.cache.index \
                beside it; 'export' writes one ordinary keyed archive) in $FORMCACHE_HOME, else $XDG_DATA_HOME/formcache, \
                else ~/.local/share/formcache (see 'formcache path'). Exit status: 0 ok, 1 not found or expired, \
                64 usage error, 65 store unreadable or corrupt, 74 I/O error, 75 store locked past \
                $FORMCACHE_LOCK_TIMEOUT seconds (default 10).
                """,
            version: PackageVersion.current,
            commands: [
                Verbs.add(session), Verbs.get(session), Verbs.update(session), Verbs.list(session), Verbs.remove(session),
                Verbs.purge(session), Verbs.importArchive(session), Verbs.export(session), Verbs.path(session), Verbs.moveAside(session),
                Verbs.recover(session), Verbs.watch(session),
            ])
    }
}

/// Namespace for the verb builders, one file each.
enum Verbs {
    /// After a verb changed the store and wrote its report: when standard output failed, exit 74 saying what
    /// was done (the change is committed; running the command again would do it twice or fail), not just
    /// that the output failed.
    static func requireOutput(_ context: CommandContext, afterChange done: String) throws {
        if context.stdout.writeError != nil {
            throw CommandFailure(status: ExitStatus.ioError, "cannot write to standard output; \(done)")
        }
    }
}

/// What every verb needs: the environment it was started in and the clock.
struct Session {
    var environment: [String: String]
    var clock: any StoreClock
    var fileSystem: FileSystem = .kernel

    /// Opens the cache the environment designates, with the lock timeout from `FORMCACHE_LOCK_TIMEOUT`.
    func cache() throws -> FormCache {
        var options = RepositoryOptions()
        options.fileSystem = fileSystem
        if let text = environment["FORMCACHE_LOCK_TIMEOUT"], !text.isEmpty {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                throw UsageError("FORMCACHE_LOCK_TIMEOUT must be a number of seconds, not '\(text)'.")
            }
            options.lockTimeout = seconds
        }
        do {
            return try FormCache(environment: environment, clock: clock, options: options)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Runs `body` against the cache, turning a ``StoreError`` into the matching exit status and hint.
    func withCache<Result>(_ body: (FormCache) throws(StoreError) -> Result) throws -> Result {
        let cache = try cache()
        do {
            return try body(cache)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// ``withCache(_:)`` for a verb that goes through every record: on a terminal (and without `--quiet`) stderr
    /// shows the records done so far under `label` while `body` runs, and the line is finished however it ends.
    func withCache<Result>(reportingProgress label: String, _ context: CommandContext,
                           _ body: (FormCache, @escaping ProgressHandler) throws(StoreError) -> Result) throws -> Result {
        let progress = ProgressReporter.forCommand(context, label: label, unit: "records", total: nil,
                                                   quiet: context.arguments.flag("quiet"))
        return try withCache { cache throws(StoreError) in
            defer { progress.finish() }
            return try body(cache, progress.update)
        }
    }
}
