import CommandLineSupport

/// The `keyedarchive` inspector as testable code: arguments, environment and output streams in, exit status out.
///
/// Each verb lives in its own file, `Verbs/<Verb>.swift` (a verb of several files in `Verbs/<Verb>/`), as a
/// `static var` of ``Verbs`` returning a ``Command``; add it to ``tool``. `formcache`'s verbs follow the same layout.
///
/// ```swift
/// let status = Inspector.run(arguments: ["plist", "a.plist"], environment: [:], io: .standard)
/// ```
package enum Inspector {
    /// The tool with all its verbs.
    package static var tool: CommandLineTool {
        CommandLineTool(
            name: "keyedarchive",
            abstract: "Inspect property lists and keyed archives.",
            discussion: "Exit status: 0 success, 1 no live cache entry for the key (cache get), a failed "
                + "self-check (cache exercise), differences (diff) or a class outside --allow (audit), 64 usage error, 65 malformed input (lint: a file is invalid), 66 input "
                + "cannot be opened, "
                + "73 output cannot be created, 74 I/O error.",
            version: PackageVersion.current,
            commands: [Verbs.plist, Verbs.decode, Verbs.encode, Verbs.convert, Verbs.dump, Verbs.lint, Verbs.diff, Verbs.audit,
                       Verbs.graph, Verbs.cache])
    }

    /// Runs the inspector on `arguments` (without the program name) and returns the exit status.
    package static func run(arguments: [String], environment: [String: String], io: CommandIO) -> Int32 {
        tool.run(arguments: arguments, environment: environment, io: io)
    }

    /// Runs the inspector on the process's arguments and exits with its status.
    package static func main() -> Never {
        StandardProcess.exit(
            run(arguments: StandardProcess.arguments, environment: StandardProcess.environment, io: .standard))
    }
}

/// Namespace for the verb builders, one file each (`Verbs/Dump.swift`, `Verbs/Cache/CacheGet.swift`), and the
/// helpers they share (reading inputs, mapping their errors to exit statuses).
enum Verbs {}
