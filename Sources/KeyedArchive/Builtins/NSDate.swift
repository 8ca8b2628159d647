import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSDate` (`NS.time`, seconds since 2001-01-01), as `Date`.
extension KeyedUnarchiver {
    /// An `NSDate` object: its `NS.time`, real or integer, finite.
    func decodeNSDate(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        guard let v = try rawField("NS.time") else { throw invalid("NSDate without NS.time") }
        let seconds: Double
        switch v {
        case .real(let d): seconds = d
        case .integer(let i): seconds = Double(i.int64Value ?? 0)
        default: throw invalid("NS.time is \(describe(v))")
        }
        guard seconds.isFinite else { throw invalid("NS.time is \(seconds), not a finite number of seconds") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }
}

extension KeyedArchiver {
    /// An `NSDate` object (`NS.time`). With ``refusesNonFiniteDates``, a date the unarchiver would refuse (an
    /// infinite or NaN `NS.time`) fails the archive instead.
    func dateObject(_ date: Date) -> Int32 {
        if refusesNonFiniteDates && !date.timeIntervalSinceReferenceDate.isFinite {
            record(KeyedArchiveError(.invalidValue, "a date of \(date.timeIntervalSinceReferenceDate) seconds is not a finite time; an unarchiver refuses it"))
        }
        return withObjectFrame(classUID: { classObject(.date) }) {
            addField(knownKeyNode(.time), state.pointee.builder.real(date.timeIntervalSinceReferenceDate))
        }
    }
}
