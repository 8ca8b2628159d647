/// A command-line tool made of verbs: it parses the command line, prints help and usage errors in
/// swift-argument-parser's layout, and runs the chosen ``Command``.
///
/// ```swift
/// let tool = CommandLineTool(name: "keyedarchive", abstract: "Inspect plists.", version: PackageVersion.current,
///                            commands: [plistCommand])
/// let status = tool.run(arguments: ["plist", "a.plist"], environment: [:], io: .standard)
/// ```
///
/// Understands `tool --help`, `tool -h`, `tool help`, `tool help <verb>`, `tool <verb> --help`,
/// `tool --version`; options as `--name value`, `--name=value`, `-n value`, `-nvalue`; `--` ends options;
/// `-` alone is a positional argument. A usage error prints, on stderr,
///
/// ```
/// Error: Missing expected argument '<file>'
/// Usage: keyedarchive plist <file>
///   See 'keyedarchive plist --help' for more information.
/// ```
///
/// and returns ``ExitStatus/usage`` (64). A verb that groups verbs (``Command/subcommands``) runs as a nested
/// tool named `<tool> <verb>`: `tool cache list DIR`, `tool cache --help`, `tool help cache list`.
///
/// Mirrors swift-argument-parser's `ParsableCommand.main()` with `subcommands`.
package struct CommandLineTool {
    package var name: String
    package var abstract: String
    package var discussion: String
    /// Printed by `--version`; `nil` means the tool has no `--version`.
    package var version: String?
    package var commands: [Command]
    /// What shows a verb's help, before `<subcommand>`: `tool help`, or `tool help group` for a nested tool.
    var helpVerb: String

    package init(name: String, abstract: String, discussion: String = "", version: String? = nil, commands: [Command]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.commands = commands
        self.helpVerb = name + " help"
    }

    /// The tool's help text (`tool --help`).
    package var help: String { HelpFormatter.toolHelp(self) }

    /// A verb's help text (`tool help verb`), or `nil` for an unknown verb.
    package func help(for commandName: String) -> String? {
        guard let command = command(named: commandName) else { return nil }
        if !command.subcommands.isEmpty { return nested(command).help }
        return HelpFormatter.commandHelp(command, toolName: name)
    }

    /// The help that `tool help <words>` prints (`help cache list` walks into groups), or the usage error message.
    private func help(walking words: ArraySlice<String>) -> Result<String, UsageError> {
        guard let verb = words.first else { return .success(help) }
        guard let command = command(named: verb) else { return .failure(UsageError("Unknown subcommand '\(verb)'.")) }
        let rest = words.dropFirst()
        if !command.subcommands.isEmpty { return nested(command).help(walking: rest) }
        if let extra = rest.first { return .failure(UsageError("Unexpected argument '\(extra)'.")) }
        return .success(HelpFormatter.commandHelp(command, toolName: name))
    }

    /// The tool a grouping verb stands for: named `<tool> <verb>`, its verbs the group's.
    private func nested(_ command: Command) -> CommandLineTool {
        var tool = CommandLineTool(name: "\(name) \(command.name)", abstract: command.abstract,
                                   discussion: command.discussion, commands: command.subcommands)
        tool.helpVerb = "\(helpVerb) \(command.name)"
        return tool
    }

    /// Parses `arguments` (without the program name), runs the verb they name and returns the exit status.
    package func run(arguments: [String], environment: [String: String], io: CommandIO) -> Int32 {
        guard let first = arguments.first else {
            return usageError("Missing expected subcommand.", io: io)
        }
        switch first {
        case "-h", "--help":
            io.stdout.write(help)
            return ExitStatus.success
        case "--version" where version != nil:
            io.stdout.write((version ?? "") + "\n")
            return ExitStatus.success
        case "help":
            switch help(walking: arguments.dropFirst()) {
            case .success(let text):
                io.stdout.write(text)
                return ExitStatus.success
            case .failure(let error):
                return usageError(error.message, io: io)
            }
        default:
            break
        }
        guard let command = command(named: first) else {
            let message = first.hasPrefix("-") ? "Unknown option '\(first)'." : "Unknown subcommand '\(first)'."
            return usageError(message, io: io)
        }
        if !command.subcommands.isEmpty {
            return nested(command).run(arguments: Array(arguments.dropFirst()), environment: environment, io: io)
        }
        let parsed: ParsedArguments
        switch ArgumentParser.parse(Array(arguments.dropFirst()), for: command) {
        case .help:
            io.stdout.write(HelpFormatter.commandHelp(command, toolName: name))
            return ExitStatus.success
        case .failure(let error):
            return usageError(error.message, command: command, io: io)
        case .success(let arguments):
            parsed = arguments
        }
        var context = CommandContext(
            arguments: parsed, environment: environment, io: io, toolName: name, commandName: command.name)
        do {
            let status = try command.run(&context)
            if let code = io.stdout.writeError {
                // The data did not reach its reader: never report success (a verb that changed something
                // says so itself, with a CommandFailure, before this).
                return context.fail(ExitStatus.ioError, "cannot write to standard output: \(SystemCalls.describe(code))")
            }
            return status
        } catch let error as UsageError {
            return usageError(error.message, command: command, io: io)
        } catch let error as CommandFailure {
            return context.fail(error.status, error.message)
        } catch {
            return context.fail(ExitStatus.failure, "\(error)")
        }
    }

    private func command(named name: String) -> Command? {
        commands.first { $0.name == name }
    }

    private func usageError(_ message: String, command: Command? = nil, io: CommandIO) -> Int32 {
        let text: String
        if let command {
            text = HelpFormatter.usageError(
                message, usage: HelpFormatter.commandUsage(command, toolName: name),
                helpCommand: "\(name) \(command.name)")
        } else {
            text = HelpFormatter.usageError(message, usage: HelpFormatter.toolUsage(self), helpCommand: name)
        }
        io.stderr.write(text)
        return ExitStatus.usage
    }
}
