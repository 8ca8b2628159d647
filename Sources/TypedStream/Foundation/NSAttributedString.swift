import ArchiveModel

/// `NSAttributedString` / `NSMutableAttributedString` (version 0): the string as a `@` group, then one
/// `iI` group per run, to the end of the object: the run's attribute dictionary (1 for the first, and a
/// number one past the last seen introduces a new dictionary, which follows as a `@` group; a smaller one
/// names a dictionary seen before) and its length in UTF-16 units. Decodes as `ArchivedAttributedString`
/// with exact ranges; attribute values are whatever the objects decode to (Messages'
/// `__kIMMessagePartAttributeName` an `Int`, `__kIMFileTransferGUIDAttributeName` a `String`).
extension TypedStreamUnarchiver {
    func decodeNSAttributedString() throws -> ArchivedAttributedString {
        let stringStart = scanner.position
        guard let string = try decodePlainObject() as? String else {
            throw error(.invalidValue, "an NSAttributedString without its string", at: stringStart)
        }
        let length = string.utf16.count
        var dictionaries: [[String: Any]] = []
        var runs: [ArchivedAttributedString.Run] = []
        var location = 0
        while !(try atEndOfObject()) {
            let start = scanner.position
            let types = try expectGroup([.int, .unsignedInt])
            let number = try readInteger(types[0])
            let runLength = try readInteger(types[1])
            guard let n = number.intValue, n >= 1, n <= dictionaries.count + 1 else {
                throw error(.invalidValue, "run \(runs.count) names attributes \(number) of \(dictionaries.count) seen", at: start)
            }
            guard let l = runLength.intValue, l > 0, l <= length - location else {
                throw error(.invalidValue, "run \(runs.count) of length \(runLength) at \(location) does not fit a string of \(length) UTF-16 units", at: start)
            }
            if n == dictionaries.count + 1 {
                let dictionaryStart = scanner.position
                guard let d = try decodePlainObject() as? [AnyHashable: Any] else {
                    throw error(.invalidValue, "the attributes of run \(runs.count) are not a dictionary", at: dictionaryStart)
                }
                var attributes: [String: Any] = [:]
                attributes.reserveCapacity(d.count)
                for (k, v) in d {
                    guard let name = ArchivedMutableObject.plain(k.base) as? String else {
                        throw error(.invalidValue, "the attributes of run \(runs.count) have a key that is not a string", at: dictionaryStart)
                    }
                    attributes[name] = v
                }
                dictionaries.append(attributes)
            }
            runs.append(.init(range: location..<location + l, attributes: dictionaries[n - 1]))
            location += l
        }
        guard location == length else {
            throw error(.invalidValue, "the runs cover \(location) of \(length) UTF-16 units")
        }
        return ArchivedAttributedString(string, runs: runs)
    }
}

extension TypedStreamArchiver {
    /// The string, then one run a dictionary: each run's attributes are written as a new dictionary.
    func writeNSAttributedString(_ value: ArchivedAttributedString, as foundation: StandardClass = .attributedString, identity: AnyObject? = nil) {
        writeNewObject(foundation, identity: identity) {
            if foundation == .mutableAttributedString {
                // Apple's mutable attributed string holds a mutable string.
                writeGroupHeader("@")
                writeNSString(value.string, as: .mutableString)
            } else {
                encodeObject(value.string)
            }
            for (i, run) in value.runs.enumerated() {
                writeGroupHeader("iI")
                writer.signed(Int64(i + 1))
                writer.unsigned(UInt64(run.range.count))
                encodeObject(run.attributes)
            }
        }
    }
}
