/// The `<date>` text of XML plists, `YYYY-MM-DDTHH:MM:SSZ` in UTC, without Foundation.
///
/// Proleptic Gregorian calendar with astronomical year numbering (year 0 is 1 BC). Years 0...9999 are four
/// digits; later years take as many digits as they need (`12345-01-01T00:00:00Z`); years before 0 are a minus
/// sign and at least four digits (`-0001-12-31T00:00:00Z`). Writing keeps whole seconds, rounded down, as
/// CoreFoundation does; reading also accepts a fractional part (`...:05.25Z`). Dates further than 2^62 seconds
/// from 2001 and NaN or infinite dates have no text.
///
/// Mirrors the date handling of `CFPropertyListCreateXMLData` / `CFPropertyListCreateWithData`.
package enum ISO8601 {
    /// Farthest date, in seconds from the reference date, that formats: keeps all arithmetic in `Int64`.
    static let maxMagnitude: Double = 4_611_686_018_427_387_904  // 2^62

    /// Days from 1970-01-01 to 2001-01-01.
    private static let referenceDay: Int64 = 11_323

    /// `YYYY-MM-DDTHH:MM:SSZ`, or `nil` for a NaN, infinite or out-of-range date.
    package static func format(_ date: PlistDate) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        guard append(date, to: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``format(_:)``'s text to `out`; `false` (and nothing appended) where it gives `nil`.
    static func append(_ date: PlistDate, to out: inout [UInt8]) -> Bool {
        let t = date.secondsSinceReferenceDate
        guard t.isFinite, t.magnitude <= maxMagnitude else { return false }
        var whole = Int64(t)  // toward zero; then down (no libm: this target links nothing)
        if Double(whole) > t { whole -= 1 }
        let (dayOffset, secondOfDay) = floorDivide(whole, 86_400)
        let (year, month, day) = civil(fromDays: dayOffset + referenceDay)

        if year < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = year.magnitude
        if magnitude < 10_000 {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / 1000))
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / 100 % 10))
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / 10 % 10))
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
        } else {
            out.append(contentsOf: String(magnitude).utf8)
        }
        func two(_ v: Int64, after separator: UInt8) {
            out.append(separator)
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v / 10))
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10))
        }
        two(month, after: UInt8(ascii: "-"))
        two(day, after: UInt8(ascii: "-"))
        two(secondOfDay / 3600, after: UInt8(ascii: "T"))
        two(secondOfDay / 60 % 60, after: UInt8(ascii: ":"))
        two(secondOfDay % 60, after: UInt8(ascii: ":"))
        out.append(UInt8(ascii: "Z"))
        return true
    }

    /// Parses `[-]Y+-MM-DDTHH:MM:SS[.fff]Z` (ASCII whitespace around it is ignored). `nil` when the text is
    /// not of that form, a field is out of range (month 13, February 30, hour 24...) or the date is further
    /// than 2^62 seconds from 2001.
    static func parse(_ text: some Collection<UInt8>) -> PlistDate? {
        var bytes = Array(text)[...]
        while let f = bytes.first, isSpace(f) { bytes.removeFirst() }
        while let l = bytes.last, isSpace(l) { bytes.removeLast() }

        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes.removeFirst() }
        var year: Int64 = 0
        var yearDigits = 0
        while let c = bytes.first, let d = digit(c) {
            year = year * 10 + d
            yearDigits += 1
            bytes.removeFirst()
            if yearDigits > 12 { return nil }
        }
        guard yearDigits > 0 else { return nil }
        if negative { year = -year }

        func field(after separator: UInt8) -> Int64? {
            guard bytes.count >= 3, bytes.first == separator else { return nil }
            bytes.removeFirst()
            guard let hi = digit(bytes.removeFirst()), let lo = digit(bytes.removeFirst()) else { return nil }
            return hi * 10 + lo
        }
        guard let month = field(after: UInt8(ascii: "-")), let day = field(after: UInt8(ascii: "-")),
            let hour = field(after: UInt8(ascii: "T")), let minute = field(after: UInt8(ascii: ":")),
            let second = field(after: UInt8(ascii: ":"))
        else { return nil }

        var fraction = 0.0
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            var scale = 0.1
            var any = false
            while let c = bytes.first, let d = digit(c) {
                fraction += Double(d) * scale
                scale /= 10
                any = true
                bytes.removeFirst()
            }
            guard any else { return nil }
        }
        guard bytes.count == 1, bytes.first == UInt8(ascii: "Z") else { return nil }

        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        let days = days(fromCivil: year, month, day) - referenceDay
        let (daySeconds, overflow) = days.multipliedReportingOverflow(by: 86_400)
        guard !overflow else { return nil }
        let seconds = daySeconds + hour * 3600 + minute * 60 + second  // |daySeconds| < 2^63 - 2^62
        guard Double(seconds).magnitude <= maxMagnitude else { return nil }
        return PlistDate(secondsSinceReferenceDate: Double(seconds) + fraction)
    }

    // MARK: Calendar arithmetic (days since 1970-01-01, proleptic Gregorian; H. Hinnant's algorithms)

    /// Floor division and the matching non-negative remainder.
    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    static func civil(fromDays z: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (era, doe) = floorDivide(z + 719_468, 146_097)
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let (era, yoe) = floorDivide(y, 400)
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func digit(_ c: UInt8) -> Int64? {
        c >= 0x30 && c <= 0x39 ? Int64(c - 0x30) : nil
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
}
