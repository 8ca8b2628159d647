/// One verb of a command-line tool: its help, what it accepts, and what it does.
///
/// Put each verb in its own file as a static property returning a `Command`:
///
/// ```swift
/// extension Verbs {
///     static var get: Command {
///         Command(name: "get", abstract: "Print one record.",
///                 arguments: [.required("id", help: "The record's id.")],
///                 options: [.flag("json", help: "Print JSON.")]) { context in
///             guard let id = context.arguments.value("id") else { throw UsageError("missing id") }
///             context.stdout.write(id + "\n")
///             return ExitStatus.success
///         }
///     }
/// }
/// ```
///
/// `run` may throw ``UsageError`` (exit 64 with usage), ``CommandFailure`` (its status) or any other error
/// (`Error: <error>`, exit 1). Build commands in a function, not a stored global: the closure is not `Sendable`.
///
/// A verb may instead group verbs of its own (`tool cache list DIR`): build it with
/// ``init(name:abstract:discussion:subcommands:)``; the tool then hands the rest of the command line to a
/// nested tool named `<tool> <verb>`, with its own help, `help` verb and usage errors.
///
/// Mirrors swift-argument-parser's `ParsableCommand` with its `CommandConfiguration` (and its `subcommands`).
package struct Command {
    package var name: String
    /// One line for OVERVIEW and the SUBCOMMANDS list.
    package var abstract: String
    /// Paragraphs shown after the overview in the verb's help.
    package var discussion: String
    /// Usage lines after `<tool> <verb> ` replacing the generated one (for verbs with several forms).
    package var usage: [String]
    package var arguments: [ArgumentSpec]
    package var options: [OptionSpec]
    /// The verbs this one groups; when not empty, ``run`` is never called.
    package var subcommands: [Command]
    package var run: (inout CommandContext) throws -> Int32

    package init(
        name: String, abstract: String, discussion: String = "", usage: [String] = [],
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        run: @escaping (inout CommandContext) throws -> Int32
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.arguments = arguments
        self.options = options
        self.subcommands = []
        self.run = run
    }

    /// A verb that groups `subcommands` (`tool <name> <subcommand> ...`); `abstract` and `discussion` head
    /// its help, which lists them.
    package init(name: String, abstract: String, discussion: String = "", subcommands: [Command]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = []
        self.arguments = []
        self.options = []
        self.subcommands = subcommands
        self.run = { _ in throw UsageError("Missing expected subcommand.") }
    }
}

/// What a running command gets: its parsed arguments, the environment and the output streams.
package struct CommandContext {
    package var arguments: ParsedArguments
    package var environment: [String: String]
    /// Data only.
    package var stdout: OutputSink
    /// Messages.
    package var stderr: OutputSink
    /// The tool's name, as shown in messages (`formcache`).
    package var toolName: String
    /// The verb's name (`add`).
    package var commandName: String
    /// Whether `stderr` is a terminal (``CommandIO/stderrIsTerminal``), and its width.
    package var stderrIsTerminal: Bool
    package var stderrColumns: Int?

    package init(
        arguments: ParsedArguments, environment: [String: String], io: CommandIO, toolName: String,
        commandName: String
    ) {
        self.arguments = arguments
        self.environment = environment
        self.stdout = io.stdout
        self.stderr = io.stderr
        self.toolName = toolName
        self.commandName = commandName
        self.stderrIsTerminal = io.stderrIsTerminal
        self.stderrColumns = io.stderrColumns
    }

    /// Writes `Error: <message>` as one line on stderr and returns `status`, for `return context.fail(...)`.
    package func fail(_ status: Int32, _ message: String) -> Int32 {
        stderr.write("Error: \(message)\n")
        return status
    }
}
