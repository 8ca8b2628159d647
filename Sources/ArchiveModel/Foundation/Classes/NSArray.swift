/// `NSArray` and `NSMutableArray`, as `[Any]`: in keyed archives `NS.objects`, in typedstreams (version 0)
/// an `i` count and one `@` group per element.
///
/// Their coding is still the codecs' own, on their hot paths (`KeyedArchive/Builtins/NSArray.swift`,
/// `TypedStream/Foundation/NSArray.swift`).
///
/// Mirrors `NSArray` / `NSMutableArray` (`__NSArrayI`, `__NSArrayM`).
package enum NSArrayClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.array, "NSArray", privateNames: ["__NSArrayI"], typedStreamVersions: [0, 0],
                            valueType: [Any].self, kind: .array),
        FoundationClassInfo(.mutableArray, "NSMutableArray", superclasses: ["NSArray", "NSObject"],
                            privateNames: ["__NSArrayM"], typedStreamVersions: [0, 0, 0], mutable: true,
                            valueType: [Any].self, kind: .array),
    ]
}
