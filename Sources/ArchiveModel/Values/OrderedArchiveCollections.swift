/// An `NSDictionary` written with its entries in the given order: keys and values of any type the archiver
/// writes, as a file had them. A Swift `Dictionary` has no order of its own; this one keeps a rewritten
/// archive's bytes the same as the original's.
///
/// ```swift
/// let archiver = KeyedArchiver()
/// archiver.encodeObject(OrderedArchiveDictionary(keys: ["b", "a"], values: [2, 1]), forKey: "root")
/// ```
///
/// Mirrors `NSDictionary(objects:forKeys:)`; it decodes as a dictionary does.
public struct OrderedArchiveDictionary {
    /// The keys, in the order they are written (`NS.keys`).
    public var keys: [Any]
    /// The values, one for each key (`NS.objects`).
    public var values: [Any]

    /// A dictionary of `keys[i]: values[i]`; both lists should have the same count (extra values of the
    /// longer list are written as they are, as `NSDictionary` would refuse them).
    public init(keys: [Any] = [], values: [Any] = []) {
        self.keys = keys
        self.values = values
    }
}

/// An `NSSet` written with its members in the given order, as a file had them.
///
/// Mirrors `NSSet(array:)`; it decodes as a set does.
public struct OrderedArchiveSet {
    /// The members, in the order they are written (`NS.objects`).
    public var members: [Any]

    /// A set of `members`, written in their order.
    public init(members: [Any]) {
        self.members = members
    }
}
