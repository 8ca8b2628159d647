/// `NSNumber`: integers, reals and booleans, as `Int`, `Double` and `Bool`: in keyed archives bare plist
/// numbers, in typedstreams (version 0, a subclass of `NSValue`) a `*` group with the type encoding and a
/// group of that type.
///
/// Its coding is still the codecs' own (`KeyedArchive/Builtins/NSNumber.swift`,
/// `TypedStream/Foundation/NSNumber.swift`).
///
/// Mirrors `NSNumber` (`__NSCFNumber`, `__NSCFBoolean`).
package enum NSNumberClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.number, "NSNumber", superclasses: ["NSValue", "NSObject"],
                            privateNames: ["__NSCFNumber", "__NSCFBoolean"], typedStreamVersions: [0, 0, 0],
                            valueType: Int.self, kind: nil),
    ]
}
