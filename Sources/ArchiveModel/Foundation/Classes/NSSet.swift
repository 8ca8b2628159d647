/// `NSSet` and `NSMutableSet`, as `Set<AnyHashable>`: in keyed archives `NS.objects`, in typedstreams
/// (version 0) an `I` count and one `@` group per member.
///
/// Their coding is still the codecs' own (`KeyedArchive/Builtins/NSSet.swift`,
/// `TypedStream/Foundation/NSSet.swift`).
///
/// Mirrors `NSSet` / `NSMutableSet`.
package enum NSSetClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.set, "NSSet", typedStreamVersions: [0, 0], valueType: Set<AnyHashable>.self, kind: .set),
        FoundationClassInfo(.mutableSet, "NSMutableSet", superclasses: ["NSSet", "NSObject"],
                            typedStreamVersions: [0, 0, 0], mutable: true, valueType: Set<AnyHashable>.self, kind: .set),
    ]
}
