import BinaryPlist

extension PlistValue {
    /// Whether the value is a dictionary with any of the keys of a keyed archive's top level (`$archiver`,
    /// `$objects`, `$top`): a plist meant as a keyed archive, sound or not.
    package var looksLikeKeyedArchive: Bool {
        guard let top = dictionaryValue else { return false }
        return top["$archiver"] != nil || top["$objects"] != nil || top["$top"] != nil
    }
}
