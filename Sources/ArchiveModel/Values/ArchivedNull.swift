/// The archived form of `NSNull`: a placeholder object, distinct from a missing value (`$null`).
///
/// Mirrors `NSNull`.
public struct ArchivedNull: Hashable, Sendable {
    /// The null object. Mirrors `NSNull()`.
    public init() {}
}
