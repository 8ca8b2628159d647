/// A property-list date: seconds since 2001-01-01T00:00:00Z, the reference date of `CFDate` / `NSDate`.
///
/// Equality is by bit pattern, so a NaN date equals itself and `-0.0` differs from `0.0`; this keeps
/// round trips exact. Binary plists store it as marker `0x33` and an 8-byte big-endian double.
///
/// Mirrors `CFDate` (`CFAbsoluteTime`).
public struct PlistDate: Hashable, Sendable, CustomStringConvertible {
    /// Seconds since 2001-01-01T00:00:00Z.
    public var secondsSinceReferenceDate: Double

    /// A date `secondsSinceReferenceDate` seconds after 2001-01-01T00:00:00Z.
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// Seconds between 1970-01-01 and 2001-01-01.
    package static let unixEpochOffset: Double = 978_307_200

    /// Whether two dates have the same bit pattern.
    public static func == (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate.bitPattern == rhs.secondsSinceReferenceDate.bitPattern
    }

    /// Hashes the date's bit pattern.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSinceReferenceDate.bitPattern)
    }

    /// The date in ISO 8601 (`2001-01-01T00:00:00Z`), or its seconds when it has no such form.
    public var description: String { ISO8601.format(self) ?? "date(\(secondsSinceReferenceDate))" }
}
