/// The keyed archiver's writing of `NSArray` and `NSMutableArray` (`NS.objects`): its typed-element path is on
/// its hot path. The class's names, its reading and its typedstream coding are in its ArchiveModel file
/// (`Foundation/Classes/NSArray.swift`).
extension KeyedArchiver {
    /// An `NSArray`. Elements of one archivable type are encoded without boxing each in `Any` and looking up
    /// its conformance; an element of another dynamic type (a subclass) takes the general path, as all do
    /// when `Element` is not archivable.
    func arrayObject<Element>(_ array: [Element]) -> Int32 {
        guard let archivable = Element.self as? any KeyedArchivable.Type else { return archiveObject(array) }
        func encodeElements<A: KeyedArchivable>(_: A.Type) -> Int32 {
            // `A` is `Element` opened: a reinterpretation, not an element-by-element `as?` copy.
            guard A.self == Element.self else { return archiveObject(array) }
            let elements = unsafeBitCast(array, to: [A].self)
            return withObjectFrame(classUID: { classObject(.array) }) {
                let key = knownKeyNode(.objects)
                var refs: [Int32] = []
                refs.reserveCapacity(elements.count)
                for element in elements {
                    let uid = type(of: element) == A.self ? encodeArchivable(element) : archiveObject(element)
                    refs.append(state.pointee.builder.uid(Int(uid)))
                }
                addField(key, state.pointee.builder.collection(.array, refs))
            }
        }
        return encodeElements(archivable)
    }

    /// An `NSArray` of an array held in an `Any`.
    func encodableArrayObject(_ array: any ArchiveEncodableArray) -> Int32 {
        withObjectFrame(classUID: { classObject(.array) }) { arrayFields(array) }
    }

    /// The fields of an `NSArray` or `NSMutableArray` in the current frame.
    func arrayFields(_ array: any ArchiveEncodableArray) {
        addField(keyNode("NS.objects"), uidArray(array))
    }
}
