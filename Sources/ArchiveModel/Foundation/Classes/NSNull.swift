/// `NSNull`, as `ArchivedNull` (distinct from `$null`, a missing value): no fields in keyed archives, no
/// values in typedstreams (version 0).
///
/// Mirrors `NSNull` (one instance, `NSNull()`).
package enum NSNullClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.null, "NSNull", typedStreamVersions: [0, 0], valueType: ArchivedNull.self, kind: .null),
    ]

    /// An `NSNull` object.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any { ArchivedNull() }

    /// The archive's one `NSNull` object.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed null: ArchivedNull, to w: W) -> Int32 {
        w.writeSingleObject(of: .null)
    }

    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any { ArchivedNull() }

    @inlinable
    package static func encode<W: StreamFieldWriter>(stream null: ArchivedNull, to w: W) {
        w.writeObject(of: .null, identity: nil) {}
    }
}
