import ArchiveModel

/// `NSNull` (version 0): no values, as `ArchivedNull`.
extension TypedStreamUnarchiver {
    func decodeNSNull() -> ArchivedNull { ArchivedNull() }
}

extension TypedStreamArchiver {
    func writeNSNull() { writeNewObject(.null) {} }
}
