import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
extension KeyedUnarchiver {
    /// Converts a field value (inline scalar or reference) to `T`, checking the type at every call.
    func typed<T>(_ v: ArchiveObjectReader.Value, _: T.Type, key: String) throws -> T? {
        let value: Any
        switch v {
        case .uid(let uid):
            guard let object = try decodeObject(uid, key: key) else { return nil }
            value = object
        case .integer(let i): value = i.int64Value.map { Int($0) as Any } ?? (i.uint64Value.map { $0 as Any } ?? i)
        case .real(let d): value = d
        case .bool(let b): value = b
        case .other(let p): value = Self.bareValue(p)
        case .array, .dictionary: throw mismatch(key, "\(T.self)", v)
        }
        return try convert(value, T.self, key: key, uid: { if case .uid(let u) = v { u } else { nil } }())
    }

    /// A decoded value as `T`: itself, an exact numeric conversion, or an array converted element-wise;
    /// otherwise a type mismatch. (Non-optional, so no `Optional<T>` metadata is looked up per call.)
    func convert<T>(_ value: Any, _: T.Type, key: String, uid: Int?) throws -> T {
        if let t = value as? T { return t }
        if let t = convertNumber(value, to: T.self) { return t }
        if let arrayType = T.self as? ArchiveDecodableArray.Type, let list = value as? [Any],
           let t = arrayType.converting(list, { v, type in self.convertNumber(v, toType: type) }) as? T {
            return t
        }
        throw error(.typeMismatch, "expected \(T.self), found \(Swift.type(of: value))", key: key, uid: uid)
    }

    /// The natural Swift value of a bare plist scalar in `$objects`.
    static func bareValue(_ p: PlistValue) -> Any {
        switch p {
        case .string(let s): return s
        case .integer(let i): return i.int64Value.map { Int($0) as Any } ?? (i.uint64Value.map { $0 as Any } ?? i)
        case .real(let d): return d
        case .bool(let b): return b
        case .data(let d): return Data(d)
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        default: return p
        }
    }

    func convertNumber(_ value: Any, toType type: Any.Type) -> Any? {
        func open<T>(_: T.Type) -> Any? { convertNumber(value, to: T.self) }
        return _openExistential(type, do: open)
    }

    /// Exact numeric conversions between the number types (as Foundation's `NSNumber` bridging allows).
    func convertNumber<T>(_ value: Any, to: T.Type) -> T? {
        let double: Double?
        let integer: Int64?
        switch value {
        case let i as Int: integer = Int64(i); double = Double(exactly: i)
        case let u as UInt64: integer = Int64(exactly: u); double = Double(exactly: u)
        case let d as Double: integer = Int64(exactly: d); double = d
        default: return nil
        }
        switch T.self {
        case is Double.Type: return double as? T
        case is Float.Type: return double.map { Float($0) } as? T
        case is Int.Type: return integer.flatMap { Int(exactly: $0) } as? T
        case is Int64.Type: return integer as? T
        case is Int32.Type: return integer.flatMap { Int32(exactly: $0) } as? T
        case is UInt64.Type: return integer.flatMap { UInt64(exactly: $0) } as? T
        default: return nil
        }
    }

    func typedArray<E>(_ v: ArchiveObjectReader.Value, _: E.Type, key: String) throws -> [E] {
        guard case .uid(let uid) = v, uid > 0 else {
            if case .uid = v { throw error(.valueNotFound, "no value for key \"\(key)\"", key: key) }
            throw mismatch(key, "[\(E.self)]", v)
        }
        let (fields, resolved) = try arrayFields(uid, key: key)
        // One loop, no closure per element: the generic metadata it needs is looked up once. Each element is
        // initialized where the array keeps it (`initialized` counts them, so a throw frees exactly those).
        return try enter(uid, resolved.chain, fields, key: key) {
            guard let refs = try elementArray("NS.objects") else { return [] }
            let casts = elementCasts(E.self)
            return try [E](unsafeUninitializedCapacity: refs.count) { buffer, initialized in
                guard let first = buffer.baseAddress else { return }
                for i in 0..<refs.count {
                    let element = first + i
                    let ref = try reader.elementReference(refs, i)
                    if let u = try reader.uid(ref), u > 0, let object = try decodeObject(u, key: key) {
                        // The cast in the loop, so that the metadata of `E?` is looked up once, not once an
                        // element (and an existential's conformances once a class); `convert` tries it again,
                        // then the numeric conversions, and names the mismatch.
                        if let casts, casts.initialize(element, to: object) {
                            initialized = i + 1
                            continue
                        }
                        if casts == nil, let direct = object as? E {
                            element.initialize(to: direct)
                        } else {
                            element.initialize(to: try convert(object, E.self, key: key, uid: u))
                        }
                        initialized = i + 1
                        continue
                    }
                    guard let e = try typed(reader.value(ref), E.self, key: key) else {
                        throw error(.valueNotFound, "$null element in an array of \(E.self)", key: key)
                    }
                    element.initialize(to: e)
                    initialized = i + 1
                }
            }
        }
    }

