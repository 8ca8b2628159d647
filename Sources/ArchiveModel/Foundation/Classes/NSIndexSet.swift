#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSIndexSet` and `NSMutableIndexSet`, as `ArchivedIndexSet`: in keyed archives `NSRangeCount`, then
/// `NSLocation` and `NSLength` for one range, or `NSRangeData` (each range's location and length as packed
/// integers in an `NSData`) for more. No typedstream form here: no Apple typedstream of one to follow.
///
/// Mirrors `NSIndexSet` / `NSMutableIndexSet` and their `encode(with:)` / `init(coder:)`.
package enum NSIndexSetClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.indexSet, "NSIndexSet", typedStreamVersions: nil, valueType: ArchivedIndexSet.self,
                            kind: nil),
        FoundationClassInfo(.mutableIndexSet, "NSMutableIndexSet", superclasses: ["NSIndexSet", "NSObject"],
                            typedStreamVersions: nil, mutable: true, valueType: ArchivedIndexSet.self, kind: nil),
    ]

    /// An `NSIndexSet` or `NSMutableIndexSet` object.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        func integer(_ key: String) throws -> Int {
            guard case .integer(let i)? = try r.rawField(key), let v = i.intValue, v >= 0 else {
                throw r.invalidValue("NSIndexSet's \(key) is not an integer of at least 0")
            }
            return v
        }
        let count = try integer("NSRangeCount")
        var pairs: [Int] = []
        switch count {
        case 0: break
        case 1: pairs = [try integer("NSLocation"), try integer("NSLength")]
        default:
            guard let v = try r.rawField("NSRangeData"), let data = try r.plainValue(v, key: "NSRangeData") as? Data else {
                throw r.invalidValue("NSIndexSet of \(count) ranges without NSRangeData data")
            }
            switch PackedIntegers.read([UInt8](data)) {
            case .success(let values): pairs = values
            case .failure(let failure):
                throw r.invalidValue("NSRangeData is cut off or too large at byte \(failure.offset)")
            }
            guard pairs.count == 2 * count else {
                throw r.invalidValue("NSRangeData holds \(pairs.count) integers, not \(2 * count) for NSRangeCount \(count)")
            }
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(count)
        var end = 0
        for i in stride(from: 0, to: pairs.count, by: 2) {
            let (location, length) = (pairs[i], pairs[i + 1])
            let (upper, overflow) = location.addingReportingOverflow(length)
            guard !overflow, length > 0, location >= end else {
                throw r.invalidValue("NSIndexSet range \(i / 2) (location \(location), length \(length)) is empty, past Int.max or out of order")
            }
            ranges.append(location..<upper)
            end = upper
        }
        return ArchivedIndexSet(ranges: ranges)
    }

    /// An `NSIndexSet` object, with Apple's keys.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed set: ArchivedIndexSet, to w: W) -> Int32 {
        w.writeObject(of: .indexSet) { encodeFields(keyed: set, to: w) }
    }

    /// The fields of an `NSIndexSet` or `NSMutableIndexSet` in the current object.
    @inlinable
    package static func encodeFields<W: KeyedFieldWriter>(keyed set: ArchivedIndexSet, to w: W) {
        let ranges = set.ranges
        w.setInteger(Int64(ranges.count), forRawKey: "NSRangeCount")
        if ranges.count == 1 {
            w.setInteger(Int64(ranges[0].lowerBound), forRawKey: "NSLocation")
            w.setInteger(Int64(ranges[0].count), forRawKey: "NSLength")
        } else if ranges.count > 1 {
            let packed = PackedIntegers.write(ranges.flatMap { [$0.lowerBound, $0.count] })
            w.setDataObject(Data(packed), forRawKey: "NSRangeData")
        }
    }
}
