#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSIndexPath`, as `IndexPath`: in keyed archives `NSIndexPathLength`, then the one index in
/// `NSIndexPathValue`, or, for more, the indexes as packed integers in the data of `NSIndexPathData` (an
/// `NSMutableData`, as Apple writes it). No typedstream form here: no Apple typedstream of one to follow.
///
/// Mirrors `NSIndexPath` and its `encode(with:)` / `init(coder:)`.
package enum NSIndexPathClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.indexPath, "NSIndexPath", typedStreamVersions: nil, valueType: IndexPath.self, kind: nil),
    ]

    /// An `NSIndexPath` object.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        guard case .integer(let storedLength)? = try r.rawField("NSIndexPathLength"), let length = storedLength.intValue,
              length >= 0 else {
            throw r.invalidValue("NSIndexPath without an NSIndexPathLength of zero or more")
        }
        switch length {
        case 0:
            return IndexPath()
        case 1:
            guard case .integer(let value)? = try r.rawField("NSIndexPathValue"), let index = value.intValue, index >= 0 else {
                throw r.invalidValue("NSIndexPath of length 1 without an NSIndexPathValue of zero or more")
            }
            return IndexPath(index: index)
        default:
            guard let v = try r.rawField("NSIndexPathData"), let data = try r.plainValue(v, key: "NSIndexPathData") as? Data else {
                throw r.invalidValue("NSIndexPath of length \(length) without NSIndexPathData")
            }
            let indexes: [Int]
            switch PackedIntegers.read([UInt8](data)) {
            case .success(let values): indexes = values
            case .failure(let failure): throw r.invalidValue("NSIndexPathData is cut off or too large at byte \(failure.offset)")
            }
            guard indexes.count == length else {
                throw r.invalidValue("NSIndexPathData holds \(indexes.count) indexes where NSIndexPathLength says \(length)")
            }
            return IndexPath(indexes: indexes)
        }
    }

    /// An `NSIndexPath` object, with Apple's keys.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed path: IndexPath, to w: W) -> Int32 {
        w.writeObject(of: .indexPath) {
            w.setInteger(Int64(path.count), forRawKey: "NSIndexPathLength")
            if path.count == 1 {
                w.setInteger(Int64(path[0]), forRawKey: "NSIndexPathValue")
            } else if path.count > 1 {
                let packed = Data(PackedIntegers.write(Array(path)))
                w.setMutableObject(className: "NSMutableData", value: packed, forRawKey: "NSIndexPathData")
            }
        }
    }
}
