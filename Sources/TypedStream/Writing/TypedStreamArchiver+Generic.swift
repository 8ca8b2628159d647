import BinaryPlist
import ArchiveModel

/// `ArchivedObject`s written back as the groups they were read from: an object read from a typedstream
/// carries its class versions and type encodings (``TypedStreamUnarchiver/versionsKey``,
/// ``TypedStreamUnarchiver/typesKey``) and its values as `$0`, `$1`, ...; one read from a keyed archive
/// carries keys, which a typedstream cannot hold, unless they are all unkeyed values (`$0`, `$1`, ...),
/// which are written with the types their values have (`q`, `d`, `c` for a boolean, `@` otherwise).
extension TypedStreamArchiver {
    func writeArchivedObject(_ object: ArchivedObject) {
        let what = "an object of class \(object.className)"
        guard let parts = groups(of: object.fields, what) else { return writer.byte(TypedStreamTag.nil) }
        let versions = parts.versions
        let chain = object.classChain.enumerated().map { (name: $0.element, version: $0.offset < versions.count ? versions[$0.offset] : 0) }
        writeNewObject(chain, identity: object) { writeGroups(parts.types, parts.leaves, what) }
    }

    /// Writes top-level groups held as an object of an unknown class holds its groups: `$types` the type
    /// encodings, `$0`, `$1`, ... the values (without `$types`, each value a group of the type it has). What
    /// the keyed conversion of a stream of several groups holds in its `$top`.
    package func encodeTopLevelGroups(_ fields: [(key: String, value: ArchivedObject.Field)]) {
        let what = "the archive's top level"
        guard let parts = groups(of: fields, what) else { return }
        writeGroups(parts.types, parts.leaves, what)
    }

    /// The class versions, type encodings and values of an object's fields; `nil` (the error recorded) when
    /// a field has a key, which a typedstream cannot hold.
    private func groups(of fields: [(key: String, value: ArchivedObject.Field)], _ what: String)
        -> (versions: [Int], types: [String]?, leaves: [ArchivedObject.Field])? {
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
                    record(TypedStreamError(.unsupportedType, "\(what) has the keyed field \"\(key)\", which a typedstream cannot hold"))
                    return nil
                }
                leaves.append(value)
            }
        }
        return (versions, types, leaves)
    }

    /// The groups of `types` (each a type encoding) with the values `leaves` in order; without types, each
    /// value a group of the type it has.
    private func writeGroups(_ types: [String]?, _ leaves: [ArchivedObject.Field], _ what: String) {
        guard let types else {
            for leaf in leaves { writeInferredGroup(leaf) }
            return
        }
        var next = 0
        for encoding in types {
            let parsed: [ObjCType]
            do throws(TypedStreamError) { parsed = try ObjCType.parseList(encoding) } catch { return record(error) }
            writeGroupHeader(encoding)
            for t in parsed { writeLeaves(t, leaves, &next, of: what) }
        }
        if next != leaves.count {
            record(TypedStreamError(.invalidValue, "\(what) has \(leaves.count) values for types that take \(next)"))
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
    private func writeLeaves(_ type: ObjCType, _ leaves: [ArchivedObject.Field], _ next: inout Int, of what: String) {
        switch type {
        case .void, .ignored: return
        case .array(let count, let element) where element != .char && element != .unsignedChar:
            for _ in 0..<count { writeLeaves(element, leaves, &next, of: what) }
            return
        case .structure(_, let fields):
            for f in fields { writeLeaves(f, leaves, &next, of: what) }
            return
        default: break
        }
        guard next < leaves.count else {
            record(TypedStreamError(.invalidValue, "\(what) has fewer values than its types"))
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
            record(TypedStreamError(.typeMismatch, "a value of \(what) cannot be written as \(type.encoding)"))
        }
    }
}

private extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
