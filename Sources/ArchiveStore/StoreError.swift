/// The one error the archive store throws.
///
/// It carries a ``Code`` from an open set (match it in `catch`), the file involved, the record id when one is
/// involved, the `errno` of a failed system call, and a one-line reason:
///
/// ```swift
/// do {
///     let data = try Data(contentsOf: url)          // other errors too
///     try repository.update(Note(data))
/// } catch let error as StoreError where error.code == .notFound { ... }
///
/// do { try repository.update(record) }              // StoreError only
/// catch {
///     guard StoreError.Code.notFound ~= error else { throw error }
///     ...
/// }
/// ```
///
/// Both compile whatever else the `do` block calls.
///
/// Plays the part of the `NSCocoaErrorDomain` file errors (`NSFileReadCorruptFileError`,
/// `NSFileWriteUnknownError`, ...) that Foundation-based stores report, with more context.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. An open set: new codes may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`"notFound"`).
        let name: String
        /// The code named `name`.
        init(rawValue name: String) { self.name = name }
        /// The code's name (`"notFound"`).
        public var description: String { name }

        /// No record has the given id (or it has expired).
        public static let notFound = Code(rawValue: "notFound")
        /// A record with the given id already exists.
        public static let duplicateID = Code(rawValue: "duplicateID")
        /// The store file exists but cannot be decoded: truncated, corrupt, or not a store of this record type.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The store file was written in a format version this build does not know (a newer one).
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// An input archive (such as a legacy import) cannot be decoded.
        public static let invalidArchive = Code(rawValue: "invalidArchive")
        /// A system call failed (see ``StoreError/errno``).
        public static let io = Code(rawValue: "io")
        /// The store file, its index, its lock file or its temporary file is a symbolic link, which is refused.
        public static let symbolicLink = Code(rawValue: "symbolicLink")
        /// The store file, its index or its lock file has more than one hard link, which is refused (writing
        /// it would change the other name's file too).
        public static let hardLink = Code(rawValue: "hardLink")
        /// A FIFO, device, socket or directory is where a store, index, lock or cache file should be: refused
        /// before anything blocks on it or writes through it.
        public static let notRegularFile = Code(rawValue: "notRegularFile")
        /// The store's newer commit slot is damaged while intact records follow its older one: the newest
        /// commit may be what the damage hides. The store is left as it is (nothing is cut off); see
        /// ``ArchiveRepository/recoverDamagedCommit()`` and ``ArchiveRepository/moveAside(suffix:)``.
        public static let damagedCommit = Code(rawValue: "damagedCommit")
        /// Another process held the store's lock for longer than the timeout.
        public static let locked = Code(rawValue: "locked")
        /// No data directory can be determined (no `HOME` and no password-database entry).
        public static let noDataDirectory = Code(rawValue: "noDataDirectory")
        /// A value given by the caller is malformed (a time to live, an id...).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// A computed result does not fit its type: the sum of an integer property past its type's range.
        public static let overflow = Code(rawValue: "overflow")
        /// A cache entry is larger than the cache's whole byte limit.
        public static let entryTooLarge = Code(rawValue: "entryTooLarge")
        /// The system refused to read or write a file's contents because they are protected while the device is
        /// locked (its Data Protection class, see ``FileProtection``: `EPERM` on iOS, tvOS, watchOS and
        /// visionOS). Nothing is damaged and nothing was changed: try again once the device is unlocked, or give
        /// the engine's files a class that background work may read
        /// (``FileProtection/completeUntilFirstUserAuthentication``, the default).
        public static let protectedDataUnavailable = Code(rawValue: "protectedDataUnavailable")
        /// The change is visible (renamed into place) but could not be made durable: the fsync of its
        /// directory failed. Reading it back tells whether it is still there; do not blindly retry.
        public static let durabilityUnknown = Code(rawValue: "durabilityUnknown")
    }

    /// What went wrong; match it in `catch` (`catch let error as StoreError where error.code == .notFound`).
    public var code: Code
    /// One-line reason.
    public var reason: String
    /// The file or directory involved, when there is one.
    public var path: String?
    /// The record id (or cache key) involved, when there is one.
    public var recordID: String?
    /// The `errno` of the failed system call, for ``Code/io``.
    public var errno: Int32?
    /// Where in the file the damage was found (a byte offset), for ``Code/corrupt``.
    public var offset: Int?

    /// An error with `code`, a one-line `reason`, and the file, record and system error involved.
    public init(_ code: Code, _ reason: String, path: String? = nil, recordID: String? = nil, errno: Int32? = nil,
                offset: Int? = nil) {
        self.code = code
        self.offset = offset
        self.reason = reason
        self.path = path
        self.recordID = recordID
        self.errno = errno
    }

    /// `store: /data/Notes.archive: at byte 4120: a frame fails its checksum`
    public var description: String {
        var text = "store"
        if let path { text += ": " + path }
        if let recordID { text += ": record '" + recordID + "'" }
        if let offset { text += ": at byte \(offset)" }
        return text + ": " + reason
    }
}

extension StoreError.Code {
    /// Lets `catch StoreError.Code.locked` match any error with that code.
    public static func ~= (code: StoreError.Code, error: any Error) -> Bool {
        (error as? StoreError)?.code == code
    }
}
