import BinaryPlist
import ArchiveInspection

/// CPython plistlib's reading of a fixture (its `.plist.json` sibling, see ``FixtureFiles``) and how our
/// reading of the same file must compare with it.
enum PlistlibReference {
    /// plistlib's reading of `file`, or nil when plistlib refused the file (it has no `.plist.json`).
    static func value(of file: String) throws -> PlistValue? {
        try FixtureFiles.plistJSON(of: file).map { try PlistJSON.parse($0) }
    }

    /// Whether `ours`, read from a plist in `format`, is what plistlib read. They must be equal, except that
    /// - plistlib keeps dates only to the microsecond (it converts them to `datetime`), so dates may differ by up
    ///   to half a microsecond;
    /// - in XML plists plistlib leaves `<dict><key>CF$UID</key><integer>n</integer></dict>` a dictionary, where
    ///   CoreFoundation, and we, must read a UID.
    static func matches(_ ours: PlistValue, _ reference: PlistValue, format: PlistFormat) -> Bool {
        if format == .xml, case .dictionary(let d) = reference, let uid = cfUID(d) {
            return ours == .uid(uid)
        }
        switch (ours, reference) {
        case (.date(let a), .date(let b)):
            return a == b || abs(a.secondsSinceReferenceDate - b.secondsSinceReferenceDate) <= 0.5e-6 * 1.000_001
        case (.array(let a), .array(let b)), (.set(let a), .set(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1, format: format) }
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count
                && zip(a.entries, b.entries).allSatisfy {
                    matches($0.key, $1.key, format: format) && matches($0.value, $1.value, format: format)
                }
        default:
            return ours == reference
        }
    }

    /// The UID CoreFoundation reads from a `{"CF$UID": n}` dictionary of an XML plist (n from 0 to 2^64 - 1).
    private static func cfUID(_ d: PlistDictionary) -> PlistUID? {
        guard d.count == 1, case .integer(let n)? = d["CF$UID"], let value = n.uint64Value else { return nil }
        return PlistUID(value)
    }
}
