import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Reading the raw fields of the current object: the helpers the built-in classes decode with.
extension KeyedUnarchiver {
    /// The raw value of a raw key of the current frame.
    package func rawField(_ rawKey: String) throws -> BinaryPlistObjects.Value? {
        guard let i = try position(ofRawKey: rawKey) else { return nil }
        return try reader.value(reader.valueReference(state.pointee.frame.fields, i))
    }

    /// The current object's field `rawKey` as a `T` (`NS.string` of an `NSString`), or `.invalidValue` when
    /// the object of class `className` lacks it or holds another type there.
    func requiredField<T>(_ rawKey: String, as type: T.Type, of className: String, uid: Int) throws -> T {
        guard let v = try rawField(rawKey) else { throw error(.invalidValue, "\(className) without \(rawKey)", uid: uid) }
        guard let value = try plainValue(v, key: rawKey) as? T else {
            throw error(.invalidValue, "\(rawKey) of \(className) is not a \(T.self)", uid: uid)
        }
        return value
    }

    /// A field value as a natural Swift value, an object of a mutable class as its plain value: what a
    /// Foundation class's decoding reads its parts with.
    package func plainValue(_ v: BinaryPlistObjects.Value, key: String) throws -> Any? {
        let value = try anyValue(v, key: key)
        return state.pointee.keepsMutableClasses ? ArchivedMutableObject.plain(value) : value
    }

    /// A field value as a natural Swift value (`nil` for `$null`).
    package func anyValue(_ v: BinaryPlistObjects.Value, key: String) throws -> Any? {
        try typed(v, Any.self, key: key)
    }

    /// The decoded elements of an inline array of references. Each is decoded under `rawKey` with its index
    /// kept aside (``DecodingState/elements``): key paths name it `rawKey.i`, with no string made per element.
    package func elements(_ rawKey: String) throws -> [Any] {
        guard let refs = try elementArray(rawKey) else { return [] }
        var result: [Any] = []
        result.reserveCapacity(refs.count)
        // An outer object's loop is put back on the way out, for its next elements.
        let outer = state.pointee.elements
        defer { state.pointee.elements = outer }
        state.pointee.elements = (rawKey, -1, state.pointee.depth)
        for i in 0..<refs.count {
            state.pointee.elements.index = i
            let v = try reader.value(reader.elementReference(refs, i))
            result.append(try anyValue(v, key: rawKey) ?? ArchivedNull())
        }
        return result
    }

    package func hashable(_ value: Any?, key: String) throws -> AnyHashable {
        guard let value else { return AnyHashable(ArchivedNull()) }
        guard let h = value as? AnyHashable else {
            throw error(.invalidValue, "a \(Swift.type(of: value)) cannot be a dictionary key or set member", key: key)
        }
        return h
    }
}