    /// The unarchiver's ``ExistentialElementCasts`` for element type `E` (made at its first array, freed with
    /// the unarchiver), or `nil` when `E` is not an existential they serve. Up to 16 element types (as many as
    /// the decoding code names, not the archive); arrays of further ones are cast by the runtime.
    func elementCasts<E>(_: E.Type) -> ExistentialElementCasts? {
        let id = ObjectIdentifier(E.self)
        for entry in state.pointee.elementCasts where entry.type == id { return entry.casts }
        guard state.pointee.elementCasts.count < 16 else { return nil }
        let casts = ExistentialElementCasts.forElements(E.self)
        state.pointee.elementCasts.append((id, casts))
        return casts
    }

    func typedDictionary<K: Hashable, V>(_ v: ArchiveObjectReader.Value, _: K.Type, _: V.Type, key: String) throws -> [K: V] {
        guard let any = try typed(v, [AnyHashable: Any].self, key: key) else {
            throw error(.valueNotFound, "no value for key \"\(key)\"", key: key)
        }
        var result: [K: V] = [:]
        for (k, value) in any {
            guard let tk = k.base as? K ?? convertNumber(k.base, to: K.self) else {
                throw error(.typeMismatch, "expected keys of \(K.self), found \(Swift.type(of: k.base))", key: key)
            }
            guard let tv = value as? V ?? convertNumber(value, to: V.self) else {
                throw error(.typeMismatch, "expected values of \(V.self), found \(Swift.type(of: value))", key: key)
            }
            result[tk] = tv
        }
        return result
    }

    /// The dictionary and resolved class of the `NSArray` / `NSSet` at `uid`.
    func arrayFields(_ uid: Int, key: String) throws -> (ArchiveObjectReader.DictionaryView, ResolvedClass) {
        let (fields, resolved) = try objectFields(uid)
        switch resolved.kind {
        case .standard(.array), .standard(.mutableArray), .standard(.set), .standard(.mutableSet): break
        default:
            throw error(.typeMismatch, "expected an array, found \(resolved.chain.first ?? "")", key: key, uid: uid,
                        chain: resolved.chain)
        }
        return (fields, resolved)
    }

    /// The dictionary and resolved class of `$objects[uid]`.
    func objectFields(_ uid: Int) throws -> (ArchiveObjectReader.DictionaryView, ResolvedClass) {
        let ref = try objectReference(uid)
        guard let fields = try reader.dictionary(ref) else {
            _ = try reader.value(ref)  // a malformed object is a plist error first
            throw error(.typeMismatch, "object \(uid) is not an archived object", uid: uid)
        }
        return (fields, try resolveClass(of: fields, uid: uid))
    }

    /// The resolved class of object `uid`, whose dictionary is `fields`.
    func resolveClass(of fields: ArchiveObjectReader.DictionaryView, uid: Int) throws -> ResolvedClass {
        guard let i = try position(of: .classKey, in: fields) else {
            throw error(.invalidClass, "object \(uid) has no $class", uid: uid)
        }
        let ref = try reader.valueReference(fields, i)
        guard let classUID = try reader.uid(ref) else {
            _ = try reader.value(ref)  // a malformed object is a plist error first
            throw error(.invalidClass, "$class of object \(uid) is not a UID", uid: uid)
        }
        return try resolveClass(classUID, for: uid)
    }

    /// Position of a key of the standard classes in `fields`, first by the plist string object that held it
    /// last (looked for from the end: `$class` is written last), then by comparing strings.
    func position(of known: StandardKey, in fields: ArchiveObjectReader.DictionaryView) throws -> Int? {
        let object = state.pointee.knownKeyObjects[known.rawValue]
        if object >= 0 {
            var i = fields.count
            while i > 0 {
                i -= 1
                if reader.uncheckedKeyReference(fields, i) == object { return i }
            }
        }
        var name = known.name
        let found: (position: Int, object: Int)? = try name.withUTF8 { utf8 in
            for i in 0..<fields.count {
                let ref = try reader.keyReference(fields, i)
                if try reader.isString(ref, equalTo: utf8) { return (i, ref) }
            }
            return nil
        }
        guard let found else { return nil }
        state.pointee.knownKeyObjects[known.rawValue] = found.object
        registerKeyObject(found.object, holding: known.name)
        return found.position
    }

