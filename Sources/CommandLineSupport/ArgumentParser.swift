/// Matches one verb's command-line words against its ``OptionSpec``s and ``ArgumentSpec``s.
enum ArgumentParser {
    enum Outcome {
        case success(ParsedArguments)
        /// `--help` or `-h` appeared before any `--`.
        case help
        case failure(UsageError)
    }

    static func parse(_ words: [String], for command: Command) -> Outcome {
        var parsed = ParsedArguments()
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        if let end = words.firstIndex(of: "--") {
            if words[..<end].contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
        } else if words.contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .help
        }
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            // Find the option and any value attached to the word itself.
            let option: OptionSpec
            var attached: String?
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name = body.firstIndex(of: "=").map { String(body[..<$0]) } ?? String(body)
                attached = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                guard let found = command.options.first(where: { $0.name == name }) else {
                    return .failure(UsageError("Unknown option '--\(name)'."))
                }
                option = found
            } else {
                let letter = word.dropFirst().first
                guard let found = command.options.first(where: { $0.shortName != nil && $0.shortName == letter }) else {
                    return .failure(UsageError("Unknown option '\(word)'."))
                }
                option = found
                let rest = word.dropFirst(2)
                if !rest.isEmpty {
                    guard option.kind != .flag else { return .failure(UsageError("Unknown option '\(word)'.")) }
                    attached = String(rest.hasPrefix("=") ? rest.dropFirst() : rest)
                }
            }
            if option.kind == .flag {
                if attached != nil { return .failure(UsageError("The flag '--\(option.name)' does not take a value.")) }
                parsed.setFlag(option.name)
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else if index < words.count, words[index] == "-" || !words[index].hasPrefix("-") {
                value = words[index]
                index += 1
            } else {
                return .failure(UsageError("Missing value for '\(option.synopsis)'."))
            }
            if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
                let choices = option.allowedValues.map { "'\($0)'" }.joined(separator: ", ")
                return .failure(UsageError("The value '\(value)' is invalid for '\(option.synopsis)'; expected one of \(choices)."))
            }
            parsed.append(value, for: option.name)
        }
        for option in command.options {
            if option.isRequired && !parsed.isPresent(option.name) {
                return .failure(UsageError("Missing expected argument '\(option.synopsis)'."))
            }
            if let value = option.defaultValue { parsed.setDefault(value, for: option.name) }
        }
        var remaining = positionals[...]
        for argument in command.arguments {
            if argument.isRepeated {
                for value in remaining { parsed.append(value, for: argument.name) }
                remaining = []
            } else if let value = remaining.popFirst() {
                parsed.append(value, for: argument.name)
            } else if !argument.isOptional {
                return .failure(UsageError("Missing expected argument '<\(argument.name)>'."))
            }
        }
        if let extra = remaining.first {
            return .failure(UsageError("Unexpected argument '\(extra)'."))
        }
        return .success(parsed)
    }
}
