import ArchivePlatform

/// The calls that set and read the Apple file attributes the engines keep (a file's Data Protection class, a
/// directory's exclusion from backups): the platform's by default (``PlatformFileAttributes``), a recorder in
/// tests (which run on Linux, where the platform's do nothing).
///
/// A protocol rather than a struct of closures: a stored closure whose type has typed throws needs the runtime's
/// `swift_getExtendedFunctionTypeMetadata`, which Apple's platforms have only from macOS 15 and iOS 18, below
/// the package's deployment targets.
///
/// Part of the ``FileSystem`` seam: every call goes through the seam's fault plan
/// (``FileSystem/Call/setAttributes``, ``FileSystem/Call/getAttributes``) when it acts at all.
package protocol FileAttributeCalls: Sendable {
    /// Whether protection classes exist here (the calls are made at all).
    var protects: Bool { get }
    /// Whether backup exclusion exists here.
    var excludesFromBackup: Bool { get }
    func setProtection(_ protection: String, _ path: String) throws(Errno)
    func protection(_ path: String) throws(Errno) -> String?
    func setExcludedFromBackup(_ excluded: Bool, _ path: String) throws(Errno)
    func isExcludedFromBackup(_ path: String) throws(Errno) -> Bool?
}

/// This platform's file attributes: Data Protection on iOS, iPadOS, tvOS, watchOS and visionOS, backup
/// exclusion on every Apple platform, neither on Linux (see `ArchivePlatform`'s `FileAttributes`).
package struct PlatformFileAttributes: FileAttributeCalls {
    package init() {}
    package var protects: Bool { FileAttributes.hasDataProtection }
    package var excludesFromBackup: Bool { FileAttributes.hasBackupExclusion }
    package func setProtection(_ protection: String, _ path: String) throws(Errno) {
        try FileAttributes.setProtection(protection, atPath: path)
    }
    package func protection(_ path: String) throws(Errno) -> String? { try FileAttributes.protection(atPath: path) }
    package func setExcludedFromBackup(_ excluded: Bool, _ path: String) throws(Errno) {
        try FileAttributes.setExcludedFromBackup(excluded, atPath: path)
    }
    package func isExcludedFromBackup(_ path: String) throws(Errno) -> Bool? { try FileAttributes.isExcludedFromBackup(atPath: path) }
}

/// No file attributes: what Linux has, whatever the platform (tests).
package struct NoFileAttributes: FileAttributeCalls {
    package init() {}
    package var protects: Bool { false }
    package var excludesFromBackup: Bool { false }
    package func setProtection(_ protection: String, _ path: String) throws(Errno) {}
    package func protection(_ path: String) throws(Errno) -> String? { nil }
    package func setExcludedFromBackup(_ excluded: Bool, _ path: String) throws(Errno) {}
    package func isExcludedFromBackup(_ path: String) throws(Errno) -> Bool? { nil }
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