    /// Runs `body` with `uid`'s fields as the current frame, one level deeper.
    @inline(__always)
    func enter<R>(_ uid: Int, _ chain: [String], _ fields: ArchiveObjectReader.DictionaryView, key: String,
                  slot: Int = -1, _ body: () throws -> R) throws -> R {
        var outer = try openFrame(uid, chain, fields, key: key, slot: slot)
        defer { closeFrame(&outer) }
        return try body()
    }

    /// Makes `uid`'s fields the current frame, one level deeper, and returns the frame it replaces, which
    /// ``closeFrame(_:)`` puts back (on every path out, thrown errors included). The hot path of custom
    /// objects calls the pair directly: no closure, so no retain of the unarchiver for a closure's context and
    /// no generic result box per object.
    @inline(__always)
    func openFrame(_ uid: Int, _ chain: [String], _ fields: ArchiveObjectReader.DictionaryView, key: String,
                   slot: Int = -1, keyAnswers: KeyAnswerMemo? = nil) throws -> Frame {
        guard state.pointee.depth < maxDepth else {
            throw error(.depthLimitExceeded, "objects nest deeper than \(maxDepth)", key: key, uid: uid)
        }
        let element = element(under: key)
        // Swapped in and out rather than copied: a copy of a frame retains and releases its class chain.
        var other = Frame(uid: uid, fields: fields, classChain: chain, slot: slot)
        swap(&state.pointee.frame, &other)
        if slot >= 0 { beginKeyLookups(slot: slot, memo: keyAnswers) }
        state.pointee.keyPath.push(key, element: element)
        state.pointee.depth += 1
        return other
    }

    /// Restores the frame ``openFrame(_:_:_:key:slot:)`` replaced.
    @inline(__always)
    func closeFrame(_ outer: inout Frame) {
        state.pointee.depth -= 1
        state.pointee.keyPath.pop()
        swap(&state.pointee.frame, &outer)
    }

    /// An object of a mutable Foundation class as an `ArchivedMutableObject` (classes kept), registered once
    /// read so that every later reference to it gives the same instance. A reference back to it from inside
    /// it is a cycle error, as for the plain value: a mutable collection that holds itself would be a
    /// reference cycle no one frees.
    private func decodeMutable(_ standard: StandardClass, uid: Int, _ resolved: ResolvedClass,
                               _ fields: ArchiveObjectReader.DictionaryView, key: String) throws -> Any {
        state.pointee.inProgress.insert(uid)
        defer { state.pointee.inProgress.remove(uid) }
        let value = try enter(uid, resolved.chain, fields, key: key) { try decodeStandard(standard, uid: uid) }
        let object = ArchivedMutableObject(className: standard.className, value: value)
        state.pointee.instances[uid] = object
        if state.pointee.cycles.isActive { state.pointee.cycles.finished(object, holding: value) }
        return object
    }

    /// Runs `body` with `frame` as the current object (the one whose keys are read), then restores the one
    /// before, swapped rather than copied. The Codable bridge reads its objects' keys through this.
    @inline(__always)
    func onFrame<R>(_ frame: Frame, _ body: () throws -> R) rethrows -> R {
        var other = frame
        swap(&state.pointee.frame, &other)
        defer { swap(&state.pointee.frame, &other) }
        return try body()
    }

    /// The inline array of references under a raw key of the current frame.
    func elementArray(_ rawKey: String) throws -> ArchiveObjectReader.ArrayView? {
        guard let i = try position(ofRawKey: rawKey) else { return nil }
        guard case .array(let a) = try reader.value(reader.valueReference(state.pointee.frame.fields, i)) else {
            throw error(.invalidValue, "\(rawKey) is not an array", key: rawKey)
        }
        return a
    }

