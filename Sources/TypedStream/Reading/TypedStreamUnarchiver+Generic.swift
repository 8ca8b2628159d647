import BinaryPlist
import ArchiveModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Objects of classes nothing decodes, kept whole as `ArchivedObject`s: the class chain, the class
/// versions (``TypedStreamUnarchiver/versionsKey``), each group's type encoding
/// (``TypedStreamUnarchiver/typesKey``) and every value as `$0`, `$1`, ... (structs and arrays flattened,
/// byte arrays as data), so the archiver writes the same groups back.
extension TypedStreamUnarchiver {
    /// Reads the rest of an object of `info` (after the groups already read into `prefix`) through its end.
    /// References back to it while it is read give the same object; cycles of such objects are moved into
    /// one graph as the keyed reader does, so no strong reference cycle is left.
    func decodeGeneric(_ info: ClassInfo, index: Int, prefixTypes: [String] = [],
                       prefixFields: [(key: String, value: ArchivedObject.Field)] = []) throws -> ArchivedObject {
        let object = ArchivedObject(classChain: info.chain)
        table[index] = .inProgress(object)
        cycles.begin(object)
        do {
            var types = prefixTypes.map { PlistValue.string($0) }
            var leaves = prefixFields
            while !(try atEndOfObject()) {
                let group = try readGroupTypes()
                types.append(.string(String(decoding: scanner.sharedStrings[lastGroupString], as: UTF8.self)))
                for t in group { try readLeaves(t, into: &leaves) }
            }
            try endObject()
            let versions = PlistValue.array(info.versions.map { .integer(PlistInteger($0)) })
            object.fields = [(Self.versionsKey, .value(versions)), (Self.typesKey, .value(.array(types)))] + leaves
        } catch {
            for member in cycles.abandon(object) { member.fields = [] }
            throw error
        }
        if let members = cycles.end(object) { ArchivedObjectGraph.adopt(members) }
        return object
    }

    /// Every top-level group to the end of the stream, as an object of an unknown class holds its groups:
    /// each group's type encoding, in order, and the values as fields `$0`, `$1`, ... (one per scalar, string,
    /// object or byte array; structs and arrays flattened).
    package func decodeTopLevelGroups() throws -> (types: [String], values: [(key: String, value: ArchivedObject.Field)]) {
        var types: [String] = []
        var values: [(key: String, value: ArchivedObject.Field)] = []
        while !scanner.isAtEnd {
            let start = scanner.position
            guard types.count < maxObjects else {
                throw error(.elementLimitExceeded, "more than \(maxObjects) top-level groups", at: start)
            }
            let group = try readGroupTypes()
            types.append(String(decoding: scanner.sharedStrings[lastGroupString], as: UTF8.self))
            for t in group { try readLeaves(t, into: &values) }
        }
        return (types, values)
    }

    /// The values of one type as fields `$n`: one per scalar, string, object, class, selector or byte array.
    private func readLeaves(_ type: ObjCType, into leaves: inout [(key: String, value: ArchivedObject.Field)]) throws {
        func add(_ field: ArchivedObject.Field) { leaves.append(("$\(leaves.count)", field)) }
        switch type {
        case .char, .unsignedChar, .short, .unsignedShort, .int, .unsignedInt, .long, .unsignedLong, .longLong,
             .unsignedLongLong:
            add(.value(.integer(try readInteger(type))))
        case .float: add(.value(.real(Double(try scanner.readFloat()))))
        case .double: add(.value(.real(try scanner.readDouble())))
        case .void, .ignored: return
        case .array(let count, let element):
            if element == .char || element == .unsignedChar {
                add(.value(.data(Array(try readByteArray(count)))))
                return
            }
            try checkCount(count, of: element)
            for _ in 0..<count {
                try countObject(at: scanner.position)
                try readLeaves(element, into: &leaves)
            }
        case .structure(_, let fields):
            for f in fields { try readLeaves(f, into: &leaves) }
        case .object:
            add(.object(try readObject()))
        default:
            switch try readValue(type, as: type) {
            case nil: add(.object(nil))
            case let s as String: add(.value(.string(s)))
            case let b as Bool: add(.value(.bool(b)))
            case let d as Data: add(.value(.data(Array(d))))
            case let other?: add(.object(other))
            }
        }
    }
}
