#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The types the decode in progress asked for: secure coding checks each object of a custom class against
/// them before its initializer runs. Set by every public typed decode; the elements of a standard collection
/// and the fields of an `ArchivedObject` are decoded under the request of the decode that reached them.
/// Trivially copyable (a list lives in the unarchiver's state), so saving and restoring it around every
/// object costs two plain copies.
enum RequestedTypes {
    /// Anything the registry decodes: secure coding is off, or the top level asked for `Any`.
    case anything
    /// One type. An array, set, dictionary or optional type allows what its element (key, value) types allow.
    /// `nested`: asked for inside an object's `init(coder:)`, where a type that names nothing allows nothing.
    case type(Any.Type, nested: Bool)
    /// A list of types (``KeyedUnarchiver/decode(_:forKey:allowedTypes:)``, `unarchivedObject(ofTypes:)`):
    /// its index in the unarchiver's stack of lists, and the serial number of the request that pushed it
    /// (each push a new one, so that a verdict cached for a list is never taken for a later list).
    case list(Int, serial: UInt)

    var isAnything: Bool {
        if case .anything = self { return true }
        return false
    }

    /// A key for the per-class cache of verdicts (0, never cached, for anything).
    var cacheKey: UInt {
        switch self {
        case .anything: 0
        // Metadata addresses are aligned: the low bit is free for `nested`, and the key is never 0.
        case .type(let t, let nested): UInt(bitPattern: ObjectIdentifier(t)) | (nested ? 1 : 0)
        // Bit 1, clear in every aligned metadata address, tells a list's serial from a type.
        case .list(_, let serial): serial &<< 2 | 2
        }
    }
}

/// What secure coding decides for one class found against one request.
enum SecureVerdict {
    /// The class is among the types asked for (or a subclass of one).
    case allowed
    /// The class cannot be what was asked for: it is refused before its initializer runs.
    case refused
    /// The request is an existential (`any Shape`) that no metatype comparison can decide: the object is
    /// decoded (its class is registered) and then checked with `as?` like every decoded value.
    case checkedOnceDecoded
}

/// Arrays, sets, dictionaries and optionals name their element types for secure coding.
protocol SecureCodingContainer {
    static var secureCodingElementTypes: [Any.Type] { get }
}

extension Array: SecureCodingContainer {
    static var secureCodingElementTypes: [Any.Type] { [Element.self] }
}

extension Set: SecureCodingContainer {
    static var secureCodingElementTypes: [Any.Type] { [Element.self] }
}

extension Dictionary: SecureCodingContainer {
    static var secureCodingElementTypes: [Any.Type] { [Key.self, Value.self] }
}

extension Optional: SecureCodingContainer {
    static var secureCodingElementTypes: [Any.Type] { [Wrapped.self] }
}

enum SecureCoding {
    /// Types that accept any decoded object, so asking for them names no type.
    static let untypedTypes: [ObjectIdentifier] = [
        ObjectIdentifier(Any.self), ObjectIdentifier(AnyObject.self), ObjectIdentifier(AnyHashable.self),
        ObjectIdentifier((any KeyedArchivable).self),
    ]

    /// The concrete types the standard Foundation classes decode to: no custom class can be one of them.
    static let standardValueTypes: [ObjectIdentifier] = ([
        Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self,
        Double.self, Float.self, Bool.self,
    ] + StandardClass.allCases.map(\.valueType)).map { ObjectIdentifier($0) }

    /// Whether asking for `type` names no type anywhere it matters: `Any` itself, or a collection or
    /// optional of it (`[Any]`, `[String: Any]`).
    static func namesNoType(_ type: Any.Type) -> Bool {
        if untypedTypes.contains(ObjectIdentifier(type)) { return true }
        guard let container = type as? any SecureCodingContainer.Type else { return false }
        return container.secureCodingElementTypes.contains(where: namesNoType)
    }

    /// A list of types as it reads in an error: `Circle, Rectangle`.
    static func describe(_ types: [Any.Type]) -> String { types.map { "\($0)" }.joined(separator: ", ") }