    /// The `root` object as `T` (see ``unarchivedRecord(ofType:from:scratch:)``): when it is an object whose
    /// class resolves to `T` itself, with no decode hook, no substitution and no type request in force, `T`'s
    /// `init(coder:)` runs directly, with the same checks, frame and bookkeeping as ``decodeObject(_:key:)``
    /// (an instance of a class `T` registered for later references); anything else takes the general path.
    func decodeRootRecord<T: KeyedArchivable>(_: T.Type) throws -> T {
        let key = "root"
        guard let ref = try valueReference(forKey: key) else { throw missingRoot() }
        if !state.pointee.hooked, !state.pointee.hasSubstitutes, state.pointee.requested.isAnything,
           !state.pointee.keepsMutableClasses, let uid = try reader.uid(ref), uid != 0,
           state.pointee.decodedCount < maxObjects,
           state.pointee.instances[uid] == nil, !state.pointee.inProgress.contains(uid),
           let fields = try reader.dictionary(objectReference(uid, key: key)) {
            let resolved = try resolveClass(of: fields, uid: uid)
            if case .custom(let type) = resolved.kind, ObjectIdentifier(type) == ObjectIdentifier(T.self),
               !resolved.substitutes {
                try checkAllowed(resolved, uid: uid, key: key)
                state.pointee.decodedCount += 1
                var outer = try openFrame(uid, resolved.chain, fields, key: key, slot: resolved.slot,
                                          keyAnswers: resolved.keyAnswers)
                state.pointee.inProgress.insert(uid)
                let object: T
                do {
                    defer {
                        state.pointee.inProgress.remove(uid)
                        closeFrame(&outer)
                    }
                    object = try T(coder: self)
                }
                if let instance = object.archiveIdentity { keep(instance, uid: uid) }
                return object
            }
        }
        return try decodeRootGenerally(ref, T.self)
    }

    /// ``decodeRootRecord(_:)``'s general path: `root` as ``decodeIfPresent(_:forKey:)`` decodes it, `nil`
    /// an error. (Its own function: the `T?` it goes through costs a metadata lookup at run time.)
    @inline(never)
    private func decodeRootGenerally<T>(_ ref: Int, _: T.Type) throws -> T {
        guard let value = try typed(reader.value(ref), T.self, key: "root") else { throw missingValue("root") }
        return value
    }

    /// Decodes `$objects[uid]` to its natural Swift value (`nil` for `$null`).
    func decodeObject(_ uid: Int, key: String) throws -> Any? {
        if uid == 0 { return nil }
        state.pointee.decodedCount += 1
        guard state.pointee.decodedCount <= maxObjects else {
            throw error(.elementLimitExceeded, "more than \(maxObjects) objects decoded", key: key, uid: uid)
        }
        let ref = try objectReference(uid, key: key)
        if let instance = state.pointee.instances[uid] {
            // Shared: decoded before. A type asked for is checked by `as?` after; a list of types here.
            if case .list = state.pointee.requested { try checkListed(instance, uid: uid, key: key) }
            if state.pointee.cycles.isActive {
                if let generic = instance as? ArchivedObject {
                    state.pointee.cycles.reference(generic)
                } else if let mutable = instance as? ArchivedMutableObject {
                    state.pointee.cycles.reference(mutable)
                }
            }
            return instance
        }
        if state.pointee.hasSubstitutes, let value = state.pointee.substituted[uid] { return value }
        if state.pointee.inProgress.contains(uid) {
            throw error(.cycle,
                        "object \(uid) refers back to an object still being decoded (a cycle through a value type, or a key not read with decodeDeferred)",
                        key: key, uid: uid)
        }
        guard let fields = try reader.dictionary(ref) else {
            let entry = try reader.value(ref)
            let value: Any
            switch entry {
            case .integer(let i): value = i.int64Value.map { Int($0) as Any } ?? (i.uint64Value.map { $0 as Any } ?? i)
            case .real(let d): value = d
            case .bool(let b): value = b
            case .other(let p) where !p.isCollection && p != .null: value = Self.bareValue(p)
            default:
                throw error(.invalidValue, "object \(uid) is \(describe(entry)), not an archived object", key: key, uid: uid)
            }
            return state.pointee.hooked ? try substitute(value, uid: uid) : value
        }
        let resolved = try resolveClass(of: fields, uid: uid)
        try checkAllowed(resolved, uid: uid, key: key)
        switch resolved.kind {
        case .standard(let standard):
            if state.pointee.keepsMutableClasses, standard.isMutable {
                return try decodeMutable(standard, uid: uid, resolved, fields, key: key)
            }
            // Value-typed collections cannot hold themselves: a reference back into one is a cycle error.
            state.pointee.inProgress.insert(uid)
            defer { state.pointee.inProgress.remove(uid) }
            let value: Any = try enter(uid, resolved.chain, fields, key: key) { try decodeStandard(standard, uid: uid) }
            return state.pointee.hooked ? try substitute(value, uid: uid) : value
        case .custom(let type):
            // A registered type reads plain values; an object of an unknown class keeps classes as its reader does.
            let keeps = state.pointee.keepsMutableClasses
            if keeps, ObjectIdentifier(type) != ObjectIdentifier(ArchivedObject.self) { state.pointee.keepsMutableClasses = false }
            defer { if keeps { state.pointee.keepsMutableClasses = true } }
            return try withRequestChecked(resolved, uid: uid, key: key) {
                if resolved.substitutes { return try decodeSubstituting(type, uid: uid, resolved, fields, key: key) }
                var outer = try openFrame(uid, resolved.chain, fields, key: key, slot: resolved.slot,
                                          keyAnswers: resolved.keyAnswers)
                state.pointee.inProgress.insert(uid)
                let object: any KeyedArchivable
                do {
                    // On every path out: a caller that catches a thrown error and reads the object again gets
                    // the same error, not a cycle.
                    defer {
                        state.pointee.inProgress.remove(uid)
                        closeFrame(&outer)
                    }
                    object = try type.init(coder: self)
                }
                if state.pointee.hooked { return try register(object, replacement: nil, uid: uid) }
                // A class instance is returned as the reference it is registered as (what a later reference to
                // it returns too): an `Any` of the class, with no copy of the `any KeyedArchivable` box into it.
                guard let instance = object.archiveIdentity else { return object }
                keep(instance, uid: uid)
                return instance
            }
        case .codable(let type):
            return try withRequestChecked(resolved, uid: uid, key: key) {
                let value = try decodeCodableObject(uid, type, key: key)
                return state.pointee.hooked ? try substitute(value, uid: uid) : value
            }
        case .generic:
            if !state.pointee.requested.isAnything { try checkRequested(resolved, uid: uid, key: key) }
            let object = ArchivedObject(classChain: resolved.chain)
            state.pointee.instances[uid] = object
            try enter(uid, resolved.chain, fields, key: key) { try decodeAllFields(into: object) }
            return state.pointee.hooked ? try substitute(object, uid: uid) : object
        }
    }

