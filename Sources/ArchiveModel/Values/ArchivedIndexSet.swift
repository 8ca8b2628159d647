#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The decoded form of `NSIndexSet` / `NSMutableIndexSet`: its ranges of indexes, ascending and apart.
///
/// Archived as `NSRangeCount`, then `NSLocation` and `NSLength` for one range, or `NSRangeData` (each range's
/// location and length as packed integers) for more.
///
/// Mirrors `NSIndexSet` (Swift's `IndexSet`).
public struct ArchivedIndexSet: Hashable, Sendable {
    /// The ranges, in ascending order, none empty, none touching another. Mirrors `IndexSet.rangeView`.
    public private(set) var ranges: [Range<Int>]

    /// An index set of `ranges`, sorted and merged where they overlap or touch; empty ranges are dropped.
    /// Mirrors `NSMutableIndexSet.add(in:)` for each.
    public init(ranges: [Range<Int>]) {
        var merged: [Range<Int>] = []
        for r in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        self.ranges = merged
    }

    /// The number of indexes. Mirrors `NSIndexSet.count`.
    public var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Whether `index` is in the set. Mirrors `NSIndexSet.contains(_:)`.
    public func contains(_ index: Int) -> Bool { ranges.contains { $0.contains(index) } }
}
