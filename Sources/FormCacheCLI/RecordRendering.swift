import ArchiveStore
import BinaryPlist
import ArchiveInspection
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FormCache

/// JSON and human-readable renderings of form records.
enum RecordRendering {
    /// `{"id": ..., "name": ..., "fields": {...}, "registeredAt": ..., "expiresAt": ...}` on one line, field
    /// keys sorted, timestamps ISO 8601 UTC; rendered as the package's other JSON is (``JSONNode``).
    static func json(_ record: FormRecord) -> String {
        JSONNode.object([
            ("id", .string(record.id)),
            ("name", .string(record.name)),
            ("fields", .object(record.fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ("registeredAt", .string(ISO8601Text.format(record.registeredAt))),
            ("expiresAt", .string(ISO8601Text.format(record.expiresAt))),
        ]).render(pretty: false)
    }

    /// One record as `label: value` lines.
    static func detail(_ record: FormRecord) -> String {
        var lines = [
            "id:            " + printable(record.id),
            "name:          " + printable(record.name),
            "registered at: " + ISO8601Text.format(record.registeredAt),
            "expires at:    " + ISO8601Text.format(record.expiresAt),
        ]
        if record.fields.isEmpty {
            lines.append("fields:        (none)")
        } else {
            lines.append("fields:")
            for (key, value) in record.fields.sorted(by: { $0.key < $1.key }) {
                lines.append("  " + printable(key) + " = " + printable(value))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A table with a header row: ID, NAME, EXPIRES AT (marked `expired` when past `now`), FIELDS.
    static func table(_ records: [FormRecord], now: Date) -> String {
        let rows = records.map { record -> [String] in
            let expiry = ISO8601Text.format(record.expiresAt) + (record.isExpired(at: now) ? " (expired)" : "")
            let fields = record.fields.sorted { $0.key < $1.key }.map { printable($0.key) + "=" + printable($0.value) }
            return [printable(record.id), printable(record.name), expiry, fields.joined(separator: ", ")]
        }
        let header = ["ID", "NAME", "EXPIRES AT", "FIELDS"]
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }

    /// Control characters shown as `?` so that a value cannot break the layout or drive the terminal.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.value < 0x20 || $0.value == 0x7F ? "?" : $0
        }))
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.hasSuffix(" ") { text.removeLast() }
        return String(text)
    }
}