    /// Registers the class instance decoded for `uid`, which later references to it get, and hands it to the
    /// deferred references that waited for it.
    @inline(__always)
    private func keep(_ instance: AnyObject, uid: Int) {
        state.pointee.instances[uid] = instance
        if !state.pointee.pending.isEmpty, let waiting = state.pointee.pending.removeValue(forKey: uid) {
            for assign in waiting { assign(instance) }
        }
    }

    /// Decodes a custom object of a ``KeyedArchiveSubstituting`` type: `awakeAfter(using:)` runs right after
    /// `init(coder:)`, with the unarchiver still on the object's keys, and its result is registered.
    private func decodeSubstituting(_ type: any KeyedArchivable.Type, uid: Int, _ resolved: ResolvedClass,
                                    _ fields: ArchiveObjectReader.DictionaryView, key: String) throws -> Any? {
        state.pointee.inProgress.insert(uid)
        var replacement: Any?? = nil
        let object: any KeyedArchivable
        do {
            defer { state.pointee.inProgress.remove(uid) }
            object = try enter(uid, resolved.chain, fields, key: key, slot: resolved.slot) {
                let object = try type.init(coder: self)
                if let substituting = object as? any KeyedArchiveSubstituting {
                    replacement = .some(try substituting.awakeAfter(using: self))
                }
                return object
            }
        }
        return try register(object, replacement: replacement, uid: uid)
    }

    /// Registers a custom object that `awakeAfter(using:)` replaced (`replacement`) or that the
    /// ``didDecode`` hook sees: the result is shared by UID (an instance in the instance table, a value or
    /// `nil` kept aside), and deferred references get it when it is an instance (the object otherwise).
    private func register(_ object: any KeyedArchivable, replacement: Any??, uid: Int) throws -> Any? {
        var result: Any? = object
        if let replacement { result = replacement }
        if state.pointee.hooked, let current = result, let hook = state.pointee.didDecode { result = try hook(current) }
        let instance: AnyObject?
        if let result, type(of: result) is AnyClass {
            instance = result as AnyObject
            state.pointee.instances[uid] = instance
        } else {
            instance = object.archiveIdentity
            state.pointee.substituted.updateValue(result, forKey: uid)
        }
        if !state.pointee.pending.isEmpty, let instance, let waiting = state.pointee.pending.removeValue(forKey: uid) {
            for assign in waiting { assign(instance) }
        }
        return result
    }

