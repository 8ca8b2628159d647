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
