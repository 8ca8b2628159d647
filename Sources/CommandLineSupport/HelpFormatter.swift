/// Renders help and usage text in swift-argument-parser's layout: `OVERVIEW`, `USAGE`, `ARGUMENTS`, `OPTIONS`,
/// `SUBCOMMANDS`, labels indented two spaces, descriptions in a column at 26, wrapped at 80 columns.
enum HelpFormatter {
    static let width = 80
    static let labelColumn = 26

    static func toolUsage(_ tool: CommandLineTool) -> [String] {
        ["\(tool.name) <subcommand>"]
    }

    static func commandUsage(_ command: Command, toolName: String) -> [String] {
        let prefix = "\(toolName) \(command.name)"
        if !command.usage.isEmpty { return command.usage.map { "\(prefix) \($0)" } }
        var parts = [prefix]
        for option in command.options {
            switch option.kind {
            case .flag: parts.append("[\(option.synopsis)]")
            case .single: parts.append(option.isRequired ? option.synopsis : "[\(option.synopsis)]")
            case .repeated: parts.append(option.isRequired ? "\(option.synopsis) ..." : "[\(option.synopsis) ...]")
            }
        }
        parts.append(contentsOf: command.arguments.map(\.synopsis))
        return [parts.joined(separator: " ")]
    }

    static func toolHelp(_ tool: CommandLineTool) -> String {
        var out = overview(tool.abstract, tool.discussion)
        out += usageSection("USAGE: ", toolUsage(tool)) + "\n"
        var options: [(String, String)] = []
        if tool.version != nil { options.append(("--version", "Show the version.")) }
        options.append(("-h, --help", "Show help information."))
        out += section("OPTIONS", options)
        var subcommands = tool.commands.map { ($0.name, $0.abstract) }
        subcommands.append(("help", "Show subcommand help information."))
        out += section("SUBCOMMANDS", subcommands)
        out += "  See '\(tool.helpVerb) <subcommand>' for detailed help.\n"
        return out
    }

    static func commandHelp(_ command: Command, toolName: String) -> String {
        var out = overview(command.abstract, command.discussion)
        out += usageSection("USAGE: ", commandUsage(command, toolName: toolName)) + "\n"
        if !command.arguments.isEmpty {
            out += section("ARGUMENTS", command.arguments.map { ("<\($0.name)>", $0.help) })
        }
        var options = command.options.map { option -> (String, String) in
            var label = option.shortName.map { "-\($0), " } ?? ""
            label += option.synopsis
            var help = option.help
            var notes: [String] = []
            if !option.allowedValues.isEmpty { notes.append("values: " + option.allowedValues.joined(separator: ", ")) }
            if let value = option.defaultValue { notes.append("default: " + value) }
            if !notes.isEmpty { help += (help.isEmpty ? "" : " ") + "(" + notes.joined(separator: "; ") + ")" }
            return (label, help)
        }
        options.append(("-h, --help", "Show help information."))
        out += section("OPTIONS", options)
        return out
    }

    /// The lines printed for a usage error.
    static func usageError(_ message: String, usage: [String], helpCommand: String) -> String {
        "Error: \(message)\n" + usageSection("Usage: ", usage)
            + "  See '\(helpCommand) --help' for more information.\n"
    }

    private static func overview(_ abstract: String, _ discussion: String) -> String {
        var out = ""
        if !abstract.isEmpty { out += wrap("OVERVIEW: " + abstract, indent: 0) + "\n\n" }
        if !discussion.isEmpty {
            out += discussion.split(separator: "\n", omittingEmptySubsequences: false)
                .map { wrap(String($0), indent: 0) }.joined(separator: "\n") + "\n\n"
        }
        return out
    }

    private static func usageSection(_ title: String, _ lines: [String]) -> String {
        let pad = String(repeating: " ", count: title.count)
        return lines.enumerated().map { ($0.offset == 0 ? title : pad) + $0.element + "\n" }.joined()
    }

    private static func section(_ title: String, _ rows: [(String, String)]) -> String {
        var out = title + ":\n"
        for (label, help) in rows {
            let head = "  " + label
            if help.isEmpty {
                out += head + "\n"
            } else if head.count < labelColumn - 1 {
                let text = wrap(help, indent: labelColumn)
                let body = text.dropFirst(labelColumn)
                out += head + String(repeating: " ", count: labelColumn - head.count) + body + "\n"
            } else {
                out += head + "\n" + wrap(help, indent: labelColumn) + "\n"
            }
        }
        return out + "\n"
    }

    /// Word-wraps `text` to ``width`` columns, every line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                lines.append(pad + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(pad + line)
        return lines.joined(separator: "\n")
    }
}
