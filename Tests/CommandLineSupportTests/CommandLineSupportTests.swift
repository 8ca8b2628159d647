import CommandLineSupport
import Testing

/// A small tool exercising every kind of option and argument; `run` echoes what it parsed.
private func sampleTool() -> CommandLineTool {
    let add = Command(
        name: "add", abstract: "Add a record.", discussion: "Prints the new record's fields.",
        arguments: [.optional("note", help: "A note.")],
        options: [
            .option("name", short: "n", help: "The record's name.", required: true),
            .repeated("field", valueName: "k=v", help: "A field; may be repeated."),
            .option("format", help: "Output format.", defaultValue: "text", allowedValues: ["text", "json"]),
            .flag("dry-run", help: "Change nothing."),
        ]
    ) { context in
        let args = context.arguments
        var line = "name=\(args.value("name") ?? "-") format=\(args.value("format") ?? "-")"
        line += " fields=\(args.values("field")) dry=\(args.flag("dry-run")) note=\(args.value("note") ?? "-")"
        context.stdout.write(line + "\n")
        return ExitStatus.success
    }
    let cat = Command(
        name: "cat", abstract: "Copy files.", arguments: [.required("first", help: "First file."), .repeated("rest", help: "More files.")]
    ) { context in
        switch context.arguments.value("first") {
        case "bad-usage": throw UsageError("no good")
        case "fail": throw CommandFailure(status: ExitStatus.noInput, "cannot open fail")
        case "other": throw SampleError()
        case "binary": context.stdout.write(bytes: [0x00, 0xFF, 0x0A])
        default: context.stdout.write(([context.arguments.value("first") ?? ""] + context.arguments.values("rest")).joined(separator: ",") + "\n")
        }
        return ExitStatus.success
    }
    return CommandLineTool(name: "sample", abstract: "A sample tool.", version: "1.2.3", commands: [add, cat])
}

private struct SampleError: Error, CustomStringConvertible {
    var description: String { "something broke" }
}

private struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutBytes: [UInt8]
}

private func run(_ arguments: [String]) -> Result {
    let out = OutputCapture()
    let err = OutputCapture()
    let status = sampleTool().run(arguments: arguments, environment: [:], io: CommandIO(stdout: out.sink, stderr: err.sink))
    return Result(status: status, stdout: out.text, stderr: err.text, stdoutBytes: out.bytes)
}

@Suite struct CommandLineSupportTests {
    @Test func toolHelpHasArgumentParserSections() {
        for words in [["--help"], ["-h"], ["help"]] {
            let result = run(words)
            #expect(result.status == 0)
            #expect(result.stderr == "")
            #expect(result.stdout.hasPrefix("OVERVIEW: A sample tool.\n\nUSAGE: sample <subcommand>\n\nOPTIONS:\n"))
            #expect(result.stdout.contains("  --version               Show the version.\n"))
            #expect(result.stdout.contains("  -h, --help              Show help information.\n"))
            #expect(result.stdout.contains("SUBCOMMANDS:\n  add                     Add a record.\n  cat                     Copy files.\n"))
            #expect(result.stdout.contains("  See 'sample help <subcommand>' for detailed help.\n"))
        }
    }

    @Test func verbHelpIsTheSameThroughHelpVerbAndFlag() {
        let viaHelp = run(["help", "add"])
        let viaFlag = run(["add", "--help"])
        let viaShort = run(["add", "-h", "--bogus"])
        #expect(viaHelp.status == 0 && viaFlag.status == 0 && viaShort.status == 0)
        #expect(viaHelp.stdout == viaFlag.stdout)
        #expect(viaHelp.stdout == viaShort.stdout)
        let expected = """
            OVERVIEW: Add a record.

            Prints the new record's fields.

            USAGE: sample add --name <name> [--field <k=v> ...] [--format <format>] [--dry-run] [<note>]

            ARGUMENTS:
              <note>                  A note.

            OPTIONS:
              -n, --name <name>       The record's name.
              --field <k=v>           A field; may be repeated.
              --format <format>       Output format. (values: text, json; default: text)
              --dry-run               Change nothing.
              -h, --help              Show help information.


            """
        #expect(viaHelp.stdout == expected)
    }

