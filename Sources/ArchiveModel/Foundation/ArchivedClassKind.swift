/// The Foundation classes whose archived entry holds one plain value, as readers of an `ArchiveGraph` show
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
///
/// A struct with static members rather than an enum, so that a kind added later (as the error codes are) does
/// not break a client's `switch`: match with `==` or `case .string:` and keep a `default`.
public struct ArchivedClassKind: Sendable, Hashable, CustomStringConvertible {
    /// The kind's name, as the members below are named (`"string"`, `"orderedSet"`).
    public let description: String

    private init(_ name: String) { description = name }

    /// `NSString`: `NS.string`.
    public static let string = ArchivedClassKind("string")
    /// `NSData`: `NS.data`.
    public static let data = ArchivedClassKind("data")
    /// `NSArray`: `NS.objects`.
    public static let array = ArchivedClassKind("array")
    /// `NSSet`: `NS.objects`.
    public static let set = ArchivedClassKind("set")
    /// `NSOrderedSet`: `NS.object.0`, `NS.object.1`, ...
    public static let orderedSet = ArchivedClassKind("orderedSet")
    /// `NSDictionary`: `NS.keys` and `NS.objects`.
    public static let dictionary = ArchivedClassKind("dictionary")
    /// `NSDate`: `NS.time`.
    public static let date = ArchivedClassKind("date")
    /// `NSUUID`: `NS.uuidbytes`.
    public static let uuid = ArchivedClassKind("uuid")
    /// `NSURL`: `NS.base` and `NS.relative`.
    public static let url = ArchivedClassKind("url")
    /// `NSNull`.
    public static let null = ArchivedClassKind("null")

    /// Every kind there is today.
    public static let allCases: [ArchivedClassKind] = [.string, .data, .array, .set, .orderedSet, .dictionary, .date, .uuid, .url, .null]

    /// The kind of the class named `className`, or `nil` when it has none.
    public init?(className: String) {
        guard let kind = StandardClass(className: className)?.kind else { return nil }
        self = kind
    }
}
