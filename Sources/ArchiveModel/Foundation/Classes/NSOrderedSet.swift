/// `NSOrderedSet` and `NSMutableOrderedSet`, as `ArchivedOrderedSet`: in keyed archives `NS.object.0`,
/// `NS.object.1`, ... No typedstream form here: no Apple typedstream of one to follow.
///
/// Mirrors `NSOrderedSet` / `NSMutableOrderedSet` and their `encode(with:)` / `init(coder:)`.
package enum NSOrderedSetClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.orderedSet, "NSOrderedSet", typedStreamVersions: nil,
                            valueType: ArchivedOrderedSet.self, kind: .orderedSet),
        FoundationClassInfo(.mutableOrderedSet, "NSMutableOrderedSet", superclasses: ["NSOrderedSet", "NSObject"],
                            typedStreamVersions: nil, mutable: true, valueType: ArchivedOrderedSet.self,
                            kind: .orderedSet),
    ]

    /// An `NSOrderedSet` or `NSMutableOrderedSet` object: `NS.object.<i>` from 0 while present.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        var items: [AnyHashable] = []
        var i = 0
        while let v = try r.rawField("NS.object.\(i)") {
            items.append(try r.hashable(try r.anyValue(v, key: "NS.object.\(i)"), key: "NS.object.\(i)"))
            i += 1
        }
        return ArchivedOrderedSet(items)
    }

    /// An `NSOrderedSet` object.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed set: ArchivedOrderedSet, to w: W) -> Int32 {
        w.writeObject(of: .orderedSet) { encodeFields(keyed: set, to: w) }
    }

    /// The fields of an `NSOrderedSet` or `NSMutableOrderedSet` in the current object.
    @inlinable
    package static func encodeFields<W: KeyedFieldWriter>(keyed set: ArchivedOrderedSet, to w: W) {
        for (i, element) in set.elements.enumerated() {
            w.setObject(element.base, forRawKey: "NS.object.\(i)")
        }
    }
}
