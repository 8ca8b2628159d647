import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSIndexSet` / `NSMutableIndexSet` in keyed archives, as `ArchivedIndexSet`.
extension KeyedUnarchiver {
    /// An `NSIndexSet` or `NSMutableIndexSet` object.
    func decodeNSIndexSet(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        func integer(_ key: String) throws -> Int {
            guard case .integer(let i)? = try rawField(key), let v = i.intValue, v >= 0 else {
                throw invalid("NSIndexSet's \(key) is not an integer of at least 0")
            }
            return v
        }
        let count = try integer("NSRangeCount")
        var pairs: [Int] = []
        switch count {
        case 0: break
        case 1: pairs = [try integer("NSLocation"), try integer("NSLength")]
        default:
            guard let v = try rawField("NSRangeData"), let data = try plainValue(v, key: "NSRangeData") as? Data else {
                throw invalid("NSIndexSet of \(count) ranges without NSRangeData data")
            }
            switch PackedIntegers.read([UInt8](data)) {
            case .success(let values): pairs = values
            case .failure(let failure):
                throw invalid("NSRangeData is cut off or too large at byte \(failure.offset)")
            }
            guard pairs.count == 2 * count else {
                throw invalid("NSRangeData holds \(pairs.count) integers, not \(2 * count) for NSRangeCount \(count)")
            }
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(count)
        var end = 0
        for i in stride(from: 0, to: pairs.count, by: 2) {
            let (location, length) = (pairs[i], pairs[i + 1])
            let (upper, overflow) = location.addingReportingOverflow(length)
            guard !overflow, length > 0, location >= end else {
                throw invalid("NSIndexSet range \(i / 2) (location \(location), length \(length)) is empty, past Int.max or out of order")
            }
            ranges.append(location..<upper)
            end = upper
        }
        return ArchivedIndexSet(ranges: ranges)
    }
}

extension KeyedArchiver {
    /// An `NSIndexSet` object, with Apple's keys.
    func indexSetObject(_ set: ArchivedIndexSet) -> Int32 {
        withObjectFrame(classUID: { classObject(.indexSet) }) { indexSetFields(set) }
    }

    /// The fields of an `NSIndexSet` or `NSMutableIndexSet` in the current frame.
    func indexSetFields(_ set: ArchivedIndexSet) {
        let ranges = set.ranges
        addField(keyNode("NSRangeCount"), state.pointee.builder.integer(Int64(ranges.count)))
        if ranges.count == 1 {
            addField(keyNode("NSLocation"), state.pointee.builder.integer(Int64(ranges[0].lowerBound)))
            addField(keyNode("NSLength"), state.pointee.builder.integer(Int64(ranges[0].count)))
        } else if ranges.count > 1 {
            let packed = PackedIntegers.write(ranges.flatMap { [$0.lowerBound, $0.count] })
            addField(keyNode("NSRangeData"), state.pointee.builder.uid(Int(dataObject(Data(packed)))))
        }
    }
}
