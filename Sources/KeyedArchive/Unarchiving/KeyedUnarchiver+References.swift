/// A reference read without decoding what it refers to (the one-call API checks for a root object this way).
extension KeyedUnarchiver {
    /// The UID of the object under `key` of the current object (`nil` when the key is missing or holds
    /// `$null`), without decoding it.
    func objectUID(forKey key: String) throws -> Int? {
        guard let v = try fieldValue(forKey: key) else { return nil }
        guard case .uid(let uid) = v else { throw mismatch(key, "an object reference", v) }
        guard uid > 0 else { return nil }
        _ = try objectReference(uid, key: key)
        return uid
    }
}
