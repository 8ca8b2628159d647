/// The decoded form of `NSOrderedSet` / `NSMutableOrderedSet`: the elements in order (archived as
/// `NS.object.0`, `NS.object.1`, ...).
///
/// Mirrors `NSOrderedSet`.
public struct ArchivedOrderedSet: Hashable, @unchecked Sendable {
    // @unchecked: the elements are decoded values (strings, numbers, ...); AnyHashable is not Sendable.
    public var elements: [AnyHashable]

    public init(_ elements: [AnyHashable]) { self.elements = elements }
}
