import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The keyed archiver as the field writer the Foundation classes' files (`ArchiveModel/Foundation/Classes/`)
/// encode with.
extension KeyedArchiver: KeyedFieldWriter {
    package func writeObject(of standard: StandardClass, _ body: () -> Void) -> Int32 {
        withObjectFrame(classUID: { classObject(standard) }, body)
    }

    package func writeSingleObject(of standard: StandardClass) -> Int32 {
        if nullObjectUID < 0 { nullObjectUID = withObjectFrame(classUID: { classObject(standard) }) {} }
        return nullObjectUID
    }

    // The key's node first, then the value's: the order of plist objects every field of the archive keeps.

    package func setInteger(_ value: Int64, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.integer(value))
    }

    package func setReal(_ value: Double, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.real(value))
    }

    package func setInlineString(_ string: String, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.string(string))
    }

    package func setData(_ bytes: [UInt8], forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.data(bytes))
    }

    package func setObject(_ value: Any?, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.uid(Int(archiveObject(value))))
    }

    package func setString(_ string: String, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.uid(Int(stringObject(string))))
    }

    package func setIntegerObject(_ value: Int64, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.uid(Int(integerObject(value))))
    }

    package func setDataObject(_ data: Data, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.uid(Int(dataObject(data))))
    }

    package func setMutableObject(className: String, value: Any, forRawKey key: String) {
        let k = keyNode(key)
        addField(k, state.pointee.builder.uid(Int(mutableObject(ArchivedMutableObject(className: className, value: value)))))
    }

    package func recordInvalidValue(_ reason: String) {
        record(KeyedArchiveError(.invalidValue, reason))
    }

    /// A bare `NSString`, uniqued by value: the builder uniques the string's plist node (one hash of the
    /// string), and the node's object UID is kept in an array indexed by node.
    package func stringObject(_ s: String) -> Int32 {
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

    /// A bare `NSData`.
    package func dataObject(_ d: Data) -> Int32 { bareObject(state.pointee.builder.data(d)) }

    /// A bare `NSNumber` boolean, one object per archive for each of `true` and `false`.
    func boolObject(_ b: Bool) -> Int32 {
        let slot = b ? 1 : 0
        if boolObjects[slot] < 0 { boolObjects[slot] = bareObject(state.pointee.builder.bool(b)) }
        return boolObjects[slot]
    }

    /// A bare `NSNumber` integer, uniqued by value.
    func integerObject(_ i: Int64) -> Int32 {
        if let uid = integerObjects[i] { return uid }
        let uid = bareObject(state.pointee.builder.integer(i))
        integerObjects[i] = uid
        return uid
    }

    /// A bare `NSNumber` real, uniqued by its bits.
    func realObject(_ d: Double) -> Int32 {
        if let uid = realObjects[d.bitPattern] { return uid }
        let uid = bareObject(state.pointee.builder.real(d))
        realObjects[d.bitPattern] = uid
        return uid
    }

    /// An `NSDate` object, by `ArchiveModel`'s `NSDateClass`.
    func dateObject(_ date: Date) -> Int32 { NSDateClass.encode(keyed: date, to: self) }
    /// An `NSUUID` object, by `ArchiveModel`'s `NSUUIDClass`.
    func uuidObject(_ uuid: UUID) -> Int32 { NSUUIDClass.encode(keyed: uuid, to: self) }
    /// An `NSURL` object, by `ArchiveModel`'s `NSURLClass`.
    func urlObject(_ url: URL) -> Int32 { NSURLClass.encode(keyed: url, to: self) }
    /// The archive's one `NSNull` object, by `ArchiveModel`'s `NSNullClass`.
    func nullObject() -> Int32 { NSNullClass.encode(keyed: ArchivedNull(), to: self) }
}
