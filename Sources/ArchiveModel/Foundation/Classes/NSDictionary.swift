/// `NSDictionary` and `NSMutableDictionary`, as `[AnyHashable: Any]`.
///
/// In keyed archives `NS.keys` and `NS.objects`, arrays of references; the keyed writing is the archiver's own
/// (`KeyedArchive/Builtins/NSDictionary.swift`: it walks Swift dictionaries held in an `Any` on its hot path).
/// In typedstreams (version 0): an `i` count, then per entry a `@` group for the key and one for the value.
///
/// Mirrors `NSDictionary` / `NSMutableDictionary` (`__NSDictionaryI`, `__NSDictionaryM`) and their
/// `encode(with:)` / `init(coder:)`.
package enum NSDictionaryClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.dictionary, "NSDictionary", privateNames: ["__NSDictionaryI"],
                            typedStreamVersions: [0, 0], valueType: [AnyHashable: Any].self, kind: .dictionary),
        FoundationClassInfo(.mutableDictionary, "NSMutableDictionary", superclasses: ["NSDictionary", "NSObject"],
                            privateNames: ["__NSDictionaryM"], typedStreamVersions: [0, 0, 0], mutable: true,
                            valueType: [AnyHashable: Any].self, kind: .dictionary),
    ]

    /// An `NSDictionary` or `NSMutableDictionary` object: `NS.keys` and `NS.objects`, pair by pair.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        let keys = try r.elements("NS.keys")
        let values = try r.elements("NS.objects")
        guard keys.count == values.count else {
            throw r.invalidValue("NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
        }
        var result: [AnyHashable: Any] = [:]
        result.reserveCapacity(keys.count)
        for (k, v) in zip(keys, values) { result[try r.hashable(k, key: "NS.keys")] = v }
        return result
    }

    /// The count, then each key and value, none nil.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let count = try r.decodeCount(encoding: "i", of: "an NSDictionary")
        var entries: [AnyHashable: Any] = [:]
        entries.reserveCapacity(count)
        for i in 0..<count {
            let start = r.streamOffset
            guard let key = try r.decodeObject() as? AnyHashable else {
                throw r.invalidValue("key \(i) of an NSDictionary is nil or not hashable", at: start)
            }
            let valueStart = r.streamOffset
            guard let value = try r.decodeObject() else {
                throw r.invalidValue("the value of key \(i) of an NSDictionary is nil", at: valueStart)
            }
            entries[key] = value
        }
        return entries
    }

    /// An object of `standard` (`NSDictionary` or `NSMutableDictionary`), numbered for `identity` when given;
    /// entries in `deterministicEntryOrder(_:_:)`, so one dictionary always writes the same bytes.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream entries: [(key: AnyHashable, value: Any)],
                                                     as standard: StandardClass = .dictionary,
                                                     identity: AnyObject? = nil, to w: W) {
        w.writeObject(of: standard, identity: identity) {
            w.writeGroup(encoding: "i")
            w.writeRawSigned(Int64(entries.count))
            for (k, v) in entries.sorted(by: deterministicEntryOrder) {
                w.encodeObject(k.base)
                w.encodeObject(v)
            }
        }
    }
}