    /// The verdict for an object whose class decodes as `found`, asked for as one of `types`. Each listed
    /// type is taken as named: an existential in a list cannot be decided, so it allows nothing.
    static func verdict(found: Any.Type, list types: [Any.Type]) -> SecureVerdict {
        types.contains(where: { isType(found, kindOf: $0) }) ? .allowed : .refused
    }

    /// The verdict for an object whose class decodes as `found`, asked for as `type`.
    static func verdict(found: Any.Type, type: Any.Type, nested: Bool) -> SecureVerdict {
        if untypedTypes.contains(ObjectIdentifier(type)) { return nested ? .refused : .allowed }
        if isType(found, kindOf: type) { return .allowed }
        if let container = type as? any SecureCodingContainer.Type {
            var result = SecureVerdict.refused
            for element in container.secureCodingElementTypes {
                switch verdict(found: found, type: element, nested: nested) {
                case .allowed: return .allowed
                case .checkedOnceDecoded: result = .checkedOnceDecoded
                case .refused: break
                }
            }
            return result
        }
        // A concrete type (an archivable class or struct, a Codable type, a standard value) that `found` is not.
        if type is any KeyedArchivable.Type || type is any ArchiveCodable.Type
            || standardValueTypes.contains(ObjectIdentifier(type)) || type is AnyClass {
            return .refused
        }
        return .checkedOnceDecoded
    }
}

extension KeyedUnarchiver {
    /// The verdict for an object whose class decodes as `found`, under the current request.
    func verdict(found: Any.Type) -> SecureVerdict {
        switch state.pointee.requested {
        case .anything: .allowed
        case .type(let t, let nested): SecureCoding.verdict(found: found, type: t, nested: nested)
        case .list(let index, _): SecureCoding.verdict(found: found, list: state.pointee.requestLists[index])
        }
    }

    /// The current request as it reads in an error: `Circle`, `Array<Circle>`, `Circle, Rectangle`.
    var requestDescription: String {
        switch state.pointee.requested {
        case .anything: "anything"
        case .type(let t, _): "\(t)"
        case .list(let index, _): SecureCoding.describe(state.pointee.requestLists[index])
        }
    }

    /// Runs `body` with a list of types as the request, restoring the request after.
    func withRequestedList<R>(_ types: [Any.Type], _ body: () throws -> R) rethrows -> R {
        let saved = state.pointee.requested
        state.pointee.requestLists.append(types)
        state.pointee.listSerial &+= 1
        state.pointee.requested = .list(state.pointee.requestLists.count - 1, serial: state.pointee.listSerial)
        defer {
            state.pointee.requestLists.removeLast()
            state.pointee.requested = saved
        }
        return try body()
    }

    /// Records what a public decode asks for (secure coding only: callers test ``requiresSecureCoding``
    /// first, which keeps the generic decode methods small enough to be specialized in client modules); a
    /// nested decode that names no type is refused here when it finds a value (`ref`, not `$null`).
    func request(_ type: Any.Type, at ref: Int, key: String) throws {
        let nested = state.pointee.frame.uid >= 0
        if nested { try checkNamesAType(type, at: ref, key: key) }
        state.pointee.requested = .type(type, nested: nested)
    }

    /// Secure coding: a nested decode of `Any` (or `[Any]`, `[String: Any]`) is refused when it finds a value.
    func checkNamesAType(_ type: Any.Type, at ref: Int, key: String) throws {
        let id = ObjectIdentifier(type)
        if state.pointee.typesNamingATypes.contains(id) { return }
        guard SecureCoding.namesNoType(type) else {
            if state.pointee.typesNamingATypes.count < 32 { state.pointee.typesNamingATypes.append(id) }
            return
        }
        if case .uid(0) = try reader.value(ref) { return }
        throw error(.classNotAllowed,
                    "secure coding: the decode asks for \(type), which names no type; found \(try describeFound(ref)) (name its type, or list them with allowedTypes:)",
                    key: key)
    }

