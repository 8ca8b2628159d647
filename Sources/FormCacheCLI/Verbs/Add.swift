import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func add(_ session: Session) -> Command {
        Command(
            name: "add", abstract: "Add a record and print its id.",
            discussion: """
                Prints the new record's id alone on stdout. The record expires after --ttl (default 30d); \
                an expired record is never shown and is removed by 'formcache purge'.
                """,
            options: [
                .option("name", valueName: "name", help: "The form's name.", required: true),
                .repeated("field", valueName: "key=value", help: "A field of the form (repeatable)."),
                .option("id", valueName: "id", help: "The record's id (default: a new UUID)."),
                .option("ttl", valueName: "duration", help: "Time to live: 45s, 90m, 12h or 30d.", defaultValue: "30d"),
            ]
        ) { context in
            let name = context.arguments.value("name") ?? ""
            guard !name.isEmpty else { throw UsageError("The --name may not be empty.") }
            let fields = try parseFields(context.arguments.values("field"))
            let id = try context.arguments.value("id").map(validateID)
            let timeToLive: TimeToLive
            do throws(StoreError) {
                timeToLive = try TimeToLive(parsing: context.arguments.value("ttl") ?? "30d")
            } catch {
                throw UsageError(error.reason.prefix(1).uppercased() + error.reason.dropFirst() + ".")
            }
            let cache = try session.cache()
            let storedID: String
            do throws(StoreError) {
                storedID = try cache.add(name: name, fields: fields, id: id, timeToLive: timeToLive).id
            } catch where error.code == .durabilityUnknown && error.recordID != nil {
                // The record is in the store: print its id so that nobody adds it a second time, and say
                // that a power loss may still undo it.
                let stored = error.recordID ?? ""
                context.stdout.write(stored + "\n")
                throw CommandFailure(
                    status: ExitStatus.ioError,
                    "the record was stored, with id \(stored), but its durability is unknown: \(error.reason)"
                        + "\nHint: it is readable now ('formcache get \(stored)'); do not add it again.")
            } catch {
                throw CommandFailure(error)
            }
            context.stdout.write(storedID + "\n")
            try requireOutput(context, afterChange: "the record was stored, with id \(storedID)")
            return ExitStatus.success
        }
    }

    /// `key=value` words to a dictionary; a missing `=`, an empty key or a repeated key is a usage error.
    static func parseFields(_ words: [String]) throws -> [String: String] {
        var fields: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("The field '\(word)' is not of the form key=value.")
            }
            let key = String(word[..<equals])
            guard fields[key] == nil else { throw UsageError("The field '\(key)' is given twice.") }
            fields[key] = String(word[word.index(after: equals)...])
        }
        return fields
    }

    /// An id given on the command line: not empty, at most 256 bytes, no control characters.
    static func validateID(_ id: String) throws -> String {
        guard !id.isEmpty, id.utf8.count <= 256, !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw UsageError("The id must be 1 to 256 bytes without control characters.")
        }
        return id
    }
}
