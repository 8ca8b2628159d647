/// The keyed archiver's writing of `NSDictionary` and `NSMutableDictionary` (`NS.keys`, `NS.objects`), of
/// Swift dictionaries held in an `Any`. The class's names, its reading and its typedstream coding are in its
/// ArchiveModel file (`Foundation/Classes/NSDictionary.swift`).
extension KeyedArchiver {
    /// An `NSDictionary` of strings, keys in ascending order (as ``deterministicOrder(_:_:)`` orders strings).
    func stringDictionaryObject(_ dictionary: [String: String]) -> Int32 {
        let entries = dictionary.sorted { $0.key < $1.key }
        return withObjectFrame(classUID: { classObject(.dictionary) }) {
            var refs: [Int32] = []
            refs.reserveCapacity(entries.count)
            for entry in entries { refs.append(state.pointee.builder.uid(Int(stringObject(entry.key)))) }
            let keys = state.pointee.builder.collection(.array, refs)
            refs.removeAll(keepingCapacity: true)
            for entry in entries { refs.append(state.pointee.builder.uid(Int(stringObject(entry.value)))) }
            let values = state.pointee.builder.collection(.array, refs)
            addField(knownKeyNode(.keys), keys)
            addField(knownKeyNode(.objects), values)
        }
    }

    /// An `NSDictionary` of a dictionary held in an `Any`, keys in ``deterministicOrder(_:_:)``.
    func encodableDictionaryObject(_ dictionary: any ArchiveEncodableDictionary) -> Int32 {
        withObjectFrame(classUID: { classObject(.dictionary) }) { dictionaryFields(dictionary) }
    }

    /// The fields of an `NSDictionary` or `NSMutableDictionary` in the current frame, keys in
    /// ``deterministicOrder(_:_:)``.
    func dictionaryFields(_ dictionary: any ArchiveEncodableDictionary) {
        let entries = dictionary.archiveEntries.sorted(by: deterministicEntryOrder)
        let keys = uidArray(entries.map { $0.key.base })
        let values = uidArray(entries.map { $0.value })
        addField(keyNode("NS.keys"), keys)
        addField(keyNode("NS.objects"), values)
    }

    /// An `NSDictionary` whose keys and values are already in their order.
    func orderedPairsObject(_ pairs: OrderedArchiveDictionary) -> Int32 {
        withObjectFrame(classUID: { classObject(.dictionary) }) {
            let keys = uidArray(pairs.keys)
            let values = uidArray(pairs.values)
            addField(keyNode("NS.keys"), keys)
            addField(keyNode("NS.objects"), values)
        }
    }
}
