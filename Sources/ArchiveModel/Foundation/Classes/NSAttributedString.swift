#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSAttributedString` and `NSMutableAttributedString`, as `ArchivedAttributedString` with exact ranges.
///
/// In keyed archives: `NSString`, then one attribute dictionary in `NSAttributes` for a single run over the
/// whole string, or an array of dictionaries there and each run's length and dictionary index as packed
/// integers in the data of `NSAttributeInfo`.
///
/// In typedstreams (version 0): the string as a `@` group, then one `iI` group per run, to the end of the
/// object: the run's attribute dictionary (1 for the first, and a number one past the last seen introduces a
/// new dictionary, which follows as a `@` group; a smaller one names a dictionary seen before) and its length
/// in UTF-16 units. Attribute values are whatever the objects decode to (Messages'
/// `__kIMMessagePartAttributeName` an `Int`, `__kIMFileTransferGUIDAttributeName` a `String`).
///
/// Mirrors `NSAttributedString` / `NSMutableAttributedString` (`NSConcreteAttributedString`,
/// `NSConcreteMutableAttributedString`) and their `encode(with:)` / `init(coder:)`.
package enum NSAttributedStringClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.attributedString, "NSAttributedString", privateNames: ["NSConcreteAttributedString"],
                            typedStreamVersions: [0, 0], valueType: ArchivedAttributedString.self, kind: nil),
        FoundationClassInfo(.mutableAttributedString, "NSMutableAttributedString",
                            superclasses: ["NSAttributedString", "NSObject"],
                            privateNames: ["NSConcreteMutableAttributedString"], typedStreamVersions: [0, 0, 0],
                            mutable: true, valueType: ArchivedAttributedString.self, kind: nil),
    ]

    // MARK: Keyed archives

    /// An `NSAttributedString` or `NSMutableAttributedString` object.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        func attributes(_ value: Any, _ what: String) throws -> [String: Any] {
            guard let d = ArchivedMutableObject.plain(value) as? [AnyHashable: Any] else { throw r.invalidValue("\(what) is not a dictionary") }
            var result: [String: Any] = [:]
            result.reserveCapacity(d.count)
            for (k, v) in d {
                guard let name = ArchivedMutableObject.plain(k.base) as? String else {
                    throw r.invalidValue("\(what) has a key that is not a string")
                }
                result[name] = v
            }
            return result
        }
        let string = try r.requiredField("NSString", as: String.self, of: "NSAttributedString")
        let length = string.utf16.count
        let stored = try r.rawField("NSAttributes").map { try r.plainValue($0, key: "NSAttributes") } ?? nil
        guard let info = try r.rawField("NSAttributeInfo") else {
            // One run over the whole string, or none.
            guard length > 0 else { return ArchivedAttributedString(string, runs: []) }
            let whole = try stored.map { try attributes($0, "NSAttributes") } ?? [:]
            return ArchivedAttributedString(string, runs: [.init(range: 0..<length, attributes: whole)])
        }
        guard let data = try r.plainValue(info, key: "NSAttributeInfo") as? Data else { throw r.invalidValue("NSAttributeInfo is not data") }
        guard let table = stored as? [Any] else { throw r.invalidValue("NSAttributes is not an array while NSAttributeInfo is given") }
        let pairs: [Int]
        switch PackedIntegers.read([UInt8](data)) {
        case .success(let values): pairs = values
        case .failure(let failure): throw r.invalidValue("NSAttributeInfo is cut off or too large at byte \(failure.offset)")
        }
        guard pairs.count % 2 == 0 else { throw r.invalidValue("NSAttributeInfo holds \(pairs.count) integers, not pairs") }
        var dictionaries: [[String: Any]?] = Array(repeating: nil, count: table.count)
        var runs: [ArchivedAttributedString.Run] = []
        runs.reserveCapacity(pairs.count / 2)
        var location = 0
        for i in stride(from: 0, to: pairs.count, by: 2) {
            let (runLength, index) = (pairs[i], pairs[i + 1])
            guard runLength > 0, runLength <= length - location else {
                throw r.invalidValue("NSAttributeInfo run \(i / 2) of length \(runLength) at \(location) does not fit a string of \(length) UTF-16 units")
            }
            guard index < table.count else {
                throw r.invalidValue("NSAttributeInfo run \(i / 2) names attributes \(index) of \(table.count)")
            }
            let dictionary = try dictionaries[index] ?? attributes(table[index], "NSAttributes.\(index)")
            dictionaries[index] = dictionary
            runs.append(.init(range: location..<location + runLength, attributes: dictionary))
            location += runLength
        }
        guard location == length else {
            throw r.invalidValue("NSAttributeInfo runs cover \(location) of \(length) UTF-16 units")
        }
        return ArchivedAttributedString(string, runs: runs)
    }

    /// An `NSAttributedString` object, as Apple writes it.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed value: ArchivedAttributedString, to w: W) -> Int32 {
        w.writeObject(of: .attributedString) { encodeFields(keyed: value, mutable: false, to: w) }
    }

    /// The fields of an `NSAttributedString` or (`mutable`) `NSMutableAttributedString` in the current object:
    /// one dictionary for a single run over the whole string, else an array of dictionaries (one a run, in
    /// order) and the runs' lengths and indexes. Apple's mutable attributed string holds a mutable string.
    @inlinable
    package static func encodeFields<W: KeyedFieldWriter>(keyed value: ArchivedAttributedString, mutable: Bool, to w: W) {
        if mutable {
            w.setMutableObject(className: "NSMutableString", value: value.string, forRawKey: "NSString")
        } else {
            w.setString(value.string, forRawKey: "NSString")
        }
        let length = value.string.utf16.count
        if value.runs.count == 1, value.runs[0].range == 0..<length {
            w.setObject(value.runs[0].attributes, forRawKey: "NSAttributes")
        } else if !value.runs.isEmpty {
            let table: [Any] = value.runs.map { $0.attributes }
            w.setObject(table, forRawKey: "NSAttributes")
            let packed = PackedIntegers.write(value.runs.enumerated().flatMap { [$0.element.range.count, $0.offset] })
            w.setDataObject(Data(packed), forRawKey: "NSAttributeInfo")
        }
    }

    // MARK: Typedstreams

    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let stringStart = r.streamOffset
        guard let string = try r.decodePlainObject() as? String else {
            throw r.invalidValue("an NSAttributedString without its string", at: stringStart)
        }
        let length = string.utf16.count
        var dictionaries: [[String: Any]] = []
        var runs: [ArchivedAttributedString.Run] = []
        var location = 0
        while !(try r.atEndOfObject()) {
            let start = r.streamOffset
            let values = try r.decodeIntegers(encoding: "iI")
            let (number, runLength) = (values[0], values[1])
            guard let n = number.intValue, n >= 1, n <= dictionaries.count + 1 else {
                throw r.invalidValue("run \(runs.count) names attributes \(number) of \(dictionaries.count) seen", at: start)
            }
            guard let l = runLength.intValue, l > 0, l <= length - location else {
                throw r.invalidValue("run \(runs.count) of length \(runLength) at \(location) does not fit a string of \(length) UTF-16 units", at: start)
            }
            if n == dictionaries.count + 1 {
                let dictionaryStart = r.streamOffset
                guard let d = try r.decodePlainObject() as? [AnyHashable: Any] else {
                    throw r.invalidValue("the attributes of run \(runs.count) are not a dictionary", at: dictionaryStart)
                }
                var attributes: [String: Any] = [:]
                attributes.reserveCapacity(d.count)
                for (k, v) in d {
                    guard let name = ArchivedMutableObject.plain(k.base) as? String else {
                        throw r.invalidValue("the attributes of run \(runs.count) have a key that is not a string", at: dictionaryStart)
                    }
                    attributes[name] = v
                }
                dictionaries.append(attributes)
            }
            runs.append(.init(range: location..<location + l, attributes: dictionaries[n - 1]))
            location += l
        }
        guard location == length else {
            throw r.invalidValue("the runs cover \(location) of \(length) UTF-16 units", at: nil)
        }
        return ArchivedAttributedString(string, runs: runs)
    }

    /// An object of `standard` (`NSAttributedString` or `NSMutableAttributedString`), numbered for `identity`
    /// when given: the string, then one run a dictionary, each run's attributes written as a new dictionary.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream value: ArchivedAttributedString, as standard: StandardClass,
                                                     identity: AnyObject?, to w: W) {
        w.writeObject(of: standard, identity: identity) {
            if standard == .mutableAttributedString {
                // Apple's mutable attributed string holds a mutable string.
                w.encodeString(value.string, as: .mutableString)
            } else {
                w.encodeObject(value.string)
            }
            for (i, run) in value.runs.enumerated() {
                w.writeGroup(encoding: "iI")
                w.writeRawSigned(Int64(i + 1))
                w.writeRawUnsigned(UInt64(run.range.count))
                w.encodeObject(run.attributes)
            }
        }
    }
}
