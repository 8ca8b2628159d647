/// What a class dictionary of the archive resolved to, read once per class UID and shared by every object of
/// that class: a reference, so handing it to each object costs one retain, not a copy of its chain, kind and
/// name (several retains and releases an object).
final class ResolvedClass {
    enum Kind {
        case standard(StandardClass)
        case custom(any KeyedArchivable.Type)
        /// A Codable type registered through the Codable bridge (``ArchiveCodable``).
        case codable(any ArchiveCodable.Type)
        case generic
    }

    let chain: [String]
    let kind: Kind
    /// Whether the type takes part in object substitution (``KeyedArchiveSubstituting``).
    let substitutes: Bool
    /// Index of this class's key request cache.
    let slot: Int
    /// The `$classname` when the registry has no type for it: such a class is an ``KeyedArchiveError/Code/unknownClass``
    /// error for the NSCoding path (``KeyedUnarchiver/resolveClass(_:for:)``); the Codable bridge may still
    /// decode it as a statically named type. `nil` for a class the registry resolved.
    let unregisteredName: String?
    /// Whether the `allowedTypes` of the unarchiver that resolved the class admit it (always when it has
    /// none, and for the standard classes): decided once per class, not once per object.
    let allowed: Bool
    /// Codable bridge: the last Swift type found named in `chain` (checked once per class and type).
    var verified: ObjectIdentifier?
    /// The key lookups of the class's objects kept across the archives of one scratch (``KeyAnswerMemo``):
    /// shared by every class resolved as this one; `nil` outside a scratch and for the standard classes.
    let keyAnswers: KeyAnswerMemo?

    /// A class resolved as `template` was, in another archive (``ClassMemo``), at `slot` of this one.
    init(resolvedAs template: ResolvedClass, slot: Int) {
        chain = template.chain
        kind = template.kind
        substitutes = template.substitutes
        self.slot = slot
        unregisteredName = template.unregisteredName
        allowed = template.allowed
        keyAnswers = template.keyAnswers
    }

    init(chain: [String], kind: Kind, slot: Int, unregisteredName: String?, allowedTypes: [Any.Type]?,
         keepsKeyAnswers: Bool = false) {
        self.chain = chain
        self.kind = kind
        self.slot = slot
        self.unregisteredName = unregisteredName
        if keepsKeyAnswers, case .custom = kind { keyAnswers = KeyAnswerMemo() } else { keyAnswers = nil }
        if let allowedTypes, let type = Self.decodedType(of: kind) {
            allowed = allowedTypes.contains(where: { isType(type, kindOf: $0) })
        } else {
            allowed = true
        }
        if case .custom(let t) = kind { substitutes = t is any KeyedArchiveSubstituting.Type } else { substitutes = false }
    }

    /// The type objects of `kind` decode as, which allowed types are checked against; `nil` for a standard
    /// class (always allowed: its contents are checked in turn).
    static func decodedType(of kind: Kind) -> Any.Type? {
        switch kind {
        case .standard: nil
        case .custom(let t): t
        case .codable(let t): t
        case .generic: ArchivedObject.self
        }
    }

    /// How a registered type reads from a keyed archive: by ``KeyedArchivable`` or through the Codable bridge;
    /// `nil` for a type that does neither (one registered for typedstreams only).
    static func keyedKind(of type: any ArchivableClass.Type) -> Kind? {
        if let keyed = type as? any KeyedArchivable.Type { return .custom(keyed) }
        if let codable = type as? any ArchiveCodable.Type { return .codable(codable) }
        return nil
    }
}

extension KeyedUnarchiver {
    /// Reads and resolves the class dictionary at `classUID` (cached per UID); a class the registry does not
    /// know is an ``KeyedArchiveError/Code/unknownClass`` error.
    func resolveClass(_ classUID: Int, for uid: Int) throws -> ResolvedClass {
        let resolved = try classEntry(classUID, for: uid)
        if let name = resolved.unregisteredName {
            let why = registry.type(forClassName: name) == nil ? "is not registered"
                : "is registered but adopts neither KeyedArchivable nor ArchiveCodable"
            throw error(.unknownClass, "class \"\(name)\" \(why) (its $classes: \(resolved.chain.joined(separator: ", ")))",
                        uid: uid, chain: resolved.chain)
        }
        return resolved
    }


