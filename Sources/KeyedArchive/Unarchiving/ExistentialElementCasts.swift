/// The casts of decoded class instances to an existential element type of arrays (`any Shape`), answered by
/// the runtime once per dynamic class.
///
/// `object as? any Shape` asks the runtime for the class's conformance to `Shape` at every element (a lookup
/// in its conformance cache, most of the cost of decoding a small object). An existential holding a class
/// instance is laid out as that reference (for an opaque existential, in the first word of its inline
/// buffer, the type's metadata after it) followed by the witness tables of its protocols (Swift's ABI,
/// docs/ABI/TypeLayout.rst, "Existential Container Layout"); nothing but the reference depends on the
/// instance once the dynamic class is known. So the first element of each class is cast by the runtime and
/// its representation is kept; a later element whose dynamic class is exactly that one (the same metadata)
/// is that representation with its own reference, retained. Element types of any other kind (classes, `Any`,
/// `AnyObject`, `Error`, value types) are always cast by the runtime, and so is every element of a class
/// whose first cast failed: each element's outcome is the one `as?` gives.
///
/// Kept by the unarchiver per element type for the whole decode (``KeyedUnarchiver/elementCasts(_:)``), so
/// that every array of that type, small ones too, finds the classes learned before. Not generic, so that the
/// array loop (unspecialized in a client's module) pays no generic value operations for the lookup: one load
/// of the element from its class's words. A trivial value over raw memory (no retain or exclusivity check per
/// element), freed by ``deallocate()`` when the unarchiver goes.
struct ExistentialElementCasts {
    /// Words of an element.
    private let elementWords: Int
    /// The number of classes remembered, then per class its metadata and an element's representation (the
    /// reference word rewritten for each element, between the store and the load that copies it out).
    private let words: UnsafeMutableRawPointer
    /// Most classes remembered for the element type; elements of further classes are cast by the runtime.
    private static var classLimit: Int { 8 }
    /// Most witness tables handled (the element type's protocols); an existential of more is cast by the runtime.
    private static var tableLimit: Int { 4 }
    private static var word: Int { MemoryLayout<UnsafeRawPointer>.size }

    /// The casts to `E`, or `nil` when `E` is not an existential of one or more protocols with witness tables
    /// (its casts go to the runtime).
    static func forElements<E>(_: E.Type) -> ExistentialElementCasts? {
        guard let words = existentialWords(E.self), MemoryLayout<E>.size == words * word,
              MemoryLayout<E>.alignment == MemoryLayout<UnsafeRawPointer>.alignment
        else { return nil }
        return ExistentialElementCasts(elementWords: words)
    }

    private init(elementWords: Int) {
        self.elementWords = elementWords
        let count = 1 + Self.classLimit * (1 + elementWords)
        words = UnsafeMutableRawPointer.allocate(byteCount: count * Self.word, alignment: MemoryLayout<UnsafeRawPointer>.alignment)
        words.initializeMemory(as: UInt.self, repeating: 0, count: count)
    }

    func deallocate() { words.deallocate() }

    private var count: Int {
        get { words.load(as: Int.self) }
        nonmutating set { words.storeBytes(of: newValue, as: Int.self) }
    }

    /// The words of remembered class `i`: its metadata, then an element's representation.
    @inline(__always)
    private func entry(_ i: Int) -> UnsafeMutableRawPointer {
        words + (1 + i * (1 + elementWords)) * Self.word
    }

    /// Initializes `element` (uninitialized memory) to `value as? E`; `false`, the memory left uninitialized,
    /// where that cast is `nil`. A remembered class's element is written as raw words, its reference retained
    /// for the memory that now holds it: no generic copy, move or destroy of an `E` per element.
    @inline(__always)
    func initialize<E>(_ element: UnsafeMutablePointer<E>, to value: Any) -> Bool {
        // The instance, when `value` stores one (bare or in a class-bound existential), and its dynamic
        // class: the isa read of `type(of:)` on a reference, not the runtime's search of an `Any`'s contents.
        if let object = storedClassReference(in: value) {
            let id = ObjectIdentifier(type(of: object))
            for i in 0..<count where entry(i).load(as: ObjectIdentifier.self) == id {
                // The class's representation, its first word this element's reference, retained for the
                // memory that now holds it.
                let words = UnsafeMutableRawPointer(element)
                words.copyMemory(from: entry(i) + Self.word, byteCount: elementWords * Self.word)
                words.storeBytes(of: Unmanaged.passRetained(object).toOpaque(), as: UnsafeMutableRawPointer.self)
                return true
            }
        }
        guard let cast = value as? E else { return false }
        element.initialize(to: cast)
        if count < Self.classLimit, type(of: value) is AnyClass { remember(cast, of: value) }
        return true
    }

    /// Keeps the representation of `element`, the cast of the class instance `value`, when its first word is
    /// that instance.
    private func remember<E>(_ element: E, of value: Any) {
        var element = element
        let slot = entry(count)
        let first: UnsafeRawPointer? = withUnsafeBytes(of: &element) { raw in
            guard let base = raw.baseAddress, raw.count == elementWords * Self.word else { return nil }
            (slot + Self.word).copyMemory(from: base, byteCount: raw.count)
            return raw.load(as: UnsafeRawPointer?.self)
        }
        guard let object = Self.reference(in: value), first == object else { return }
        slot.storeBytes(of: ObjectIdentifier(type(of: value)), as: ObjectIdentifier.self)
        count += 1
    }

    /// The reference an `Any` holds when what it stores is a bare class reference (one word; `withUnsafeBytes`
    /// opens the `Any` and sees the stored value); `nil` for anything else, such as an `any Shape` that
    /// generic code erased into it.
    @inline(__always)
    private static func reference(in value: Any) -> UnsafeRawPointer? {
        withUnsafeBytes(of: value) { raw in raw.count == word ? raw.load(as: UnsafeRawPointer?.self) : nil }
    }

    /// The words of `type` when it is an existential of 1 to ``tableLimit`` protocols with witness tables
    /// and no special representation (not `Error`), else `nil`: a class-bound one is a reference and the
    /// tables, an opaque one a three-word buffer, the metadata and the tables (Swift's ABI,
    /// docs/ABI/TypeMetadata.rst, "Existential Metadata": kind 0x303, then the flags word).
    private static func existentialWords(_ type: Any.Type) -> Int? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard metadata.load(as: UInt.self) == 0x303 else { return nil }  // MetadataKind::Existential
        let flags = metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt32.self)
        let tables = Int(flags & 0x00FF_FFFF)
        guard flags & 0x3F00_0000 == 0, tables > 0, tables <= tableLimit else { return nil }  // no special protocol
        // The class-constraint bit is set when the existential is NOT class-constrained.
        return flags & 0x8000_0000 == 0 ? 1 + tables : 4 + tables
    }
}
