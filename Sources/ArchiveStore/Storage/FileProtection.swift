/// The Data Protection class of the files a storage engine creates: when, after the device is locked, their
/// contents can still be read.
///
/// ```swift
/// var options = CacheOptions()
/// options.fileProtection = .complete   // unreadable from a few seconds after the device locks
/// ```
///
/// It acts on iOS, iPadOS, tvOS, watchOS and visionOS; macOS and Linux have no such classes, and there the
/// setting does nothing. The engines' default, ``completeUntilFirstUserAuthentication``, lets a background task
/// (a fetch, a push, a widget's refresh) read and write while the device is locked, once it has been unlocked
/// since it started. A read or write that the system refuses because the device is locked fails with
/// ``StoreError/Code/protectedDataUnavailable``, never with damage; ``ArchiveCache`` counts such a read as a
/// miss.
///
/// An open set of classes: each is named by the raw value of Apple's `FileProtectionType`.
///
/// Mirrors `FileProtectionType` (`FileAttributeKey.protectionKey`) and `NSFileProtectionKey`.
public struct FileProtection: RawRepresentable, Hashable, Sendable {
    /// The `FileProtectionType` raw value (`"NSFileProtectionComplete"`), which also names the class.
    public let rawValue: String
    /// The class whose `FileProtectionType` raw value is `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Readable only while the device is unlocked. Mirrors `FileProtectionType.complete`.
    public static let complete = FileProtection(rawValue: "NSFileProtectionComplete")
    /// A file open when the device locks stays readable and writable; new files can be created while it is locked.
    /// Mirrors `FileProtectionType.completeUnlessOpen`.
    public static let completeUnlessOpen = FileProtection(rawValue: "NSFileProtectionCompleteUnlessOpen")
    /// Readable from the first unlock after the device starts until it shuts down: the engines' default. Mirrors
    /// `FileProtectionType.completeUntilFirstUserAuthentication`.
    public static let completeUntilFirstUserAuthentication = FileProtection(rawValue: "NSFileProtectionCompleteUntilFirstUserAuthentication")
    /// Always readable. Mirrors `FileProtectionType.none`.
    public static let none = FileProtection(rawValue: "NSFileProtectionNone")
}
