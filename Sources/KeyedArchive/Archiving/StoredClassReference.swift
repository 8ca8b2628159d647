/// The class instance an `Any` stores as a bare reference or inside a class-bound existential (`any Shape`,
/// `AnyObject`, `any Shape & Named`), read from its first word; `nil` for whatever else it stores (a value, an
/// opaque existential, an `any Error`, a foreign class), which the caller leaves to the runtime's cast.
///
/// An element of `[any Shape]` reaches the archiver erased into an `Any` that stores the existential itself;
/// `value as AnyObject` then asks the runtime to find the dynamic value (`findDynamicValueAndType`), about
/// 330 instructions an element (`Benchmarks/callgrind.sh` w1-encode). A class-bound existential is laid out as
/// the reference followed by its witness tables (Swift's ABI, docs/ABI/TypeLayout.rst, "Existential Container
/// Layout"), so the reference is its first word; the metadata of the stored type says which kind it is
/// (docs/ABI/TypeMetadata.rst: class metadata has kind 0, or an isa pointer above the enumerated kinds where
/// Objective-C interoperates; existential metadata has kind 0x303, then flags whose bit 31 is clear when the
/// existential is class-constrained and whose bits 24-29 name a special protocol such as `Error`). The same
/// ABI facts as ``ExistentialElementCasts``, which writes such elements on the decoding side.
///
/// `stored(_:)` sees the stored type because the package builds in the Swift 6 language mode, which opens an
/// `Any` passed to an unconstrained generic parameter (SE-0352); without that opening `Stored` would be `Any`
/// itself, whose metadata is no class or class-bound existential: the answer would always be `nil` (safe,
/// and every value would take the runtime's cast again).
@inline(__always)
func storedClassReference(in value: Any) -> AnyObject? {
    func stored<Stored>(_ stored: Stored) -> AnyObject? {
        let metadata = unsafeBitCast(Stored.self as Any.Type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        if kind != 0 && kind <= 0x7FF {
            guard kind == 0x303 else { return nil }  // MetadataKind::Existential
            let flags = metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt32.self)
            guard flags & 0x8000_0000 == 0, flags & 0x3F00_0000 == 0 else { return nil }  // class-bound, not special
        }
        guard MemoryLayout<Stored>.size >= MemoryLayout<AnyObject>.size else { return nil }
        return withUnsafeBytes(of: stored) { $0.load(as: AnyObject.self) }
    }
    return stored(value)
}
