#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSData` and `NSMutableData` (`NS.data`), as `Data`; `[UInt8]` is written as a bare data object too.
extension KeyedUnarchiver {
    /// An `NSData` or `NSMutableData` object: its `NS.data`.
    func decodeNSData(uid: Int) throws -> Any {
        try requiredField("NS.data", as: Data.self, of: "NSData", uid: uid)
    }
}

extension KeyedArchiver {
    func dataObject(_ d: Data) -> Int32 { bareObject(state.pointee.builder.data(d)) }
}
