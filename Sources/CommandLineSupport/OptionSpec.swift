/// A named option of a command: a flag (`--dry-run`), an option with a value (`--format xml`, `--format=xml`,
/// `-o OUT`), or an option that may be repeated (`--field a=1 --field b=2`).
///
/// ```swift
/// OptionSpec.option("format", valueName: "format", help: "Output format.", defaultValue: "binary",
///                   allowedValues: ["binary", "xml"])
/// ```
///
/// Mirrors swift-argument-parser's `@Flag` and `@Option`.
package struct OptionSpec: Sendable, Hashable {
    /// How an option takes values.
    package enum Kind: Sendable, Hashable {
        /// No value: present or absent.
        case flag
        /// One value; when given more than once, the last one wins.
        case single
        /// Any number of values, one per occurrence, in order.
        case repeated
    }

    /// The long name without dashes (`format` for `--format`); also the name to look it up by.
    package var name: String
    /// The one-letter short name (`o` for `-o`), if any.
    package var shortName: Character?
    package var kind: Kind
    /// The placeholder shown in usage and help (`<format>`).
    package var valueName: String
    package var help: String
    /// The value ``ParsedArguments/value(_:)`` returns when the option is absent; shown in help.
    package var defaultValue: String?
    /// When not empty, the only values accepted; shown in help.
    package var allowedValues: [String]
    /// Whether the command line must give the option.
    package var isRequired: Bool

    package init(
        name: String, shortName: Character? = nil, kind: Kind, valueName: String? = nil, help: String,
        defaultValue: String? = nil, allowedValues: [String] = [], isRequired: Bool = false
    ) {
        self.name = name
        self.shortName = shortName
        self.kind = kind
        self.valueName = valueName ?? name
        self.help = help
        self.defaultValue = defaultValue
        self.allowedValues = allowedValues
        self.isRequired = isRequired
    }

    /// `--quiet` / `-q`: the flag of every verb that draws a progress line (see ``ProgressReporter``).
    package static let quietProgress = flag("quiet", short: "q",
                                            help: "Draw no progress line on stderr (it is drawn only when stderr is a terminal).")

    /// A flag: `--name` (or `-s`), no value.
    package static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, shortName: short, kind: .flag, help: help)
    }

    /// An option that takes one value.
    package static func option(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        defaultValue: String? = nil, allowedValues: [String] = [], required: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            name: name, shortName: short, kind: .single, valueName: valueName, help: help,
            defaultValue: defaultValue, allowedValues: allowedValues, isRequired: required)
    }

    /// An option that may be given any number of times.
    package static func repeated(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String, required: Bool = false
    ) -> OptionSpec {
        OptionSpec(name: name, shortName: short, kind: .repeated, valueName: valueName, help: help, isRequired: required)
    }

    /// `--format <format>`, as usage and error messages show it.
    package var synopsis: String {
        kind == .flag ? "--\(name)" : "--\(name) <\(valueName)>"
    }
}

/// A positional argument of a command (`<file>`).
///
/// Mirrors swift-argument-parser's `@Argument`.
package struct ArgumentSpec: Sendable, Hashable {
    /// The name to look it up by and to show as `<name>`.
    package var name: String
    package var help: String
    /// Whether the command line may leave it out.
    package var isOptional: Bool
    /// Whether it takes every remaining positional value (only sensible as the last argument).
    package var isRepeated: Bool

    package init(name: String, help: String, isOptional: Bool = false, isRepeated: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeated = isRepeated
    }

    /// A positional argument that must be given.
    package static func required(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help)
    }

    /// A positional argument that may be left out.
    package static func optional(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help, isOptional: true)
    }

    /// A positional argument that takes all remaining values (zero or more).
    package static func repeated(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help, isOptional: true, isRepeated: true)
    }

    /// `<file>`, `[<file>]` or `[<file> ...]`, as usage shows it.
    package var synopsis: String {
        if isRepeated { return "[<\(name)> ...]" }
        return isOptional ? "[<\(name)>]" : "<\(name)>"
    }
}