    @Test func versionPrintsVersionLine() {
        let result = run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "1.2.3\n")
    }

    @Test func optionsAcceptSeparateInlineAndShortForms() {
        #expect(run(["add", "--name", "a"]).stdout == "name=a format=text fields=[] dry=false note=-\n")
        #expect(run(["add", "--name=a", "--format=json"]).stdout == "name=a format=json fields=[] dry=false note=-\n")
        #expect(run(["add", "-n", "b", "--dry-run", "memo"]).stdout == "name=b format=text fields=[] dry=true note=memo\n")
        #expect(run(["add", "-nc"]).stdout == "name=c format=text fields=[] dry=false note=-\n")
        #expect(run(["add", "--name", "a", "--name", "z"]).stdout.hasPrefix("name=z "))
    }

    @Test func repeatedOptionKeepsEveryValueInOrder() {
        let result = run(["add", "--field", "k=1", "--name", "x", "--field=b=2", "--field", "k=3"])
        #expect(result.status == 0)
        #expect(result.stdout == "name=x format=text fields=[\"k=1\", \"b=2\", \"k=3\"] dry=false note=-\n")
    }

    @Test func doubleDashEndsOptionsAndDashIsPositional() {
        #expect(run(["cat", "-", "--", "--name", "-h"]).stdout == "-,--name,-h\n")
        #expect(run(["cat", "a", "b", "c"]).stdout == "a,b,c\n")
    }

    @Test(arguments: [
        (["add"], "Missing expected argument '--name <name>'."),
        (["add", "--name"], "Missing value for '--name <name>'."),
        (["add", "--name", "--dry-run"], "Missing value for '--name <name>'."),
        (["add", "--name", "a", "--bogus"], "Unknown option '--bogus'."),
        (["add", "--name", "a", "-x"], "Unknown option '-x'."),
        (["add", "--name", "a", "--dry-run=yes"], "The flag '--dry-run' does not take a value."),
        (["add", "--name", "a", "--format", "xml"], "The value 'xml' is invalid for '--format <format>'; expected one of 'text', 'json'."),
        (["add", "--name", "a", "one", "two"], "Unexpected argument 'two'."),
        (["cat"], "Missing expected argument '<first>'."),
        (["cat", "bad-usage"], "no good"),
    ])
    func verbUsageErrorsPrintErrorUsageAndHint(arguments: [String], message: String) {
        let result = run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        let verb = arguments[0]
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines.first.map(String.init) == "Error: \(message)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: sample \(verb) ") == true)
        #expect(lines.dropFirst(2).first.map(String.init) == "  See 'sample \(verb) --help' for more information.")
    }

    @Test(arguments: [
        ([String](), "Missing expected subcommand."),
        (["frobnicate"], "Unknown subcommand 'frobnicate'."),
        (["--frobnicate"], "Unknown option '--frobnicate'."),
        (["help", "frobnicate"], "Unknown subcommand 'frobnicate'."),
    ])
    func toolUsageErrorsPointAtToolHelp(arguments: [String], message: String) {
        let result = run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: \(message)\nUsage: sample <subcommand>\n  See 'sample --help' for more information.\n")
    }

    @Test func thrownFailuresBecomeOneErrorLineWithTheirStatus() {
        let failure = run(["cat", "fail"])
        #expect(failure.status == 66)
        #expect(failure.stderr == "Error: cannot open fail\n")
        #expect(failure.stdout == "")
        let other = run(["cat", "other"])
        #expect(other.status == 1)
        #expect(other.stderr == "Error: something broke\n")
    }

    @Test func binaryOutputPassesThroughUnchanged() {
        #expect(run(["cat", "binary"]).stdoutBytes == [0x00, 0xFF, 0x0A])
    }

    @Test func sinksAreHandlesToTheSameCapture() {
        let capture = OutputCapture()
        var first = capture.sink
        let second = capture.sink
        print("a", 1, to: &first)
        second.write(bytes: [0x62])
        #expect(capture.text == "a 1\nb")
    }

    @Test func longLabelsAndLongHelpWrap() {
        let command = Command(
            name: "x", abstract: "X.",
            options: [.option("a-very-long-option-name", valueName: "value", help: String(repeating: "word ", count: 30))]
        ) { _ in 0 }
        let tool = CommandLineTool(name: "t", abstract: "T.", commands: [command])
        let help = tool.help(for: "x") ?? ""
        #expect(help.contains("  --a-very-long-option-name <value>\n                          word word"))
        for line in help.split(separator: "\n") { #expect(line.count <= 80) }
        #expect(tool.help(for: "y") == nil)
        #expect(!tool.help.contains("--version"))
    }
}

