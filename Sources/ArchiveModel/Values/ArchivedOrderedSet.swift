/// The decoded form of `NSOrderedSet` / `NSMutableOrderedSet`: the elements in order (archived as
/// `NS.object.0`, `NS.object.1`, ...).
///
/// Mirrors `NSOrderedSet`.
public struct ArchivedOrderedSet: Hashable {
    /// The elements, in order.
    public var elements: [AnyHashable]

    /// An ordered set of `elements`, in order. Mirrors `NSOrderedSet(array:)`.
    public init(_ elements: [AnyHashable]) { self.elements = elements }
}
