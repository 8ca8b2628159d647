/// Reading one element of a large array without decoding the others: the repository finds a record, or
/// checks that an id is free, by reading each element's id alone and decoding only the element it wants.
extension KeyedUnarchiver {
    /// The UID of the object under `key` of the current object (`nil` when the key is missing or holds
    /// `$null`), without decoding it.
    package func objectUID(forKey key: String) throws -> Int? {
        guard let v = try fieldValue(forKey: key) else { return nil }
        guard case .uid(let uid) = v else { throw mismatch(key, "an object reference", v) }
        guard uid > 0 else { return nil }
        _ = try objectReference(uid, key: key)
        return uid
    }

    /// The UIDs of the elements of the `NSArray` under `key` of the current object, without decoding them.
    /// - Throws: ``KeyedArchiveError/Code/valueNotFound`` when the key is missing, `.typeMismatch` when it is
    ///   not an array, `.invalidValue` when an element is `$null` or not a reference.
    package func elementUIDs(forKey key: String) throws -> [Int] {
        guard let uid = try objectUID(forKey: key) else {
            throw error(.valueNotFound, "no value for key \"\(key)\"", key: key)
        }
        let (fields, resolved) = try arrayFields(uid, key: key)
        return try enter(uid, resolved.chain, fields, key: key) {
            guard let refs = try elementArray("NS.objects") else { return [] }
            var result: [Int] = []
            result.reserveCapacity(refs.count)
            for i in 0..<refs.count {
                guard let element = try reader.uid(reader.elementReference(refs, i)), element > 0 else {
                    throw error(.invalidValue, "element \(i) is not a reference to an object", key: key)
                }
                _ = try objectReference(element, key: key)
                result.append(element)
            }
            return result
        }
    }

    /// Runs `body` with archived object `uid` as the current object, without instantiating it: `body` reads
    /// some of its keys with the usual `decode` methods (as `init(coder:)` would, under `key` in error key
    /// paths). With `type`, the object's class must resolve to that type (or a subclass), as a decode of it as
    /// `type` would require; ``KeyedArchiveError/Code/typeMismatch`` otherwise.
    package func visitObject<R>(_ uid: Int, key: String, as type: Any.Type? = nil, _ body: () throws -> R) throws -> R {
        let (fields, resolved) = try objectFields(uid)
        try checkAllowed(resolved, uid: uid, key: key)
        if let type {
            let found: Any.Type? = switch resolved.kind {
            case .custom(let t): t
            case .codable(let t): t
            case .standard, .generic: nil
            }
            guard let found, isType(found, kindOf: type) else {
                throw error(.typeMismatch, "expected \(type), found \(resolved.chain.first ?? "an object")", key: key,
                            uid: uid, chain: resolved.chain)
            }
        }
        return try enter(uid, resolved.chain, fields, key: key, slot: resolved.slot, body)
    }

    /// Decodes archived object `uid` as `T`, as decoding a reference to it under `key` would.
    package func decodeObject<T>(_ type: T.Type, uid: Int, key: String) throws -> T {
        let saved = state.pointee.requested
        if requiresSecureCoding { state.pointee.requested = .type(T.self, nested: state.pointee.frame.uid >= 0) }
        defer { state.pointee.requested = saved }
        guard let object = try decodeObject(uid, key: key) else {
            throw error(.valueNotFound, "object \(uid) is $null", key: key, uid: uid)
        }
        return try convert(object, T.self, key: key, uid: uid)
    }
}
