/// `NSDictionary` and `NSMutableDictionary`, as `[AnyHashable: Any]`: in keyed archives `NS.keys` and
/// `NS.objects`, in typedstreams (version 0) an `i` count and a `@` group for each key and value.
///
/// Their coding is still the codecs' own (`KeyedArchive/Builtins/NSDictionary.swift`,
/// `TypedStream/Foundation/NSDictionary.swift`).
///
/// Mirrors `NSDictionary` / `NSMutableDictionary` (`__NSDictionaryI`, `__NSDictionaryM`).
package enum NSDictionaryClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.dictionary, "NSDictionary", privateNames: ["__NSDictionaryI"],
                            typedStreamVersions: [0, 0], valueType: [AnyHashable: Any].self, kind: .dictionary),
        FoundationClassInfo(.mutableDictionary, "NSMutableDictionary", superclasses: ["NSDictionary", "NSObject"],
                            privateNames: ["__NSDictionaryM"], typedStreamVersions: [0, 0, 0], mutable: true,
                            valueType: [AnyHashable: Any].self, kind: .dictionary),
    ]
}
