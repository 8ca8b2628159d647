/// `NSAttributedString` and `NSMutableAttributedString`, as `ArchivedAttributedString`: in keyed archives
/// `NSString`, `NSAttributes` and `NSAttributeInfo`, in typedstreams (version 0) the string and one `iI`
/// group per run.
///
/// Their coding is still the codecs' own (`KeyedArchive/Builtins/NSAttributedString.swift`,
/// `TypedStream/Foundation/NSAttributedString.swift`).
///
/// Mirrors `NSAttributedString` / `NSMutableAttributedString` (`NSConcreteAttributedString`,
/// `NSConcreteMutableAttributedString`).
package enum NSAttributedStringClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.attributedString, "NSAttributedString", privateNames: ["NSConcreteAttributedString"],
                            typedStreamVersions: [0, 0], valueType: ArchivedAttributedString.self, kind: nil),
        FoundationClassInfo(.mutableAttributedString, "NSMutableAttributedString",
                            superclasses: ["NSAttributedString", "NSObject"],
                            privateNames: ["NSConcreteMutableAttributedString"], typedStreamVersions: [0, 0, 0],
                            mutable: true, valueType: ArchivedAttributedString.self, kind: nil),
    ]
}
