import BinaryPlist
import ArchiveModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lets the archiver see through an `Optional` held in an `Any`.
private protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? { self.map { $0 as Any } }
}

/// Objects by Swift type, and values by type encoding.
extension TypedStreamArchiver {
    /// An object (no group header): nil, a reference to an instance written before, or a new object of the
    /// Foundation class or registered type the value stands for.
    func writeObject(_ value: Any?) {
        guard var value else { return writer.byte(TypedStreamTag.nil) }
        while let optional = value as? any AnyOptional {
            guard let inner = optional.wrappedAny else { return writer.byte(TypedStreamTag.nil) }
            value = inner
        }
        switch value {
        case let s as String: NSStringClass.encode(stream: s, to: self)
        case let i as Int: NSNumberClass.encode(stream: Int64(i), to: self)
        case let d as Double: NSNumberClass.encode(stream: d, to: self)
        case let b as Bool: NSNumberClass.encode(stream: b, to: self)
        // Data, Date, URL, NSNull, NSValue and attributed strings, by their files in ArchiveModel (the one list).
        case _ where StandardClass.encodeStream(value, to: self): break
        case let o as ArchivedObject:
            if !writeReferenceIfShared(o) { writeArchivedObject(o) }
        case let m as ArchivedMutableObject:
            if !writeReferenceIfShared(m) { writeMutableObject(m) }
        case let e as any TypedStreamEncodable:
            if let identity = e.archiveIdentity, writeReferenceIfShared(identity) { return }
            let type = Swift.type(of: e)
            var chain = [(name: type.archivedClassName, version: type.typedStreamVersion)]
            chain += type.archivedSuperclassNames.map { (name: $0, version: 0) }
            writeNewObject(chain, identity: e.archiveIdentity) { e.encode(with: self) }
        case let i as Int64: NSNumberClass.encode(stream: i, to: self)
        case let i as Int32: NSNumberClass.encode(stream: Int64(i), to: self)
        case let i as Int16: NSNumberClass.encode(stream: Int64(i), to: self)
        case let i as Int8: NSNumberClass.encode(stream: Int64(i), to: self)
        case let u as UInt64: NSNumberClass.encode(stream: u, to: self)
        case let u as UInt: NSNumberClass.encode(stream: UInt64(u), to: self)
        case let u as UInt32: NSNumberClass.encode(stream: Int64(u), to: self)
        case let u as UInt16: NSNumberClass.encode(stream: Int64(u), to: self)
        case let u as UInt8: NSNumberClass.encode(stream: Int64(u), to: self)
        case let f as Float: NSNumberClass.encode(stream: f, to: self)
        case let bytes as [UInt8] where type(of: value) == [UInt8].self: NSDataClass.encode(stream: bytes, to: self)
        case let p as PlistValue: writePlistValue(p)
        case let array as [Any]: NSArrayClass.encode(stream: array, to: self)
        case let set as Set<AnyHashable>: NSSetClass.encode(stream: set, to: self)
        case let dictionary as [AnyHashable: Any]:
            NSDictionaryClass.encode(stream: dictionary.map { (key: $0.key, value: $0.value) }, to: self)
        default:
            record(TypedStreamError(.unsupportedType, "a value of type \(type(of: value)) is not TypedStreamEncodable nor a Foundation class typedstreams hold"))
            writer.byte(TypedStreamTag.nil)
        }
    }

    /// A property-list value (a scalar of an `ArchivedObject` read from a keyed archive) as the object
    /// Foundation would archive for it.
    func writePlistValue(_ p: PlistValue) {
        switch p {
        case .null: NSNullClass.encode(stream: ArchivedNull(), to: self)
        case .bool(let b): NSNumberClass.encode(stream: b, to: self)
        case .integer(let i):
            if let v = i.int64Value {
                NSNumberClass.encode(stream: v, to: self)
            } else if let u = i.uint64Value {
                NSNumberClass.encode(stream: u, to: self)
            } else {
                record(TypedStreamError(.unsupportedType, "the integer \(i) does not fit 64 bits"))
                writer.byte(TypedStreamTag.nil)
            }
        case .real(let d): NSNumberClass.encode(stream: d, to: self)
        case .date(let d): NSDateClass.encode(stream: Date(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate), to: self)
        case .data(let d): NSDataClass.encode(stream: d, to: self)
        case .string(let s): NSStringClass.encode(stream: s, to: self)
        case .array(let a): NSArrayClass.encode(stream: a.map { $0 as Any }, to: self)
        case .set(let s): NSArrayClass.encode(stream: s.map { $0 as Any }, to: self)
        case .dictionary(let d):
            NSDictionaryClass.encode(stream: d.entries.map { (key: AnyHashable($0.key), value: $0.value as Any) }, to: self)
        case .uid:
            record(TypedStreamError(.unsupportedType, "a keyed-archive UID has no typedstream form"))
            writer.byte(TypedStreamTag.nil)
        }
    }

