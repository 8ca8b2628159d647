/// How long a record lives after it is registered: a positive whole number of seconds, minutes, hours or
/// days, written `45s`, `90m`, `12h` or `30d`.
///
/// ```swift
/// let ttl = try TimeToLive(parsing: "12h")   // ttl.seconds == 43_200
/// ```
///
/// Plays the part of a `TimeInterval` given to `Date.addingTimeInterval(_:)`, with a textual form.
public struct TimeToLive: Hashable, Sendable, CustomStringConvertible {
    /// The length in seconds, always positive.
    public let seconds: Int64

    /// Thirty days.
    public static let defaultValue = TimeToLive(checkedSeconds: 30 * 86_400)

    /// The longest accepted: 100 years.
    package static let maximumSeconds: Int64 = 100 * 366 * 86_400

    private init(checkedSeconds: Int64) { seconds = checkedSeconds }

    /// Parses `<digits><unit>` where unit is `s`, `m`, `h` or `d`. Throws ``StoreError/Code/invalidArgument``
    /// for anything else, for zero, and for more than 100 years (of 366 days).
    public init(parsing text: String) throws(StoreError) {
        let scalars = Array(text.unicodeScalars)
        guard let unit = scalars.last, scalars.count >= 2 else { throw Self.invalid(text) }
        let multiplier: Int64
        switch unit {
        case "s": multiplier = 1
        case "m": multiplier = 60
        case "h": multiplier = 3_600
        case "d": multiplier = 86_400
        default: throw Self.invalid(text)
        }
        var value: Int64 = 0
        for scalar in scalars.dropLast() {
            guard ("0"..."9").contains(scalar) else { throw Self.invalid(text) }
            let digit = Int64(scalar.value - 48)
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2, next <= Self.maximumSeconds else { throw Self.tooLong(text) }
            value = next
        }
        let (total, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow, total <= Self.maximumSeconds else { throw Self.tooLong(text) }
        guard total > 0 else {
            throw StoreError(.invalidArgument, "time to live '\(text)' must be longer than zero")
        }
        seconds = total
    }

    /// `count` seconds, clamped to 1 second ... 100 years of 366 days (so `.seconds(0)` lives one second).
    public static func seconds(_ count: Int) -> TimeToLive { clamped(Int64(clamping: count), 1) }
    /// `count` minutes, clamped like ``seconds(_:)``.
    public static func minutes(_ count: Int) -> TimeToLive { clamped(Int64(clamping: count), 60) }
    /// `count` hours, clamped like ``seconds(_:)``.
    public static func hours(_ count: Int) -> TimeToLive { clamped(Int64(clamping: count), 3_600) }
    /// `count` days, clamped like ``seconds(_:)``.
    public static func days(_ count: Int) -> TimeToLive { clamped(Int64(clamping: count), 86_400) }

    private static func clamped(_ count: Int64, _ unit: Int64) -> TimeToLive {
        let (total, overflow) = count.multipliedReportingOverflow(by: unit)
        if overflow || total > maximumSeconds { return TimeToLive(checkedSeconds: count < 0 ? 1 : maximumSeconds) }
        return TimeToLive(checkedSeconds: max(1, total))
    }

    /// The shortest exact textual form: `30d`, `90m`, `45s`.
    public var description: String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }

    private static func invalid(_ text: String) -> StoreError {
        StoreError(.invalidArgument, "time to live '\(text)' is not a number followed by s, m, h or d (as in 45s, 90m, 12h, 30d)")
    }

    private static func tooLong(_ text: String) -> StoreError {
        StoreError(.invalidArgument, "time to live '\(text)' is longer than 100 years")
    }
}
