/// An `ArchivedObject` in a keyed archive: its fields under their raw keys, its class chain as `$classes`.
extension ArchivedObject: KeyedArchivable {
    /// Reads every field of the object the coder is positioned on, keeping its class chain.
    public convenience init(coder: KeyedUnarchiver) throws {
        self.init(classChain: coder.currentClassChain)
        try coder.decodeAllFields(into: self)
    }

    /// Writes every field back under its raw key, with the object's class chain.
    public func encode(with coder: KeyedArchiver) {
        for (key, value) in fields { coder.encode(value, forArchivedKey: key) }
    }
}
