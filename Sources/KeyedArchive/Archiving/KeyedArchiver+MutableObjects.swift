#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Objects of mutable Foundation classes kept by a reader (`ArchivedMutableObject`), written as Apple writes
/// them: `$classes` the mutable class's chain (`NSMutableString`, `NSString`, `NSObject`), the string and the
/// data in `NS.string` / `NS.data` fields rather than bare, one object per instance.
extension KeyedArchiver {
    func mutableObject(_ object: ArchivedMutableObject) -> Int32 {
        let key = Self.identityKey(ObjectIdentifier(object))
        if let existing = state.pointee.identities[key] { return existing }
        guard let standard = StandardClass(className: object.className), standard.isMutable else {
            record(KeyedArchiveError(.unsupportedType, "\(object.className) is not a mutable Foundation class",
                                     objectIndex: state.pointee.objectNodes.count))
            return 0
        }
        if state.pointee.depth >= maxDepth {
            record(KeyedArchiveError(.depthLimitExceeded, "objects nest deeper than \(maxDepth)",
                                     objectIndex: state.pointee.objectNodes.count))
            return 0
        }
        // Numbered before its contents: a mutable collection that holds itself refers to this UID.
        let uid = newObject()
        state.pointee.identities.insert(key, uid)
        state.pointee.retained.append(object)
        openFrame(uid)
        switch (standard, object.value) {
        case (.mutableArray, let a as any ArchiveEncodableArray): arrayFields(a)
        case (.mutableDictionary, let d as any ArchiveEncodableDictionary): dictionaryFields(d)
        case (.mutableSet, let s as any ArchiveEncodableSet): setFields(s)
        // NSMutableString, NSMutableData, NSMutableOrderedSet, NSMutableIndexSet, NSMutableAttributedString: by their files in ArchiveModel.
        case _ where standard.encodeKeyedFields(object.value, to: self): break
        default:
            record(KeyedArchiveError(.unsupportedType, "an \(object.className) cannot hold a value of type \(type(of: object.value))",
                                     objectIndex: Int(uid)))
        }
        closeFrame(uid, classUID: classObject(standard))
        return uid
    }
}
