#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The decoded form of `NSAttributedString` / `NSMutableAttributedString`: the string and its attribute runs.
///
/// Archived as `NSString` (the string), `NSAttributes` (one dictionary when a single run covers the string, or
/// an array of dictionaries) and `NSAttributeInfo`: data of packed integers, each run's length and the index
/// of its dictionary in `NSAttributes`. Ranges count UTF-16 code units, as `NSRange` does. Attribute values
/// are what the unarchiver gives for any object: Messages' `__kIMMessagePartAttributeName` is an integer,
/// an unknown class an ``ArchivedObject``.
///
/// Mirrors `NSAttributedString`.
public struct ArchivedAttributedString {
    /// One run: a range of the string and the attributes that hold over it.
    public struct Run {
        /// The run's range in UTF-16 code units. Mirrors the `effectiveRange` of `attributes(at:effectiveRange:)`.
        public var range: Range<Int>
        /// The attributes, by name. Mirrors `[NSAttributedString.Key: Any]`.
        public var attributes: [String: Any]

        /// A run over `range` (UTF-16 code units) with `attributes`.
        public init(range: Range<Int>, attributes: [String: Any]) {
            self.range = range
            self.attributes = attributes
        }
    }

    /// The characters. Mirrors `NSAttributedString.string`.
    public var string: String
    /// The runs, in order, together covering the string (none when it is empty).
    public var runs: [Run]

    /// An attributed string of `string` and `runs` (UTF-16 ranges that cover `string` in order).
    /// Mirrors `NSAttributedString(string:attributes:)` and `setAttributes(_:range:)`.
    public init(_ string: String, runs: [Run]) {
        self.string = string
        self.runs = runs
    }

    /// `string` with one run of `attributes` over all of it. Mirrors `NSAttributedString(string:attributes:)`.
    public init(_ string: String, attributes: [String: Any] = [:]) {
        let length = string.utf16.count
        self.init(string, runs: length == 0 ? [] : [Run(range: 0..<length, attributes: attributes)])
    }

    /// The characters of `run`. Mirrors `attributedSubstring(from:)`'s string.
    public func text(of run: Run) -> Substring {
        let utf16 = string.utf16
        let start = utf16.index(utf16.startIndex, offsetBy: run.range.lowerBound, limitedBy: utf16.endIndex) ?? utf16.endIndex
        let end = utf16.index(start, offsetBy: run.range.count, limitedBy: utf16.endIndex) ?? utf16.endIndex
        return string[start..<end]
    }
}

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
