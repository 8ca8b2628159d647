/// `NSNull`, as `ArchivedNull` (distinct from `$null`, a missing value).
extension KeyedUnarchiver {
    /// An `NSNull` object.
    func decodeNSNull(uid: Int) throws -> Any {
        return ArchivedNull()
    }
}

extension KeyedArchiver {
    /// The archive's one `NSNull` object.
    func nullObject() -> Int32 {
        if nullObjectUID < 0 { nullObjectUID = withObjectFrame(classUID: { classObject(.null) }) {} }
        return nullObjectUID
    }
}
