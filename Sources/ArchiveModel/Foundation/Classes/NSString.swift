/// `NSString` and `NSMutableString`, as Swift `String`: in keyed archives a bare string (`NS.string` in
/// an object of the mutable class), in typedstreams (version 1) one `+` group of the characters in UTF-8.
///
/// Their coding is still the codecs' own, on their hot paths (`KeyedArchive/Builtins/NSString.swift`,
/// `TypedStream/Foundation/NSString.swift`).
///
/// Mirrors `NSString` / `NSMutableString` (`__NSCFString`, `__NSCFConstantString`).
package enum NSStringClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.string, "NSString", privateNames: ["__NSCFString", "__NSCFConstantString"],
                            typedStreamVersions: [1, 0], valueType: String.self, kind: .string),
        FoundationClassInfo(.mutableString, "NSMutableString", superclasses: ["NSString", "NSObject"],
                            typedStreamVersions: [1, 1, 0], mutable: true, valueType: String.self, kind: .string),
    ]
}
