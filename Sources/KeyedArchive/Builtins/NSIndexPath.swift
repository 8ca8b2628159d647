#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSIndexPath`, as `IndexPath`: `NSIndexPathLength`, then the one index in `NSIndexPathValue`, or, for
/// more, the indexes as packed integers in the data of `NSIndexPathData` (an `NSMutableData`, as Apple writes
/// it).
extension KeyedUnarchiver {
    /// An `NSIndexPath` object.
    func decodeNSIndexPath(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        guard case .integer(let storedLength)? = try rawField("NSIndexPathLength"), let length = storedLength.intValue,
              length >= 0 else {
            throw invalid("NSIndexPath without an NSIndexPathLength of zero or more")
        }
        switch length {
        case 0:
            return IndexPath()
        case 1:
            guard case .integer(let value)? = try rawField("NSIndexPathValue"), let index = value.intValue, index >= 0 else {
                throw invalid("NSIndexPath of length 1 without an NSIndexPathValue of zero or more")
            }
            return IndexPath(index: index)
        default:
            guard let v = try rawField("NSIndexPathData"), let data = try plainValue(v, key: "NSIndexPathData") as? Data else {
                throw invalid("NSIndexPath of length \(length) without NSIndexPathData")
            }
            let indexes: [Int]
            switch PackedIntegers.read([UInt8](data)) {
            case .success(let values): indexes = values
            case .failure(let failure): throw invalid("NSIndexPathData is cut off or too large at byte \(failure.offset)")
            }
            guard indexes.count == length else {
                throw invalid("NSIndexPathData holds \(indexes.count) indexes where NSIndexPathLength says \(length)")
            }
            return IndexPath(indexes: indexes)
        }
    }
}

extension KeyedArchiver {
    /// An `NSIndexPath` object, with Apple's keys.
    func indexPathObject(_ path: IndexPath) -> Int32 {
        withObjectFrame(classUID: { classObject(.indexPath) }) {
            addField(keyNode("NSIndexPathLength"), state.pointee.builder.integer(Int64(path.count)))
            if path.count == 1 {
                addField(keyNode("NSIndexPathValue"), state.pointee.builder.integer(Int64(path[0])))
            } else if path.count > 1 {
                let packed = Data(PackedIntegers.write(Array(path)))
                addField(keyNode("NSIndexPathData"),
                         state.pointee.builder.uid(Int(mutableObject(ArchivedMutableObject(className: "NSMutableData", value: packed)))))
            }
        }
    }
}
