import ArchiveModel

/// `NSSet` / `NSMutableSet` (version 0): an `I` count, then one `@` group per member, as `Set<AnyHashable>`.
extension TypedStreamUnarchiver {
    func decodeNSSet() throws -> Set<AnyHashable> {
        let count = try decodeCount(.unsignedInt, of: "an NSSet")
        var members = Set<AnyHashable>(minimumCapacity: count)
        for i in 0..<count {
            let start = scanner.position
            guard let member = try decodeObject() as? AnyHashable else {
                throw error(.invalidValue, "member \(i) of an NSSet is nil or not hashable", at: start)
            }
            members.insert(member)
        }
        return members
    }
}

extension TypedStreamArchiver {
    /// Members in `deterministicOrder(_:_:)`, so one set always writes the same bytes.
    func writeNSSet(_ members: Set<AnyHashable>, as foundation: StandardClass = .set, identity: AnyObject? = nil) {
        writeNewObject(foundation, identity: identity) {
            writeGroupHeader("I")
            writer.unsigned(UInt64(members.count))
            for m in members.sorted(by: deterministicOrder) { encodeObject(m.base) }
        }
    }
}
