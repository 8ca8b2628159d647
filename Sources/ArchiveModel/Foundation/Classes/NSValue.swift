/// `NSValue`, as `ArchivedValue` for points, sizes, rects, ranges and edge insets (any other kept whole as
/// an `ArchivedObject`): in keyed archives by `NS.special`, in typedstreams (version 0) a `*` group with the
/// type encoding and a group of that type.
///
/// Its coding is still the codecs' own (`KeyedArchive/Builtins/NSValue.swift`,
/// `TypedStream/Foundation/NSValue.swift`: the typedstream side parses type encodings).
///
/// Mirrors `NSValue`.
package enum NSValueClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.value, "NSValue", typedStreamVersions: [0, 0], valueType: ArchivedValue.self, kind: nil),
    ]
}
