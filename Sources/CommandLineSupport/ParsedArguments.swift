/// The values a command line gave one command, looked up by option or argument name.
///
/// ```swift
/// let format = arguments.value("format") ?? "binary"
/// let fields = arguments.values("field")
/// if arguments.flag("dry-run") { ... }
/// ```
///
/// Mirrors the properties of a swift-argument-parser `ParsableCommand` after parsing.
package struct ParsedArguments: Sendable, Hashable {
    private var flags: Set<String> = []
    private var valuesByName: [String: [String]] = [:]
    private var defaults: [String: String] = [:]

    package init() {}

    /// Creates parsed arguments directly (for tests): flags present, and values per option or argument name.
    package init(flags: Set<String> = [], values: [String: [String]] = [:]) {
        self.flags = flags
        self.valuesByName = values
    }

    /// Whether the flag was given.
    package func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether the option or argument was given at least once (defaults do not count).
    package func isPresent(_ name: String) -> Bool { flags.contains(name) || valuesByName[name] != nil }

    /// The last value of the option or argument, else its default, else `nil`.
    package func value(_ name: String) -> String? { valuesByName[name]?.last ?? defaults[name] }

    /// Every value of a repeated option or argument, in command-line order.
    package func values(_ name: String) -> [String] { valuesByName[name] ?? [] }

    mutating func setFlag(_ name: String) { flags.insert(name) }
    mutating func append(_ value: String, for name: String) { valuesByName[name, default: []].append(value) }
    mutating func setDefault(_ value: String, for name: String) { defaults[name] = value }
}
