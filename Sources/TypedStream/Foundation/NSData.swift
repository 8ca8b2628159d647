import ArchiveModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSData` / `NSMutableData` (version 0): an `i` length and a `[Nc]` array of the bytes, as `Data`.
extension TypedStreamUnarchiver {
    func decodeNSData() throws -> Data { Data(try readDataObject()) }
}

extension TypedStreamArchiver {
    func writeNSData(_ bytes: [UInt8], as foundation: StandardClass = .data, identity: AnyObject? = nil) {
        writeNewObject(foundation, identity: identity) { writeDataObject(bytes) }
    }

    /// An `i` length and a `[Nc]` array: `encodeDataObject(_:)`'s format.
    func writeDataObject(_ bytes: [UInt8]) {
        writeGroupHeader("i")
        writer.signed(Int64(bytes.count))
        writeGroupHeader("[\(bytes.count)c]")
        writer.raw(bytes)
    }
}
