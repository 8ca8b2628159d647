/// A property-list UID: a reference to an entry of a keyed archive's `$objects` array.
///
/// Binary plists store it as marker `0x8n` with `n + 1` big-endian bytes; XML plists as
/// `<dict><key>CF$UID</key><integer>n</integer></dict>`.
///
/// Mirrors `CFKeyedArchiverUID` (`__NSCFKeyedArchiverUID`).
public struct PlistUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The index in `$objects` the UID refers to.
    public var value: UInt64

    /// A UID that refers to index `value`.
    public init(_ value: UInt64) { self.value = value }

    /// Whether `lhs` refers to a lower index than `rhs`.
    public static func < (lhs: PlistUID, rhs: PlistUID) -> Bool { lhs.value < rhs.value }

    /// `UID(n)`.
    public var description: String { "UID(\(value))" }
}
