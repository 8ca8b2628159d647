/// The Foundation classes whose archived entry holds one plain value, as readers of an ``ArchiveGraph`` show
/// it: the string of an `NSString`, the bytes of an `NSData`, the members of a collection, the time of an
/// `NSDate`, the bytes of an `NSUUID`, the address of an `NSURL`. A mutable class and Apple's private concrete
/// subclasses (`__NSCFString`, `__NSArrayM`, ...) have the kind of their public class.
///
/// Other classes, built in or not, have no kind: their fields are what they hold.
///
/// ```swift
/// ArchivedClassKind(className: "NSMutableArray")   // .array
/// ArchivedClassKind(className: "NSNumber")         // nil: numbers are plain plist values in an archive
/// ```
///
/// Mirrors Foundation's class clusters (`NSString`, `NSData`, `NSArray`, `NSSet`, `NSOrderedSet`,
/// `NSDictionary`, `NSDate`, `NSUUID`, `NSURL`, `NSNull`).
public enum ArchivedClassKind: Sendable, Hashable, CaseIterable {
    /// `NSString`: `NS.string`.
    case string
    /// `NSData`: `NS.data`.
    case data
    /// `NSArray`: `NS.objects`.
    case array
    /// `NSSet`: `NS.objects`.
    case set
    /// `NSOrderedSet`: `NS.object.0`, `NS.object.1`, ...
    case orderedSet
    /// `NSDictionary`: `NS.keys` and `NS.objects`.
    case dictionary
    /// `NSDate`: `NS.time`.
    case date
    /// `NSUUID`: `NS.uuidbytes`.
    case uuid
    /// `NSURL`: `NS.base` and `NS.relative`.
    case url
    /// `NSNull`.
    case null

    /// The kind of the class named `className`, or `nil` when it has none.
    public init?(className: String) {
        guard let kind = StandardClass(className: className)?.kind else { return nil }
        self = kind
    }
}
