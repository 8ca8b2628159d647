#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSAttributedString` / `NSMutableAttributedString` in keyed archives, as `ArchivedAttributedString`.
extension KeyedUnarchiver {
    /// An `NSAttributedString` or `NSMutableAttributedString` object.
    func decodeNSAttributedString(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        func attributes(_ value: Any, _ what: String) throws -> [String: Any] {
            guard let d = ArchivedMutableObject.plain(value) as? [AnyHashable: Any] else { throw invalid("\(what) is not a dictionary") }
            var result: [String: Any] = [:]
            result.reserveCapacity(d.count)
            for (k, v) in d {
                guard let name = ArchivedMutableObject.plain(k.base) as? String else {
                    throw invalid("\(what) has a key that is not a string")
                }
                result[name] = v
            }
            return result
        }
        let string = try requiredField("NSString", as: String.self, of: "NSAttributedString", uid: uid)
        let length = string.utf16.count
        let stored = try rawField("NSAttributes").map { try plainValue($0, key: "NSAttributes") } ?? nil
        guard let info = try rawField("NSAttributeInfo") else {
            // One run over the whole string, or none.
            guard length > 0 else { return ArchivedAttributedString(string, runs: []) }
            let whole = try stored.map { try attributes($0, "NSAttributes") } ?? [:]
            return ArchivedAttributedString(string, runs: [.init(range: 0..<length, attributes: whole)])
        }
        guard let data = try plainValue(info, key: "NSAttributeInfo") as? Data else { throw invalid("NSAttributeInfo is not data") }
        guard let table = stored as? [Any] else { throw invalid("NSAttributes is not an array while NSAttributeInfo is given") }
        let pairs: [Int]
        switch PackedIntegers.read([UInt8](data)) {
        case .success(let values): pairs = values
        case .failure(let failure): throw invalid("NSAttributeInfo is cut off or too large at byte \(failure.offset)")
        }
        guard pairs.count % 2 == 0 else { throw invalid("NSAttributeInfo holds \(pairs.count) integers, not pairs") }
        var dictionaries: [[String: Any]?] = Array(repeating: nil, count: table.count)
        var runs: [ArchivedAttributedString.Run] = []
        runs.reserveCapacity(pairs.count / 2)
        var location = 0
        for i in stride(from: 0, to: pairs.count, by: 2) {
            let (runLength, index) = (pairs[i], pairs[i + 1])
            guard runLength > 0, runLength <= length - location else {
                throw invalid("NSAttributeInfo run \(i / 2) of length \(runLength) at \(location) does not fit a string of \(length) UTF-16 units")
            }
            guard index < table.count else {
                throw invalid("NSAttributeInfo run \(i / 2) names attributes \(index) of \(table.count)")
            }
            let dictionary = try dictionaries[index] ?? attributes(table[index], "NSAttributes.\(index)")
            dictionaries[index] = dictionary
            runs.append(.init(range: location..<location + runLength, attributes: dictionary))
            location += runLength
        }
        guard location == length else {
            throw invalid("NSAttributeInfo runs cover \(location) of \(length) UTF-16 units")
        }
        return ArchivedAttributedString(string, runs: runs)
    }
}

extension KeyedArchiver {
    /// An `NSAttributedString` object, as Apple writes it: one dictionary for a single run over the whole
    /// string, else an array of dictionaries (one a run, in order) and the runs' lengths and indexes.
    func attributedStringObject(_ value: ArchivedAttributedString) -> Int32 {
        withObjectFrame(classUID: { classObject(.attributedString) }) {
            attributedStringFields(value) { stringObject(value.string) }
        }
    }

    /// The fields of an `NSAttributedString` or `NSMutableAttributedString` in the current frame, its string
    /// the object `string` encodes.
    func attributedStringFields(_ value: ArchivedAttributedString, string: () -> Int32) {
        addField(keyNode("NSString"), state.pointee.builder.uid(Int(string())))
        let length = value.string.utf16.count
        if value.runs.count == 1, value.runs[0].range == 0..<length {
            addField(keyNode("NSAttributes"), state.pointee.builder.uid(Int(archiveObject(value.runs[0].attributes))))
        } else if !value.runs.isEmpty {
            let table: [Any] = value.runs.map { $0.attributes }
            addField(keyNode("NSAttributes"), state.pointee.builder.uid(Int(archiveObject(table))))
            let packed = PackedIntegers.write(value.runs.enumerated().flatMap { [$0.element.range.count, $0.offset] })
            addField(keyNode("NSAttributeInfo"), state.pointee.builder.uid(Int(dataObject(Data(packed)))))
        }
    }
}