    /// Runs the ``didDecode`` hook on a decoded value once per UID.
    private func substitute(_ value: Any, uid: Int) throws -> Any? {
        guard let hook = state.pointee.didDecode else { return value }
        let result = try hook(value)
        if let result, type(of: result) is AnyClass {
            state.pointee.instances[uid] = result as AnyObject
        } else {
            state.pointee.instances[uid] = nil  // an ArchivedObject registered before its fields were read
            state.pointee.substituted.updateValue(result, forKey: uid)
        }
        return result
    }

    /// Reads every field of the current object into a generic object, raw keys and all. An object found to
    /// close a cycle of generic objects moves them into an `ArchivedObjectGraph`; when reading fails, the
    /// fields read into it and into the objects read inside it that are still open are dropped, so that a
    /// failed decode leaves no cycle either.
    ///
    /// The object goes on the cycle finder's stack only when its first reference is read: one whose fields
    /// hold none (most objects: scalars only) refers to nothing, so it is on no cycle, and nothing read
    /// inside it could refer back to it.
    package func decodeAllFields(into object: ArchivedObject) throws {
        var tracked = false
        do {
            try readAllFields(into: object, tracked: &tracked)
        } catch {
            if tracked {
                for member in state.pointee.cycles.abandon(object) { member.dropOwnFields() }
            } else {
                object.dropOwnFields()
            }
            throw error
        }
        if tracked, let members = state.pointee.cycles.end(object) { ArchivedObjectGraph.adopt(members) }
    }

    /// Puts `object` on the cycle finder's stack before its first reference is decoded.
    @inline(__always)
    private func track(_ object: ArchivedObject, _ tracked: inout Bool) {
        if !tracked {
            state.pointee.cycles.begin(object)
            tracked = true
        }
    }

    private func readAllFields(into object: ArchivedObject, tracked: inout Bool) throws {
        let fields = state.pointee.frame.fields
        // Filled here and handed over once: each append to the object's own array would be an access to a
        // class's property. Each field is made in place in the array (no copy of it into the tuple).
        var read: [(key: String, value: ArchivedObject.Field)] = []
        read.reserveCapacity(fields.count)
        defer { object.adoptFields(read) }
        if state.pointee.fieldKeys.isEmpty { state.pointee.fieldKeys = Array(repeating: (-1, "", false), count: 64) }
        for i in 0..<fields.count {
            let keyReference = try reader.keyReference(fields, i)
            let slot = keyReference & 63
            let key: String
            if state.pointee.fieldKeys[slot].object == keyReference {
                if state.pointee.fieldKeys[slot].isClass { continue }
                key = state.pointee.fieldKeys[slot].key
            } else {
                guard let string = try reader.string(keyReference) else {
                    throw error(.invalidValue, "a key of object \(state.pointee.frame.uid) is not a string")
                }
                let isClass = string == "$class"
                state.pointee.fieldKeys[slot] = (keyReference, string, isClass)
                if isClass { continue }
                key = string
            }
            // A real, the commonest field, read in place (as the typed decode reads one); anything else, or a
            // bad reference, is read below.
            if let d = reader.real(fields, valueAt: i) {
                read.append((key, .value(.real(d))))
                continue
            }
            let reference = try reader.valueReference(fields, i)
            switch try reader.value(reference) {
            case .uid(let uid):
                if uid != 0 { track(object, &tracked) }
                read.append((key, .object(try decodeObject(uid, key: key))))
            case .integer(let n): read.append((key, .value(.integer(n))))
            case .real(let d): read.append((key, .value(.real(d))))
            case .bool(let b): read.append((key, .value(.bool(b))))
            case .other(let p): read.append((key, .value(p)))
            case .array(let a):
                var allUIDs = true
                var values: [ArchiveObjectReader.Value] = []
                for j in 0..<a.count {
                    let e = try reader.value(reader.elementReference(a, j))
                    if case .uid = e {} else { allUIDs = false }
                    values.append(e)
                }
                if allUIDs && a.count > 0 {
                    track(object, &tracked)
                    var list: [Any?] = []
                    for e in values { if case .uid(let u) = e { list.append(try decodeObject(u, key: key)) } }
                    read.append((key, .objects(list)))
                } else {
                    read.append((key, .value(try reader.materialize(reference))))
                }
            case .dictionary: read.append((key, .value(try reader.materialize(reference))))
            }
        }
    }
}
