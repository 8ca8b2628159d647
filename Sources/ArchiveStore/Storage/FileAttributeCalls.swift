import ArchivePlatform

/// The calls that set and read the Apple file attributes the engines keep (a file's Data Protection class, a
/// directory's exclusion from backups), as a value: the platform's by default, a recorder in tests (which run
/// on Linux, where the platform's do nothing).
///
/// Part of the ``FileSystem`` seam: every call goes through the seam's fault plan
/// (``FileSystem/Call/setAttributes``, ``FileSystem/Call/getAttributes``) when it acts at all.
package struct FileAttributeCalls: Sendable {
    /// Whether protection classes exist here (the calls are made at all).
    package var protects: Bool
    /// Whether backup exclusion exists here.
    package var excludesFromBackup: Bool
    package var setProtection: @Sendable (_ protection: String, _ path: String) throws(Errno) -> Void
    package var protection: @Sendable (_ path: String) throws(Errno) -> String?
    package var setExcludedFromBackup: @Sendable (_ excluded: Bool, _ path: String) throws(Errno) -> Void
    package var isExcludedFromBackup: @Sendable (_ path: String) throws(Errno) -> Bool?

    package init(protects: Bool, excludesFromBackup: Bool,
                 setProtection: @escaping @Sendable (String, String) throws(Errno) -> Void,
                 protection: @escaping @Sendable (String) throws(Errno) -> String?,
                 setExcludedFromBackup: @escaping @Sendable (Bool, String) throws(Errno) -> Void,
                 isExcludedFromBackup: @escaping @Sendable (String) throws(Errno) -> Bool?) {
        self.protects = protects
        self.excludesFromBackup = excludesFromBackup
        self.setProtection = setProtection
        self.protection = protection
        self.setExcludedFromBackup = setExcludedFromBackup
        self.isExcludedFromBackup = isExcludedFromBackup
    }

    /// This platform's: Data Protection on iOS, iPadOS, tvOS, watchOS and visionOS, backup exclusion on every
    /// Apple platform, neither on Linux (see `ArchivePlatform`'s `FileAttributes`).
    package static let platform = FileAttributeCalls(
        protects: FileAttributes.hasDataProtection, excludesFromBackup: FileAttributes.hasBackupExclusion,
        setProtection: { (protection, path) throws(Errno) in try FileAttributes.setProtection(protection, atPath: path) },
        protection: { (path) throws(Errno) in try FileAttributes.protection(atPath: path) },
        setExcludedFromBackup: { (excluded, path) throws(Errno) in try FileAttributes.setExcludedFromBackup(excluded, atPath: path) },
        isExcludedFromBackup: { (path) throws(Errno) in try FileAttributes.isExcludedFromBackup(atPath: path) })
}

/// What every file and directory a ``FileSystem`` value creates is given, at its creation.
package struct NewItemAttributes: Sendable, Hashable {
    /// The Data Protection class of new files and directories; `nil`: the system's choice (nothing is set).
    package var protection: FileProtection?
    /// Whether new files (not directories) are excluded from backups.
    package var excludedFromBackup = false

    package init(protection: FileProtection? = nil, excludedFromBackup: Bool = false) {
        self.protection = protection
        self.excludedFromBackup = excludedFromBackup
    }
}
