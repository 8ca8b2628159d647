/// When a write reaches stable storage: the one setting both engines follow.
///
/// ```swift
/// var options = CacheOptions()
/// options.durability = .synchronous
/// ```
///
/// ``ArchiveRepository`` always commits with ``synchronous``. ``ArchiveCache`` follows
/// ``CacheOptions/durability``, ``relaxed`` by default. On Apple platforms a sync is `fcntl(F_FULLFSYNC)`, which
/// flushes the drive's cache (`fsync` there does not), with `fsync` as the fallback on file systems that refuse
/// it; on Linux it is `fsync`.
///
/// Plays the part of SQLite's `PRAGMA synchronous` (`OFF` / `FULL`) and of `Data.WritingOptions.atomic`.
///
/// A struct with static members rather than an enum, so that a level added later does not break a client's
/// `switch`.
public struct Durability: Sendable, Hashable, CustomStringConvertible {
    /// The level's name: `"relaxed"` or `"synchronous"`.
    public let description: String

    private init(_ name: String) { description = name }

    /// Atomic renames and ordered appends only: after a crash a change is there whole or not at all, never
    /// torn, but one acknowledged just before a power loss may be lost. Right for a cache.
    public static let relaxed = Durability("relaxed")
    /// Every file is synced before its rename and its directory after: an acknowledged change survives a
    /// power loss.
    public static let synchronous = Durability("synchronous")
}
