#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSData` and `NSMutableData`, as `Data`: in keyed archives bare data (`NS.data` in an object of the
/// mutable class), in typedstreams (version 0) an `i` length and a `[Nc]` array of the bytes.
///
/// Their coding is still the codecs' own (`KeyedArchive/Builtins/NSData.swift`,
/// `TypedStream/Foundation/NSData.swift`).
///
/// Mirrors `NSData` / `NSMutableData` (`__NSCFData`).
package enum NSDataClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.data, "NSData", privateNames: ["__NSCFData"], typedStreamVersions: [0, 0],
                            valueType: Data.self, kind: .data),
        FoundationClassInfo(.mutableData, "NSMutableData", superclasses: ["NSData", "NSObject"],
                            typedStreamVersions: [0, 0, 0], mutable: true, valueType: Data.self, kind: .data),
    ]
}
