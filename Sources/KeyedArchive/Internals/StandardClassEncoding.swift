import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// How the archiver writes the standard Foundation classes, with Apple's keys.
extension KeyedArchiver {
    /// Encodes a value that is not ``KeyedArchivable`` and returns its UID.
    func encodeStandard(_ value: Any) -> Int32 {
        switch value {
        case let s as String: return stringObject(s)
        case let i as Int: return integerObject(Int64(i))
        case let d as Double: return realObject(d)
        case let b as Bool:
            let slot = b ? 1 : 0
            if boolObjects[slot] < 0 { boolObjects[slot] = bareObject(state.pointee.builder.bool(b)) }
            return boolObjects[slot]
        case let d as Data: return dataObject(d)
        case let date as Date: return dateObject(date)
        case let uuid as UUID: return uuidObject(uuid)
        case let url as URL: return urlObject(url)
        case is ArchivedNull:
            if nullObject < 0 { nullObject = withObjectFrame(classUID: { classObject(.null) }) {} }
            return nullObject
        case let v as ArchivedValue: return valueObject(v)
        case let set as ArchivedOrderedSet:
            return withObjectFrame(classUID: { classObject(.orderedSet) }) {
                for (i, element) in set.elements.enumerated() {
                    addField(keyNode("NS.object.\(i)"), state.pointee.builder.uid(Int(encodeObject(element.base))))
                }
            }
        case let i as Int64: return integerObject(i)
        case let i as Int32: return integerObject(Int64(i))
        case let i as Int16: return integerObject(Int64(i))
        case let i as Int8: return integerObject(Int64(i))
        case let u as UInt64:
            if u <= UInt64(Int64.max) { return integerObject(Int64(u)) }
            return bareObject(state.pointee.builder.unsignedInteger(u))
        case let u as UInt: return encodeStandard(UInt64(u))
        case let u as UInt32: return integerObject(Int64(u))
        case let u as UInt16: return integerObject(Int64(u))
        case let u as UInt8: return integerObject(Int64(u))
        case let f as Float: return realObject(Double(f))
        case let optional as ArchiveOptional: return encodeObject(optional.archiveWrapped)
        case let array as ArchiveEncodableArray:
            return withObjectFrame(classUID: { classObject(.array) }) {
                addField(keyNode("NS.objects"), uidArray(array))
            }
        case let dictionary as ArchiveEncodableDictionary:
            let entries = dictionary.archiveEntries.sorted { deterministicOrder($0.key, $1.key) }
            return withObjectFrame(classUID: { classObject(.dictionary) }) {
                let keys = uidArray(entries.map { $0.key.base })
                let values = uidArray(entries.map { $0.value })
                addField(keyNode("NS.keys"), keys)
                addField(keyNode("NS.objects"), values)
            }
        case let set as ArchiveEncodableSet:
            let members = set.archiveMembers.sorted(by: deterministicOrder)
            return withObjectFrame(classUID: { classObject(.set) }) {
                addField(keyNode("NS.objects"), uidArray(members.map { $0.base }))
            }
        case let pairs as OrderedPairs:
            return withObjectFrame(classUID: { classObject(.dictionary) }) {
                let keys = uidArray(pairs.keys)
                let values = uidArray(pairs.values)
                addField(keyNode("NS.keys"), keys)
                addField(keyNode("NS.objects"), values)
            }
        case let set as OrderedMembers:
            return withObjectFrame(classUID: { classObject(.set) }) { addField(keyNode("NS.objects"), uidArray(set.members)) }
        case let bytes as [UInt8]:
            return bareObject(state.pointee.builder.data(bytes))
        case let encodable as any Encodable:
            return encodeCodableValue(encodable)
        default:
            record(KeyedArchiveError(.unsupportedType,
                                     "a value of type \(type(of: value)) is not KeyedArchivable nor a standard class",
                                     objectIndex: state.pointee.objectNodes.count))
            return 0
        }
    }

    /// A bare `NSString`, uniqued by value: the builder uniques the string's plist node (one hash of the
    /// string), and the node's object UID is kept in an array indexed by node.
    func stringObject(_ s: String) -> Int32 {
        let node = Int(state.pointee.builder.string(s))
        if node < state.pointee.stringUIDs.count {
            if state.pointee.stringUIDs[node] >= 0 { return state.pointee.stringUIDs[node] }
        } else {
            state.pointee.stringUIDs.append(contentsOf: repeatElement(-1, count: node - state.pointee.stringUIDs.count + 1))
        }
        let uid = bareObject(Int32(truncatingIfNeeded: node))
        state.pointee.stringUIDs[node] = uid
        return uid
    }

    func dataObject(_ d: Data) -> Int32 { bareObject(state.pointee.builder.data(d)) }

