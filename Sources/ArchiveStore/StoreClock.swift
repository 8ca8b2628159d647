#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Where the store reads the current time: the system's wall clock (`Date()`) unless one is given, as
/// ``CacheOptions/clock`` or a `clock:` argument. Inject a fixed or manual clock in tests.
///
/// Expiry is judged against the instant `expiresAt` fixed when a record is added; a record is expired only
/// once `now()` reaches it. A clock that steps backwards therefore only makes records live longer, never
/// shorter: no high-water mark of past readings is kept, because judging by a time the clock no longer shows
/// would expire records early.
///
/// Plays the part of `Date()` / `Date.now`.
public protocol StoreClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's wall clock (`Date()`): the clock a store uses unless it is given another. Not named by users
/// (the default arguments and ``CacheOptions/clock`` supply it); usable from inlinable default arguments.
@usableFromInline
package struct SystemClock: StoreClock {
    /// The system clock.
    @usableFromInline
    package init() {}
    /// The current time, `Date()`.
    @usableFromInline
    package func now() -> Date { Date() }
}
