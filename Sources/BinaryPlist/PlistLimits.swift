/// Limits that keep untrusted input from exhausting memory, time or the stack.
///
/// ```swift
/// var limits = PlistLimits.default
/// limits.maxDepth = 64
/// let value = try PropertyList.decode(bytes, limits: limits)
/// ```
///
/// Defaults: depth 512, as many materialized values as the input has bytes (at least 65,536), 1 GiB of
/// input, lenient strings.
public struct PlistLimits: Sendable, Hashable {
    /// Deepest nesting of arrays, sets and dictionaries accepted (the top object is depth 1). Default 512.
    public var maxDepth: Int = 512
    /// Most values materialized in one decode, counting every reference separately, so that a small file
    /// whose collections share each other cannot expand exponentially.
    ///
    /// `nil` (the default) allows as many values as the input has bytes, and at least 65,536: every value of a
    /// file whose collections are not shared (Apple's writers never share collections) takes at least one
    /// byte, so only a file that shares collections can reach it.
    public var maxElements: Int? = nil

    /// The element budget for an input of `byteCount` bytes.
    package func elementBudget(forInputOf byteCount: Int) -> Int {
        maxElements ?? max(byteCount, 65_536)
    }
    /// Largest input accepted, in bytes. Default 1 GiB.
    public var maxInputBytes: Int = 1 << 30
    /// How strings that are not valid in their encoding are read.
    public var stringPolicy: StringPolicy = .lenient

    /// How invalid string bytes are read.
    ///
    /// Frozen: such a string is either read as Apple's readers read it or refused; there is no third way.
    public enum StringPolicy: Sendable, Hashable {
        /// Documented lenient reading, as Apple's readers accept such files: an ASCII string (`0x5n`) with
        /// bytes above 0x7F is read as UTF-8 when it is valid UTF-8, else as ISO Latin-1; a lone UTF-16
        /// surrogate becomes U+FFFD.
        case lenient
        /// Any such string is an ``PlistError/Code/invalidString`` error.
        case strict
    }

    /// The documented defaults (``default``).
    package init() {}

    /// The documented defaults.
    public static let `default` = PlistLimits()
}