    /// A value of type `type`, as ``encodeValue(_:ofObjCType:)`` documents.
    func writeTyped(_ value: Any?, _ type: ObjCType) {
        func mismatch() {
            record(TypedStreamError(.typeMismatch, "a value of type \(value.map { "\(Swift.type(of: $0))" } ?? "nil") cannot be written as \(type.encoding)"))
        }
        switch type {
        case .char, .unsignedChar, .short, .unsignedShort, .int, .unsignedInt, .long, .unsignedLong, .longLong,
             .unsignedLongLong:
            guard let integer = Self.integer(value) else { return mismatch() }
            writeInteger(integer, type)
        case .float:
            guard let d = Self.real(value) else { return mismatch() }
            writer.float(Float(d))
        case .double:
            guard let d = Self.real(value) else { return mismatch() }
            writer.double(d)
        case .bool:
            guard let b = value as? Bool else { return mismatch() }
            writer.byte(b ? 1 : 0)
        case .void, .ignored: return
        case .cString:
            switch value {
            case nil: writer.byte(TypedStreamTag.nil)
            case let s as String: writeCString(s)
            case let d as Data: writeCString(bytes: [UInt8](d))
            case let b as [UInt8]: writeCString(bytes: b)
            default: mismatch()
            }
        case .selector, .atom:
            switch value {
            case nil: writer.byte(TypedStreamTag.nil)
            case let s as String: writeSharedString(Array(s.utf8))
            case let d as Data: writeSharedString([UInt8](d))
            case let b as [UInt8]: writeSharedString(b)
            default: mismatch()
            }
        case .objectClass:
            switch value {
            case nil: writer.byte(TypedStreamTag.nil)
            case let s as String: writeClassChain([(name: s, version: 0)])
            default: mismatch()
            }
        case .bytes:
            guard let bytes = Self.bytes(value) else { return mismatch() }
            writer.unsharedString(bytes)
        case .object: writeObject(value)
        case .array(let count, let element):
            if element == .char || element == .unsignedChar {
                guard let bytes = Self.bytes(value), bytes.count == count else { return mismatch() }
                return writer.raw(bytes)
            }
            guard let list = value as? [Any?], list.count == count else { return mismatch() }
            for e in list { writeTyped(e, element) }
        case .structure(_, let fields):
            guard let list = value as? [Any?], list.count == fields.count else { return mismatch() }
            for (f, e) in zip(fields, list) { writeTyped(e, f) }
        }
    }

    /// An integer of type `type`, range-checked: `c`/`C` as a raw byte, the others tagged.
    func writeInteger(_ value: PlistInteger, _ type: ObjCType) {
        let fits = type.fits(value)
        guard fits else {
            record(TypedStreamError(.outOfRange, "\(value) does not fit \(type.encoding)"))
            return writer.byte(0)
        }
        switch type {
        case .char, .unsignedChar: writer.byte(UInt8(truncatingIfNeeded: value.int64Value ?? 0))
        case .unsignedLongLong: writer.unsigned(value.uint64Value ?? 0)
        default:
            if type.isSigned { writer.signed(value.int64Value ?? 0) } else { writer.unsigned(UInt64(value.int64Value ?? 0)) }
        }
    }

    static func integer(_ value: Any?) -> PlistInteger? {
        switch value {
        case let p as PlistInteger: return p
        case let u as UInt64: return PlistInteger(u)
        case let u as UInt: return PlistInteger(UInt64(u))
        case let i as any BinaryInteger: return Int64(exactly: i).map { PlistInteger($0) }
        case let b as Bool: return PlistInteger(b ? 1 : 0)
        default: return nil
        }
    }

    static func real(_ value: Any?) -> Double? {
        switch value {
        case let d as Double: return d
        case let f as Float: return Double(f)
        case let i as any BinaryInteger: return Double(i)
        default: return nil
        }
    }

    static func bytes(_ value: Any?) -> [UInt8]? {
        switch value {
        case let d as Data: return [UInt8](d)
        case let b as [UInt8]: return b
        case let s as String: return Array(s.utf8)
        default: return nil
        }
    }
}

extension TypedStreamArchiver {
    /// An object of a mutable Foundation class kept by a reader, written as that class with `NSArchiver`'s
    /// chain and versions, as one object however often it is referred to.
    func writeMutableObject(_ object: ArchivedMutableObject) {
        guard let foundation = StandardClass(className: object.className), foundation.isMutable,
              foundation.typedStreamChain != nil else {
            record(TypedStreamError(.unsupportedType, "\(object.className) has no typedstream form"))
            return writer.byte(TypedStreamTag.nil)
        }
        switch (foundation, object.value) {
        case (.mutableString, let s as String): NSStringClass.encode(stream: s, as: foundation, identity: object, to: self)
        case (.mutableData, let d as Data): NSDataClass.encode(stream: [UInt8](d), as: foundation, identity: object, to: self)
        case (.mutableArray, let a as [Any]): NSArrayClass.encode(stream: a, as: foundation, identity: object, to: self)
        case (.mutableSet, let s as Set<AnyHashable>): NSSetClass.encode(stream: s, as: foundation, identity: object, to: self)
        case (.mutableDictionary, let d as [AnyHashable: Any]):
            NSDictionaryClass.encode(stream: d.map { (key: $0.key, value: $0.value) }, as: foundation, identity: object, to: self)
        case (.mutableAttributedString, let s as ArchivedAttributedString):
            NSAttributedStringClass.encode(stream: s, as: foundation, identity: object, to: self)
        default:
            record(TypedStreamError(.unsupportedType, "an \(object.className) cannot hold a value of type \(type(of: object.value))"))
            writer.byte(TypedStreamTag.nil)
        }
    }
}