    /// The one cache of class dictionaries, for both coding paths: the class at `classUID`, read and resolved
    /// the first time, with ``ResolvedClass/unregisteredName`` set when the registry does not know it.
    func classEntry(_ classUID: Int, for uid: Int) throws -> ResolvedClass {
        if let c = state.pointee.classCache.lookup(classUID) { return c }
        func bad(_ reason: String) -> KeyedArchiveError {
            error(.invalidClass, reason, uid: uid)
        }
        guard classUID > 0 else { throw bad("$class is $null") }
        guard case .dictionary(let d) = try reader.value(objectReference(classUID)) else {
            throw bad("$class refers to object \(classUID), which is not a class dictionary")
        }
        // A scratch's decodes share one registry and no allowed types: a class dictionary holding the same
        // names as one an earlier decode resolved resolves the same way.
        let memo = allowedTypes == nil ? scratch : nil
        if let memo, let template = memo.classMemo.match(d, reader) {
            // The template itself when it has this slot (a store's records resolve their classes in the same
            // order each archive): its fields are the same, so one object serves every archive.
            let slot = state.pointee.requestCacheCount
            return keep(template.slot == slot ? template : ResolvedClass(resolvedAs: template, slot: slot), at: classUID)
        }
        var name: String?
        var chain: [String]?
        for i in 0..<d.count {
            // The two keys compared as the bytes the document holds: no string is made for them.
            let keyReference = try reader.keyReference(d, i)
            if try reader.isString(keyReference, "$classname") {
                name = try reader.string(reader.valueReference(d, i))
                if name == nil { throw bad("$classname of class object \(classUID) is not a string") }
            } else if try reader.isString(keyReference, "$classes") {
                guard case .array(let a) = try reader.value(reader.valueReference(d, i)) else {
                    throw bad("$classes of class object \(classUID) is not an array")
                }
                var names: [String] = []
                names.reserveCapacity(a.count)
                for j in 0..<a.count {
                    guard let s = try reader.string(reader.elementReference(a, j)) else {
                        throw bad("$classes of class object \(classUID) holds a non-string")
                    }
                    names.append(s)
                }
                chain = names
            }
        }
        guard let name else { throw bad("class object \(classUID) has no $classname") }
        let fullChain = chain ?? [name]
        var kind = ResolvedClass.Kind.generic
        var unregistered: String?
        // A class the registry's fallback resolved is not remembered: the fallback is the caller's code.
        var remembered = true
        if let registered = registry.type(forClassName: name) {
            // A type registered for typedstreams only is no type here.
            if let keyed = ResolvedClass.keyedKind(of: registered) { kind = keyed } else { unregistered = name }
        } else if let standard = StandardClass(className: name) {
            kind = .standard(standard)
        } else {
            // The fallback is the caller's code, asked once per class in each archive: a class that reached it is
            // not remembered, whatever it answered (nil included).
            if registry.hasFallback { remembered = false }
            if let fallback = registry.fallbackType(forClassName: name, classChain: fullChain) {
                if let keyed = ResolvedClass.keyedKind(of: fallback) { kind = keyed } else { unregistered = name }
            } else if !registry.decodesUnknownClassesAsArchivedObjects {
                unregistered = name
            }
        }
        let resolved = ResolvedClass(chain: fullChain, kind: kind, slot: state.pointee.requestCacheCount,
                                     unregisteredName: unregistered, allowedTypes: allowedTypes,
                                     keepsKeyAnswers: memo != nil && remembered)
        if let memo, remembered { memo.classMemo.remember(resolved, named: name, chain: chain) }
        return keep(resolved, at: classUID)
    }

    /// Files `resolved` as the class at `classUID` of this archive, with its key request cache.
    private func keep(_ resolved: ResolvedClass, at classUID: Int) -> ResolvedClass {
        _ = state.pointee.newRequestCache()
        state.pointee.classCache[classUID] = resolved
        return resolved
    }

    /// Secure decoding: whether the caller allowed this class (decided when the class was resolved).
    @inline(__always)
    func checkAllowed(_ resolved: ResolvedClass, uid: Int, key: String? = nil) throws {
        if !resolved.allowed { throw notAllowed(resolved, uid: uid, key: key) }
    }

    @inline(never)
    private func notAllowed(_ resolved: ResolvedClass, uid: Int, key: String?) -> KeyedArchiveError {
        let type: Any.Type = ResolvedClass.decodedType(of: resolved.kind) ?? ArchivedObject.self
        return error(.classNotAllowed,
                     "class \"\(resolved.chain.first ?? "")\" (\(type)) is not among the allowed types: \(SecureCoding.describe(allowedTypes ?? []))",
                     key: key, uid: uid, chain: resolved.chain)
    }
}
