/// `NSSet` and `NSMutableSet`, as `Set<AnyHashable>`.
///
/// In keyed archives `NS.objects`, an array of references; the keyed writing is the archiver's own
/// (`KeyedArchive/Builtins/NSSet.swift`: it walks Swift sets held in an `Any` on its hot path). In
/// typedstreams (version 0): an `I` count, then one `@` group per member.
///
/// Mirrors `NSSet` / `NSMutableSet` and their `encode(with:)` / `init(coder:)`.
package enum NSSetClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.set, "NSSet", typedStreamVersions: [0, 0], valueType: Set<AnyHashable>.self, kind: .set),
        FoundationClassInfo(.mutableSet, "NSMutableSet", superclasses: ["NSSet", "NSObject"],
                            typedStreamVersions: [0, 0, 0], mutable: true, valueType: Set<AnyHashable>.self, kind: .set),
    ]

    /// An `NSSet` or `NSMutableSet` object: its `NS.objects`.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        Set(try r.elements("NS.objects").map { try r.hashable($0, key: "NS.objects") })
    }

    /// The count, then the members, none nil.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let count = try r.decodeCount(encoding: "I", of: "an NSSet")
        var members = Set<AnyHashable>(minimumCapacity: count)
        for i in 0..<count {
            let start = r.streamOffset
            guard let member = try r.decodeObject() as? AnyHashable else {
                throw r.invalidValue("member \(i) of an NSSet is nil or not hashable", at: start)
            }
            members.insert(member)
        }
        return members
    }

    /// An object of `standard` (`NSSet` or `NSMutableSet`), numbered for `identity` when given; members in
    /// `deterministicOrder(_:_:)`, so one set always writes the same bytes.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream members: Set<AnyHashable>, as standard: StandardClass = .set,
                                                     identity: AnyObject? = nil, to w: W) {
        w.writeObject(of: standard, identity: identity) {
            w.writeGroup(encoding: "I")
            w.writeRawUnsigned(UInt64(members.count))
            for m in members.sorted(by: deterministicOrder) { w.encodeObject(m.base) }
        }
    }
}
