import BinaryPlist
import KeyedArchive

/// `ArchivedObject`s written back as the groups they were read from: an object read from a typedstream
/// carries its class versions and type encodings (``TypedStreamUnarchiver/versionsKey``,
/// ``TypedStreamUnarchiver/typesKey``) and its values as `$0`, `$1`, ...; one read from a keyed archive
/// carries keys, which a typedstream cannot hold, unless they are all unkeyed values (`$0`, `$1`, ...),
/// which are written with the types their values have (`q`, `d`, `c` for a boolean, `@` otherwise).
extension TypedStreamArchiver {
    func writeArchivedObject(_ object: ArchivedObject) {
        let fields = object.fields
        var versions: [Int] = []
        var types: [String]?
        var leaves: [ArchivedObject.Field] = []
        for (key, value) in fields {
            switch (key, value) {
            case (TypedStreamUnarchiver.versionsKey, .value(.array(let list))):
                versions = list.map { $0.integerValue?.intValue ?? 0 }
            case (TypedStreamUnarchiver.typesKey, .value(.array(let list))):
                types = list.map { $0.stringValue ?? "" }
            default:
                guard Self.isUnkeyed(key) else {
                    record(TypedStreamError(.unsupportedType, "an object of class \(object.className) has the keyed field \"\(key)\", which a typedstream cannot hold"))
                    return writer.byte(TypedStreamTag.nil)
                }
                leaves.append(value)
            }
        }
        let chain = object.classChain.enumerated().map { (name: $0.element, version: $0.offset < versions.count ? versions[$0.offset] : 0) }
        writeNewObject(chain, identity: object) {
            guard let types else {
                for leaf in leaves { writeInferredGroup(leaf) }
                return
            }
            var next = 0
            for encoding in types {
                let parsed: [ObjCType]
                do throws(TypedStreamError) { parsed = try ObjCType.parseList(encoding) } catch { return record(error) }
                writeGroupHeader(encoding)
                for t in parsed { writeLeaves(t, leaves, &next, of: object) }
            }
            if next != leaves.count {
                record(TypedStreamError(.invalidValue, "an object of class \(object.className) has \(leaves.count) values for types that take \(next)"))
            }
        }
    }

    private static func isUnkeyed(_ key: String) -> Bool {
        key.count > 1 && key.first == "$" && key.dropFirst().allSatisfy(\.isASCIIDigitCharacter)
    }

    /// One unkeyed field of a keyed-archive object as a group of the type its value has.
    private func writeInferredGroup(_ leaf: ArchivedObject.Field) {
        switch leaf {
        case .value(.integer(let i)):
            let type: ObjCType = i.int64Value != nil ? .longLong : .unsignedLongLong
            writeGroupHeader(type.encoding)
            writeInteger(i, type)
        case .value(.real(let d)):
            writeGroupHeader("d")
            writer.double(d)
        case .value(.bool(let b)):
            writeGroupHeader("c")
            writer.byte(b ? 1 : 0)
        case .value(let p):
            writeGroupHeader("@")
            writePlistValue(p)
        case .object(let o):
            encodeObject(o)
        case .objects(let list):
            encodeObject(list.map { $0 as Any })
        }
    }

    /// The values of one type from `leaves`, starting at `next`.
    private func writeLeaves(_ type: ObjCType, _ leaves: [ArchivedObject.Field], _ next: inout Int, of object: ArchivedObject) {
        switch type {
        case .void, .ignored: return
        case .array(let count, let element) where element != .char && element != .unsignedChar:
            for _ in 0..<count { writeLeaves(element, leaves, &next, of: object) }
            return
        case .structure(_, let fields):
            for f in fields { writeLeaves(f, leaves, &next, of: object) }
            return
        default: break
        }
        guard next < leaves.count else {
            record(TypedStreamError(.invalidValue, "an object of class \(object.className) has fewer values than its types"))
            return
        }
        let leaf = leaves[next]
        next += 1
        switch (type, leaf) {
        case (.object, .object(let o)): writeObject(o)
        case (.object, .objects(let list)): writeObject(list.map { $0 as Any })
        case (.object, .value(let p)): writePlistValue(p)
        case (_, .object(nil)): writeTyped(nil, type)
        case (_, .value(.integer(let i))): writeTyped(i, type)
        case (_, .value(.real(let d))): writeTyped(d, type)
        case (_, .value(.bool(let b))): writeTyped(b, type)
        case (_, .value(.string(let s))): writeTyped(s, type)
        case (_, .value(.data(let d))): writeTyped(d, type)
        default:
            record(TypedStreamError(.typeMismatch, "a value of an object of class \(object.className) cannot be written as \(type.encoding)"))
        }
    }
}

private extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
