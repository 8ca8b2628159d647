#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSData` and `NSMutableData`, as `Data` (`[UInt8]` is written as `NSData` too).
///
/// In keyed archives data is bare plist data (the writer's ``KeyedFieldWriter/dataObject(_:)``); an object of
/// the mutable class holds it in `NS.data`. In typedstreams (version 0): an `i` length and a `[Nc]` array of
/// the bytes, `NSCoder.encodeDataObject(_:)`'s format.
///
/// Mirrors `NSData` / `NSMutableData` (`__NSCFData`) and their `encode(with:)` / `init(coder:)`.
package enum NSDataClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.data, "NSData", privateNames: ["__NSCFData"], typedStreamVersions: [0, 0],
                            valueType: Data.self, kind: .data),
        FoundationClassInfo(.mutableData, "NSMutableData", superclasses: ["NSData", "NSObject"],
                            typedStreamVersions: [0, 0, 0], mutable: true, valueType: Data.self, kind: .data),
    ]

    /// An `NSData` or `NSMutableData` object written as an object (as the mutable class is): its `NS.data`.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        try r.requiredField("NS.data", as: Data.self, of: "NSData")
    }

    /// The fields of an `NSMutableData` in the current object: the bytes inline in `NS.data`.
    @inlinable
    package static func encodeFields<W: KeyedFieldWriter>(keyed data: Data, to w: W) {
        w.setData([UInt8](data), forRawKey: "NS.data")
    }

    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        try r.decodeDataObject()
    }

    /// An object of `standard` (`NSData` or `NSMutableData`), numbered for `identity` when given.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream bytes: [UInt8], as standard: StandardClass = .data,
                                                     identity: AnyObject? = nil, to w: W) {
        w.writeObject(of: standard, identity: identity) { w.writeDataObject(bytes) }
    }
}
