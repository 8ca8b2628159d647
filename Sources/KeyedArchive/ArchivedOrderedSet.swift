/// The decoded form of `NSOrderedSet` / `NSMutableOrderedSet`: the elements in order (archived as
/// `NS.object.0`, `NS.object.1`, ...).
///
/// Mirrors `NSOrderedSet`.
public struct ArchivedOrderedSet: Hashable {    public var elements: [AnyHashable]

    public init(_ elements: [AnyHashable]) { self.elements = elements }
}
