import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Direct paths for the commonest field types (strings, dates, dictionaries of strings), taken before the
/// general path through `Any`. Each either decodes the value exactly as the general path would, or returns
/// `nil` without side effects so that the general path runs and reports any error in its usual words. They
/// step aside while a ``KeyedUnarchiver/didDecode`` hook is set, which must see every object.
extension KeyedUnarchiver {
    /// A bare string object for the field value `ref` (a UID above 0), counted as one decoded object.
    @inline(__always)
    func directString(_ ref: Int) -> String? {
        guard !state.pointee.hooked, let uid = try? reader.uid(ref), uid > 0, uid < objects.count,
              let object = try? reader.elementReference(objects, uid),
              let s = reader.plainString(object), state.pointee.decodedCount < maxObjects
        else { return nil }
        state.pointee.decodedCount += 1
        return s
    }

    /// The `$objects` dictionary and resolved class behind the field value `ref` when it is an object of
    /// `standard` class that may be decoded now (not in progress, within the depth limit).
    @inline(__always)
    private func directStandardObject(_ ref: Int, _ accepts: (StandardClass) -> Bool) -> ArchiveObjectReader.DictionaryView? {
        guard state.pointee.depth < maxDepth, !state.pointee.hooked, let uid = try? reader.uid(ref), uid > 0, uid < objects.count,
              !state.pointee.inProgress.contains(uid), state.pointee.instances[uid] == nil,
              let object = try? reader.elementReference(objects, uid),
              let fields = try? reader.dictionary(object),
              let resolved = try? resolveClass(of: fields, uid: uid),
              case .standard(let standard) = resolved.kind, accepts(standard)
        else { return nil }
        return fields
    }

    /// An `NSDate` object for the field value `ref`.
    func directDate(_ ref: Int) -> Date? {
        guard let fields = directStandardObject(ref, { $0 == .date }),
              let i = try? position(of: .time, in: fields),
              let valueRef = try? reader.valueReference(fields, i),
              let seconds = reader.real(valueRef), seconds.isFinite, state.pointee.decodedCount < maxObjects
        else { return nil }
        state.pointee.decodedCount += 1
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// An `NSDictionary` of bare strings for the field value `ref`; later duplicate keys win, as in the
    /// general path.
    func directStringDictionary(_ ref: Int) -> [String: String]? {
        guard let fields = directStandardObject(ref, { $0 == .dictionary || $0 == .mutableDictionary }),
              let k = try? position(of: .keys, in: fields), let o = try? position(of: .objects, in: fields),
              let keysRef = try? reader.valueReference(fields, k), let objectsRef = try? reader.valueReference(fields, o),
              let keys = try? reader.array(keysRef), let values = try? reader.array(objectsRef),
              keys.count == values.count, state.pointee.decodedCount + 1 + 2 * keys.count <= maxObjects
        else { return nil }
        let counted = state.pointee.decodedCount
        state.pointee.decodedCount += 1
        var result: [String: String] = [:]
        result.reserveCapacity(keys.count)
        for i in 0..<keys.count {
            guard let keyRef = try? reader.elementReference(keys, i), let key = directString(keyRef),
                  let valueRef = try? reader.elementReference(values, i), let value = directString(valueRef)
            else {
                state.pointee.decodedCount = counted
                return nil
            }
            result[key] = value
        }
        return result
    }

    /// The value reference of a user key in the current object, or `nil` when the key is missing.
    @inline(__always)
    func valueReference(forKey key: String) throws -> Int? {
        try checkValid()
        guard let i = try position(ofUserKey: key) else { return nil }
        return try reader.valueReference(state.pointee.frame.fields, i)
    }
}
