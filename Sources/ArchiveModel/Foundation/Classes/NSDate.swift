#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSDate`, as `Date`: seconds since 2001-01-01, in keyed archives `NS.time` (a real; an integer is read
/// too), in typedstreams (version 0) one `d` group.
///
/// Mirrors `NSDate` (`__NSDate`) and its `encode(with:)` / `init(coder:)`.
package enum NSDateClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.date, "NSDate", privateNames: ["__NSDate"], typedStreamVersions: [0, 0],
                            valueType: Date.self, kind: .date),
    ]

    /// An `NSDate` object: its `NS.time`, real or integer, finite.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        guard let v = try r.rawField("NS.time") else { throw r.invalidValue("NSDate without NS.time") }
        let seconds: Double
        switch v {
        case .real(let d): seconds = d
        case .integer(let i): seconds = Double(i.int64Value ?? 0)
        default: throw r.invalidValue("NS.time is \(r.describe(v))")
        }
        guard seconds.isFinite else { throw r.invalidValue("NS.time is \(seconds), not a finite number of seconds") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// An `NSDate` object (`NS.time`). When the writer refuses non-finite dates, a date the unarchiver would
    /// refuse (an infinite or NaN `NS.time`) fails the archive instead.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed date: Date, to w: W) -> Int32 {
        if w.refusesNonFiniteDates && !date.timeIntervalSinceReferenceDate.isFinite {
            w.recordInvalidValue("a date of \(date.timeIntervalSinceReferenceDate) seconds is not a finite time; an unarchiver refuses it")
        }
        return w.writeObject(of: .date) { w.setReal(date.timeIntervalSinceReferenceDate, forRawKey: "NS.time") }
    }

    /// One `d` group: the seconds, finite.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        try r.expectGroup(encoding: "d")
        let start = r.streamOffset
        let seconds = try r.readDouble()
        guard seconds.isFinite else { throw r.invalidValue("an NSDate of \(seconds) seconds", at: start) }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    @inlinable
    package static func encode<W: StreamFieldWriter>(stream date: Date, to w: W) {
        w.writeObject(of: .date, identity: nil) {
            w.writeGroup(encoding: "d")
            w.writeRawDouble(date.timeIntervalSinceReferenceDate)
        }
    }
}
