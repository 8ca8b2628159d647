import ArchiveModel

/// `NSDictionary` / `NSMutableDictionary` (version 0): an `i` count, then per entry a `@` group for the key
/// and one for the value, as `[AnyHashable: Any]`.
extension TypedStreamUnarchiver {
    func decodeNSDictionary() throws -> [AnyHashable: Any] {
        let count = try decodeCount(.int, of: "an NSDictionary")
        var entries: [AnyHashable: Any] = [:]
        entries.reserveCapacity(count)
        for i in 0..<count {
            let start = scanner.position
            guard let key = try decodeObject() as? AnyHashable else {
                throw error(.invalidValue, "key \(i) of an NSDictionary is nil or not hashable", at: start)
            }
            let valueStart = scanner.position
            guard let value = try decodeObject() else {
                throw error(.invalidValue, "the value of key \(i) of an NSDictionary is nil", at: valueStart)
            }
            entries[key] = value
        }
        return entries
    }
}

extension TypedStreamArchiver {
    /// Entries in `deterministicEntryOrder(_:_:)`, so one dictionary always writes the same bytes.
    func writeNSDictionary(_ entries: [(key: AnyHashable, value: Any)], as foundation: StandardClass = .dictionary, identity: AnyObject? = nil) {
        writeNewObject(foundation, identity: identity) {
            writeGroupHeader("i")
            writer.signed(Int64(entries.count))
            for (k, v) in entries.sorted(by: deterministicEntryOrder) {
                encodeObject(k.base)
                encodeObject(v)
            }
        }
    }
}
