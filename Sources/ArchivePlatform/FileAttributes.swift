#if canImport(FoundationEssentials)
import FoundationEssentials
#else
// The two attributes are Foundation's on Apple platforms: `FileManager`'s `.protectionKey` and `URL`'s
// `isExcludedFromBackup` resource value are the documented ways to set them.
import Foundation
#endif

/// The Apple file attributes the storage engines keep: the Data Protection class of a file or directory, and
/// its exclusion from backups. Elsewhere neither exists, and every call here does nothing.
///
/// A protection class is named by its `FileProtectionType` raw value (`"NSFileProtectionComplete"`, ...).
///
/// Mirrors `FileManager.setAttributes(_:ofItemAtPath:)` with `.protectionKey`, and
/// `URL.setResourceValues(_:)` with `URLResourceValues.isExcludedFromBackup`.
package enum FileAttributes {
    /// Whether files have Data Protection classes here: iOS, iPadOS, tvOS, watchOS and visionOS (not macOS,
    /// whose volumes ignore the class, nor Linux).
    package static var hasDataProtection: Bool {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        true
        #else
        false
        #endif
    }

    /// Whether backups here honour an exclusion: every Apple platform (iCloud and device backups, Time Machine).
    package static var hasBackupExclusion: Bool {
        #if canImport(Darwin)
        true
        #else
        false
        #endif
    }

    /// Sets the Data Protection class of the file or directory at `path` (a `FileProtectionType` raw value).
    /// Does nothing where there are no classes.
    package static func setProtection(_ protection: String, atPath path: String) throws(Errno) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        do {
            try FileManager.default.setAttributes([.protectionKey: FileProtectionType(rawValue: protection)], ofItemAtPath: path)
        } catch {
            throw errno(of: error)
        }
        #endif
    }

    /// The Data Protection class of the file or directory at `path`; `nil` where there are none, or when it has
    /// none.
    package static func protection(atPath path: String) throws(Errno) -> String? {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw errno(of: error)
        }
        if let value = attributes[.protectionKey] as? FileProtectionType { return value.rawValue }
        return attributes[.protectionKey] as? String
        #else
        return nil
        #endif
    }

    /// Sets or clears the exclusion from backups of the file or directory at `path` (a directory's covers what is
    /// in it). Does nothing where there are no such backups.
    package static func setExcludedFromBackup(_ excluded: Bool, atPath path: String) throws(Errno) {
        #if canImport(Darwin)
        var url = URL(fileURLWithPath: path)
        var values = URLResourceValues()
        values.isExcludedFromBackup = excluded
        do {
            try url.setResourceValues(values)
        } catch {
            throw errno(of: error)
        }
        #endif
    }

    /// Whether the file or directory at `path` is excluded from backups; `nil` where there are no such backups.
    package static func isExcludedFromBackup(atPath path: String) throws(Errno) -> Bool? {
        #if canImport(Darwin)
        do {
            return try URL(fileURLWithPath: path).resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup ?? false
        } catch {
            throw errno(of: error)
        }
        #else
        return nil
        #endif
    }

    #if canImport(Darwin)
    /// The `errno` behind a Foundation file error: its own for a POSIX error, its underlying error's, or one
    /// for the Cocoa file error codes (`EIO` for any other).
    private static func errno(of error: any Error) -> Errno {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Errno(Int32(truncatingIfNeeded: error.code)) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Errno(Int32(truncatingIfNeeded: underlying.code))
        }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return .noSuchFile
        case .fileReadNoPermission, .fileWriteNoPermission: return .notPermitted
        case .fileWriteOutOfSpace: return .noSpace
        default: return .io
        }
    }
    #endif
}
