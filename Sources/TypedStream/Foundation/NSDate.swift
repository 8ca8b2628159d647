#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSDate` (version 0): one `d` group, seconds since 2001-01-01, as `Date`.
extension TypedStreamUnarchiver {
    func decodeNSDate() throws -> Date {
        _ = try expectGroup([.double])
        let start = scanner.position
        let seconds = try scanner.readDouble()
        guard seconds.isFinite else { throw error(.invalidValue, "an NSDate of \(seconds) seconds", at: start) }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }
}

extension TypedStreamArchiver {
    func writeNSDate(_ date: Date) {
        writeNewObject(.date) {
            writeGroupHeader("d")
            writer.double(date.timeIntervalSinceReferenceDate)
        }
    }
}
