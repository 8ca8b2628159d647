/// `NSArray` and `NSMutableArray`, as `[Any]`.
///
/// In keyed archives `NS.objects`, an array of references; the keyed writing is the archiver's own
/// (`KeyedArchive/Builtins/NSArray.swift`: its typed-element path is on its hot path). In typedstreams
/// (version 0): an `i` count, then one `@` group per element.
///
/// Mirrors `NSArray` / `NSMutableArray` (`__NSArrayI`, `__NSArrayM`) and their `encode(with:)` /
/// `init(coder:)`.
package enum NSArrayClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.array, "NSArray", privateNames: ["__NSArrayI"], typedStreamVersions: [0, 0],
                            valueType: [Any].self, kind: .array),
        FoundationClassInfo(.mutableArray, "NSMutableArray", superclasses: ["NSArray", "NSObject"],
                            privateNames: ["__NSArrayM"], typedStreamVersions: [0, 0, 0], mutable: true,
                            valueType: [Any].self, kind: .array),
    ]

    /// An `NSArray` or `NSMutableArray` object: its `NS.objects`.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        try r.elements("NS.objects")
    }

    /// The count, then the elements, none nil.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let count = try r.decodeCount(encoding: "i", of: "an NSArray")
        var elements: [Any] = []
        elements.reserveCapacity(count)
        for i in 0..<count {
            let start = r.streamOffset
            guard let element = try r.decodeObject() else {
                throw r.invalidValue("element \(i) of an NSArray is nil", at: start)
            }
            elements.append(element)
        }
        return elements
    }

    /// An object of `standard` (`NSArray` or `NSMutableArray`), numbered for `identity` when given.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream elements: [Any], as standard: StandardClass = .array,
                                                     identity: AnyObject? = nil, to w: W) {
        w.writeObject(of: standard, identity: identity) {
            w.writeGroup(encoding: "i")
            w.writeRawSigned(Int64(elements.count))
            for e in elements { w.encodeObject(e) }
        }
    }
}
