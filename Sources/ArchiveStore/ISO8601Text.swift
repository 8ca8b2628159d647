import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// ISO 8601 timestamps in UTC to the second (`2024-05-01T12:00:00Z`): the XML plist date text of
/// `BinaryPlist` (one formatter in the package), for a `Date`.
///
/// Plays the part of `Date.ISO8601FormatStyle()` with its default (UTC, whole seconds) fields.
package enum ISO8601Text {
    /// Formats `date` in UTC, rounding down to the second. Instants beyond about ±30 million years are
    /// clamped to that range; a non-finite instant prints as the epoch.
    package static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let clamped = interval.isFinite ? min(max(interval, -1e15), 1e15) : 0
        return ISO8601.format(PlistDate(secondsSinceReferenceDate: clamped - PlistDate.unixEpochOffset))
            ?? "1970-01-01T00:00:00Z"
    }
}
