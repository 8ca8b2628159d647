import BinaryPlist

/// An object of a class the registry does not know, kept whole: its `$classes` chain and every key with its
/// value, in file order. Encoding it writes the same class chain and fields back.
///
/// Keys are raw archive keys (a user key `$x` appears escaped as `$$x`, unkeyed values as `$0`, `$1`...).
/// Scalars stay plist values (an integer, a real and a bool never merge); references are decoded values
/// (`String`, `[Any]`, another `ArchivedObject`, ...) or `nil` for `$null`.
///
/// ```swift
/// let registry = ClassRegistry.standard.allowingUnknownClasses()
/// let object = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: registry)
/// print(object?.classChain, object?.fields.map(\.key))
/// ```
///
/// Mirrors what `NSKeyedUnarchiverDelegate.unarchiver(_:cannotDecodeObjectOfClassName:originalClasses:)`
/// lets an app substitute for an unknown class.
public final class ArchivedObject: KeyedArchivable, Hashable, @unchecked Sendable {
    // @unchecked: fields hold decoded values as `Any`; the object is meant to be used from one task.

    /// One field value.
    public enum Field {
        /// A scalar stored inline in the object (integer, real, bool, string, data), or an inline plist
        /// collection without references.
        case value(PlistValue)
        /// A reference to another object, decoded; `nil` for `$null`.
        case object(Any?)
        /// An inline array of references (as `NS.objects`), each decoded.
        case objects([Any?])
    }

    /// `$classname` followed by its superclasses, as in `$classes`.
    public var classChain: [String]
    /// The fields in file order, `$class` excluded.
    public var fields: [(key: String, value: Field)]

    /// The archived class name (`$classname`).
    public var className: String { classChain.first ?? "" }

    public init(classChain: [String], fields: [(key: String, value: Field)] = []) {
        self.classChain = classChain
        self.fields = fields
    }

    /// The value of a raw key.
    public subscript(key: String) -> Field? {
        fields.first(where: { $0.key == key })?.value
    }

    public static var archivedClassName: String { "ArchivedObject" }

    public convenience init(coder: KeyedUnarchiver) throws {
        self.init(classChain: coder.currentClassChain)
        try coder.decodeAllFields(into: self)
    }

    public func encode(with coder: KeyedArchiver) {
        for (key, value) in fields {
            switch value {
            case .value(let v): coder.encodeRawPlistValue(v, forRawKey: key)
            case .object(let o): coder.encodeRawObject(o, forRawKey: key)
            case .objects(let list): coder.encodeRawObjectArray(list, forRawKey: key)
            }
        }
    }

    public static func == (lhs: ArchivedObject, rhs: ArchivedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