/// A tool with a verb that groups verbs: `grouped store put <id>`, `grouped store drop [--all]`.
private func groupedTool() -> CommandLineTool {
    let put = Command(name: "put", abstract: "Store one item.", arguments: [.required("id", help: "The item.")]) { context in
        context.stdout.write("put \(context.arguments.value("id") ?? "-")\n")
        return ExitStatus.success
    }
    let drop = Command(name: "drop", abstract: "Drop items.", options: [.flag("all", help: "Every item.")]) { context in
        context.stdout.write("drop all=\(context.arguments.flag("all"))\n")
        return ExitStatus.success
    }
    let store = Command(name: "store", abstract: "Work on the store.", discussion: "Items live in the store.",
                        subcommands: [put, drop])
    return CommandLineTool(name: "grouped", abstract: "A grouped tool.", version: "1.0", commands: [store])
}

private func runGrouped(_ arguments: [String]) -> Result {
    let out = OutputCapture()
    let err = OutputCapture()
    let status = groupedTool().run(arguments: arguments, environment: [:], io: CommandIO(stdout: out.sink, stderr: err.sink))
    return Result(status: status, stdout: out.text, stderr: err.text, stdoutBytes: out.bytes)
}

@Suite struct CommandGroupTests {
    @Test func groupRunsItsSubcommands() {
        #expect(runGrouped(["store", "put", "a1"]).stdout == "put a1\n")
        #expect(runGrouped(["store", "drop", "--all"]).stdout == "drop all=true\n")
    }

    @Test func groupHelpListsSubcommandsEveryWayItIsAsked() {
        let expected = """
            OVERVIEW: Work on the store.

            Items live in the store.

            USAGE: grouped store <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              put                     Store one item.
              drop                    Drop items.
              help                    Show subcommand help information.

              See 'grouped help store <subcommand>' for detailed help.

            """
        for words in [["store", "--help"], ["store", "-h"], ["store", "help"], ["help", "store"]] {
            let result = runGrouped(words)
            #expect(result.status == 0)
            #expect(result.stderr == "")
            #expect(result.stdout == expected)
        }
        #expect(groupedTool().help(for: "store") == expected)
        #expect(runGrouped(["--help"]).stdout.contains("SUBCOMMANDS:\n  store                   Work on the store.\n"))
    }

    @Test func subcommandHelpIsTheSameThroughEveryPath() {
        let viaFlag = runGrouped(["store", "put", "--help"])
        #expect(viaFlag.status == 0)
        #expect(viaFlag.stdout.hasPrefix("OVERVIEW: Store one item.\n\nUSAGE: grouped store put <id>\n\nARGUMENTS:\n"))
        #expect(runGrouped(["help", "store", "put"]).stdout == viaFlag.stdout)
        #expect(runGrouped(["store", "help", "put"]).stdout == viaFlag.stdout)
    }

    @Test(arguments: [
        (["store"], "Error: Missing expected subcommand.\nUsage: grouped store <subcommand>\n  See 'grouped store --help' for more information.\n"),
        (["store", "bogus"], "Error: Unknown subcommand 'bogus'.\nUsage: grouped store <subcommand>\n  See 'grouped store --help' for more information.\n"),
        (["store", "--version"], "Error: Unknown option '--version'.\nUsage: grouped store <subcommand>\n  See 'grouped store --help' for more information.\n"),
        (["store", "put"], "Error: Missing expected argument '<id>'.\nUsage: grouped store put <id>\n  See 'grouped store put --help' for more information.\n"),
        (["store", "drop", "x"], "Error: Unexpected argument 'x'.\nUsage: grouped store drop [--all]\n  See 'grouped store drop --help' for more information.\n"),
        (["help", "store", "bogus"], "Error: Unknown subcommand 'bogus'.\nUsage: grouped <subcommand>\n  See 'grouped --help' for more information.\n"),
        (["help", "store", "put", "x"], "Error: Unexpected argument 'x'.\nUsage: grouped <subcommand>\n  See 'grouped --help' for more information.\n"),
    ])
    func groupUsageErrorsNameTheNestedCommand(arguments: [String], stderr: String) {
        let result = runGrouped(arguments)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == stderr)
    }
}