    /// What the field value `ref` holds, for an error: `class "Circle"`, `a string`, `the integer 3`.
    func describeFound(_ ref: Int) throws -> String {
        let v = try reader.value(ref)
        guard case .uid(let uid) = v else { return describe(v) }
        let object = try objectReference(uid)
        guard let fields = try reader.dictionary(object) else { return describe(try reader.value(object)) }
        return "class \"\(try resolveClass(of: fields, uid: uid).chain.first ?? "")\""
    }

    /// A value decoded under a request for a list of types: a standard value (a string, a number, a date)
    /// must be one of them too, as a class found was before its initializer ran; an array, set or
    /// dictionary holds what the list allows, its elements having been checked.
    func checkListed(_ value: Any, key: String) throws {
        guard case .list(let index, _) = state.pointee.requested else { return }
        let types = state.pointee.requestLists[index]
        let found: Any.Type = type(of: value)
        if found is any SecureCodingContainer.Type || value is ArchivedOrderedSet { return }
        if types.contains(where: { isType(found, kindOf: $0) || convertNumber(value, toType: $0) != nil }) { return }
        throw error(.classNotAllowed, "secure coding: found \(found), which is not among the types asked for: \(SecureCoding.describe(types))",
                    key: key)
    }

    /// A shared instance decoded before, under a request for a list of types: it must be one of them.
    func checkListed(_ instance: AnyObject, uid: Int, key: String) throws {
        let found: Any.Type = type(of: instance)
        guard case .refused = verdict(found: found) else { return }
        throw error(.classNotAllowed, "secure coding: \(found) is not among the types asked for: \(requestDescription)",
                    key: key, uid: uid)
    }

    /// Runs `body`, the initializer of object `uid`'s class, once the class has passed ``checkRequested``.
    /// Inside, the decodes of `init(coder:)` / `init(from:)` name their own types (unless secure coding is
    /// required); the request is restored afterwards for the next element of a collection.
    @inline(__always)
    func withRequestChecked<R>(_ resolved: ResolvedClass, uid: Int, key: String, _ body: () throws -> R) throws -> R {
        let saved = state.pointee.requested
        if !saved.isAnything {
            try checkRequested(resolved, uid: uid, key: key)
            if !requiresSecureCoding { state.pointee.requested = .anything }
        }
        defer { state.pointee.requested = saved }
        return try body()
    }

    /// Secure coding: checks the class of object `uid` against what the decode in progress asked for, before
    /// the object's initializer runs. The verdict is cached per class and request.
    @inline(__always)
    func checkRequested(_ resolved: ResolvedClass, uid: Int, key: String) throws {
        let cacheKey = state.pointee.requested.cacheKey
        if cacheKey != 0, resolved.slot < state.pointee.allowedRequests.count,
           state.pointee.allowedRequests[resolved.slot] == cacheKey {
            return
        }
        try checkRequestedUncached(resolved, uid: uid, key: key, cacheKey: cacheKey)
    }

    private func checkRequestedUncached(_ resolved: ResolvedClass, uid: Int, key: String, cacheKey: UInt) throws {
        let found: Any.Type
        switch resolved.kind {
        case .standard: return  // decoded to Swift values, checked by type as always; their contents in turn
        case .custom(let t): found = t
        case .codable(let t): found = t
        case .generic: found = ArchivedObject.self
        }
        if case .refused = verdict(found: found) {
            throw error(.classNotAllowed,
                        "secure coding: class \"\(resolved.chain.first ?? "")\" (\(found)) is not among the types asked for: \(requestDescription)",
                        key: key, uid: uid, chain: resolved.chain)
        }
        guard cacheKey != 0 else { return }
        if resolved.slot >= state.pointee.allowedRequests.count {
            state.pointee.allowedRequests.append(
                contentsOf: repeatElement(0, count: resolved.slot + 1 - state.pointee.allowedRequests.count))
        }
        state.pointee.allowedRequests[resolved.slot] = cacheKey
    }
}