    /// An `NSArray`. Elements of one archivable type are encoded without boxing each in `Any` and looking up
    /// its conformance; an element of another dynamic type (a subclass) takes the general path, as all do
    /// when `Element` is not archivable.
    func arrayObject<Element>(_ array: [Element]) -> Int32 {
        guard let archivable = Element.self as? any KeyedArchivable.Type else { return encodeObject(array) }
        func encodeElements<A: KeyedArchivable>(_: A.Type) -> Int32 {
            // `A` is `Element` opened: a reinterpretation, not an element-by-element `as?` copy.
            guard A.self == Element.self else { return encodeObject(array) }
            let elements = unsafeBitCast(array, to: [A].self)
            return withObjectFrame(classUID: { classObject(.array) }) {
                let key = knownKeyNode(.objects)
                var refs: [Int32] = []
                refs.reserveCapacity(elements.count)
                for element in elements {
                    let uid = type(of: element) == A.self ? encodeArchivable(element) : encodeObject(element)
                    refs.append(state.pointee.builder.uid(Int(uid)))
                }
                addField(key, state.pointee.builder.collection(.array, refs))
            }
        }
        return encodeElements(archivable)
    }

    /// An `NSDictionary` of strings, keys in ascending order (as ``deterministicOrder(_:_:)`` orders strings).
    func stringDictionaryObject(_ dictionary: [String: String]) -> Int32 {
        let entries = dictionary.sorted { $0.key < $1.key }
        return withObjectFrame(classUID: { classObject(.dictionary) }) {
            var refs: [Int32] = []
            refs.reserveCapacity(entries.count)
            for entry in entries { refs.append(state.pointee.builder.uid(Int(stringObject(entry.key)))) }
            let keys = state.pointee.builder.collection(.array, refs)
            refs.removeAll(keepingCapacity: true)
            for entry in entries { refs.append(state.pointee.builder.uid(Int(stringObject(entry.value)))) }
            let values = state.pointee.builder.collection(.array, refs)
            addField(knownKeyNode(.keys), keys)
            addField(knownKeyNode(.objects), values)
        }
    }

    /// An `NSDate` object (`NS.time`).
    func dateObject(_ date: Date) -> Int32 {
        withObjectFrame(classUID: { classObject(.date) }) {
            addField(knownKeyNode(.time), state.pointee.builder.real(date.timeIntervalSinceReferenceDate))
        }
    }

    /// An `NSUUID` object (`NS.uuidbytes`).
    func uuidObject(_ uuid: UUID) -> Int32 {
        withObjectFrame(classUID: { classObject(.uuid) }) {
            let u = uuid.uuid
            let bytes: [UInt8] = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
            addField(keyNode("NS.uuidbytes"), state.pointee.builder.data(bytes))
        }
    }

    /// An `NSURL` object (`NS.base`, `NS.relative`).
    func urlObject(_ url: URL) -> Int32 {
        withObjectFrame(classUID: { classObject(.url) }) {
            let base = url.baseURL
            addField(keyNode("NS.base"), state.pointee.builder.uid(Int(encodeObject(base))))
            let relative = base == nil ? url.absoluteString : url.relativeString
            addField(keyNode("NS.relative"), state.pointee.builder.uid(Int(stringObject(relative))))
        }
    }

    func integerObject(_ i: Int64) -> Int32 {
        if let uid = integerObjects[i] { return uid }
        let uid = bareObject(state.pointee.builder.integer(i))
        integerObjects[i] = uid
        return uid
    }

    func realObject(_ d: Double) -> Int32 {
        if let uid = realObjects[d.bitPattern] { return uid }
        let uid = bareObject(state.pointee.builder.real(d))
        realObjects[d.bitPattern] = uid
        return uid
    }

    private func valueObject(_ v: ArchivedValue) -> Int32 {
        withObjectFrame(classUID: { classObject(.value) }) {
            let f = ArchivedValue.format
            switch v {
            case .point(let x, let y):
                addField(keyNode("NS.pointval"), state.pointee.builder.uid(Int(stringObject("{\(f(x)), \(f(y))}"))))
            case .size(let w, let h):
                addField(keyNode("NS.sizeval"), state.pointee.builder.uid(Int(stringObject("{\(f(w)), \(f(h))}"))))
            case .rect(let x, let y, let w, let h):
                addField(keyNode("NS.rectval"),
                         state.pointee.builder.uid(Int(stringObject("{{\(f(x)), \(f(y))}, {\(f(w)), \(f(h))}}"))))
            case .range(let location, let length):
                addField(keyNode("NS.rangeval.length"), state.pointee.builder.uid(Int(integerObject(Int64(length)))))
                addField(keyNode("NS.rangeval.location"), state.pointee.builder.uid(Int(integerObject(Int64(location)))))
            case .edgeInsets(let top, let left, let bottom, let right):
                addField(keyNode("NS.edgeval.top"), state.pointee.builder.real(top))
                addField(keyNode("NS.edgeval.left"), state.pointee.builder.real(left))
                addField(keyNode("NS.edgeval.bottom"), state.pointee.builder.real(bottom))
                addField(keyNode("NS.edgeval.right"), state.pointee.builder.real(right))
            }
            addField(keyNode("NS.special"), state.pointee.builder.integer(Int64(v.special)))
        }
    }
}
