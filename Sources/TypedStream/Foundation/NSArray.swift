import ArchiveModel
/// `NSArray` / `NSMutableArray` (version 0): an `i` count, then one `@` group per element, as `[Any]`.
extension TypedStreamUnarchiver {
    func decodeNSArray() throws -> [Any] {
        let count = try decodeCount(.int, of: "an NSArray")
        var elements: [Any] = []
        elements.reserveCapacity(count)
        for i in 0..<count {
            let start = scanner.position
            guard let element = try decodeObject() else {
                throw error(.invalidValue, "element \(i) of an NSArray is nil", at: start)
            }
            elements.append(element)
        }
        return elements
    }
}

extension TypedStreamArchiver {
    func writeNSArray(_ elements: [Any], as foundation: StandardClass = .array, identity: AnyObject? = nil) {
        writeNewObject(foundation, identity: identity) {
            writeGroupHeader("i")
            writer.signed(Int64(elements.count))
            for e in elements { encodeObject(e) }
        }
    }
}
