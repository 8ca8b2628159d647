/// `NSDictionary` and `NSMutableDictionary` (`NS.keys`, `NS.objects`), as `[AnyHashable: Any]`.
extension KeyedUnarchiver {
    /// An `NSDictionary` or `NSMutableDictionary` object: `NS.keys` and `NS.objects`, pair by pair.
    func decodeNSDictionary(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        let keys = try elements("NS.keys")
        let values = try elements("NS.objects")
        guard keys.count == values.count else {
            throw invalid("NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
        }
        var result: [AnyHashable: Any] = [:]
        result.reserveCapacity(keys.count)
        for (k, v) in zip(keys, values) { result[try hashable(k, key: "NS.keys")] = v }
        return result
    }
}

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
