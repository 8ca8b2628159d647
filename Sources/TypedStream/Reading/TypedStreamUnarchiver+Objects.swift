import BinaryPlist
import ArchiveModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Objects, classes and references: the object table that numbers every literal C string, class and
/// object in the order read, and the choice of how an object of a class is decoded.
extension TypedStreamUnarchiver {
    /// An object: nil, a new one (class chain, values, end of object) or a reference to one read before.
    func readObject() throws -> Any? {
        switch try readHead() {
        case .none:
            return nil
        case .new(let start):
            return try readNewObject(at: start)
        case .reference(let index, let start):
            try countObject(at: start)
            switch table[index] {
            case .object(let value):
                if cycles.isActive {
                    if let generic = value as? ArchivedObject {
                        cycles.reference(generic)
                    } else if let mutable = value as? ArchivedMutableObject {
                        cycles.reference(mutable)
                    }
                }
                return value
            case .inProgress(let generic?):
                cycles.reference(generic)
                return generic
            case .inProgress(nil):
                throw error(.cycle, "object \(index) refers back to itself or an object around it while it is decoded", at: start)
            case .objectClass, .cString:
                throw error(.invalidReference, "entry \(index) of the object table is not an object", at: start)
            }
        }
    }

    /// What an object, class or C string starts with: nil, a new one, or a reference to one read before.
    enum Head {
        case none
        case new(at: Int)
        case reference(Int, at: Int)
    }

    func readHead() throws -> Head {
        let start = scanner.position
        let head = try scanner.readByte()
        switch head {
        case TypedStreamTag.nil: return .none
        case TypedStreamTag.new: return .new(at: start)
        default: return .reference(try tableIndex(head: head, at: start), at: start)
        }
    }

    /// The index in the object table of a reference number whose head byte was read.
    func tableIndex(head: UInt8, at start: Int) throws -> Int {
        if head == TypedStreamTag.endOfObject || head == TypedStreamTag.real {
            throw scanner.badTag(head, "a reference", at: start)
        }
        let n = try scanner.signed(head: head, at: start)
        let index = n - TypedStreamTag.firstReference
        guard index >= 0, index < Int64(table.count) else {
            throw error(.invalidReference, "reference \(index) is not among the \(table.count) objects, classes and C strings read", at: start)
        }
        return Int(index)
    }

    func countObject(at start: Int) throws {
        decodedCount += 1
        guard decodedCount <= maxObjects else {
            throw error(.elementLimitExceeded, "more than \(maxObjects) objects and elements decoded", at: start)
        }
    }

    private func readNewObject(at start: Int) throws -> Any? {
        try countObject(at: start)
        guard frames.count < maxDepth else {
            throw error(.depthLimitExceeded, "objects nest deeper than \(maxDepth)", at: start)
        }
        let index = table.count
        table.append(.inProgress(nil))
        let classStart = scanner.position
        guard let classIndex = try readClass() else {
            throw error(.invalidValue, "an object whose class is Nil", at: classStart)
        }
        let info = classes[classIndex]
        if !instantiatedSet.contains(info.name) {
            instantiatedSet.insert(info.name)
            instantiatedClassNames.append(info.name)
        }
        frames.append((index, classIndex))
        defer { frames.removeLast() }
        do {
            let value = try decodeContents(of: info, index: index)
            table[index] = .object(value)
            return value
        } catch {
            throw located(error)
        }
    }

    /// Decodes the values of an object of `info`, through its end-of-object byte.
    private func decodeContents(of info: ClassInfo, index: Int) throws -> Any? {
        if let type = registry.type(forClassName: info.name) {
            guard let decodable = type as? any TypedStreamDecodable.Type else {
                if registry.decodesUnknownClassesAsArchivedObjects { return try decodeGeneric(info, index: index) }
                throw error(.unknownClass, "class \"\(info.name)\" is registered but does not adopt TypedStreamDecodable")
            }
            return try decodeRegistered(decodable)
        }
        if let foundation = StandardClass(className: info.name), foundation.typedStreamChain != nil {
            // Read through its end by its file (a type encoding it does not know makes it a whole object).
            if foundation == .value { return try NSValueClass.decode(stream: self) }
            if keepsMutableClasses, foundation.isMutable {
                // Numbered once read (a reference back from inside it is a cycle error, as for the plain
                // value); later references give the instance.
                // Unwrapped, not boxed: an `Optional` in the `Any` would hide the value's collection from the
                // graph that keeps cycles (and leak what it holds).
                guard let value = try foundation.decodeStream(from: self) else {
                    throw error(.unknownClass, "class \"\(info.name)\" has no typedstream form")
                }
                try endObject()
                let object = ArchivedMutableObject(className: foundation.className, value: value)
                if cycles.isActive { cycles.finished(object, holding: value) }
                return object
            }
            let value = try foundation.decodeStream(from: self)
            try endObject()
            return value
        }
        if let type = registry.fallbackType(forClassName: info.name, classChain: info.chain),
           let decodable = type as? any TypedStreamDecodable.Type {
            return try decodeRegistered(decodable)
        }
        guard registry.decodesUnknownClassesAsArchivedObjects else {
            throw error(.unknownClass, "class \"\(info.name)\" (\(info.chain.joined(separator: " < "))) is not registered")
        }
        return try decodeGeneric(info, index: index)
    }

    private func decodeRegistered(_ type: any TypedStreamDecodable.Type) throws -> Any {
        // A registered type reads plain values.
        let keeps = keepsMutableClasses
        keepsMutableClasses = false
        defer { keepsMutableClasses = keeps }
        let value = try type.init(typedStreamCoder: self)
        try endObject()
        return value
    }

    /// Consumes the end-of-object byte; anything else means the class left values unread.
    package func endObject() throws {
        let start = scanner.position
        let b = try scanner.readByte()
        guard b == TypedStreamTag.endOfObject else {
            throw error(.typeMismatch, "the object holds values after those its class reads", at: start)
        }
    }

    /// A class: nil, a new class (name, version, then its superclass) or a reference to one read before.
    /// Returns its index in `classes`.
    func readClass() throws -> Int? {
        switch try readHead() {
        case .none:
            return nil
        case .new(let start):
            // The chain is read down to its root, numbering each class as it comes; the names are known
            // only once the root is reached.
            var pending: [(name: String, version: Int, tableIndex: Int)] = []
            var next = TypedStreamTag.new
            var at = start
            while next == TypedStreamTag.new {
                guard pending.count < maxDepth else {
                    throw error(.depthLimitExceeded, "a class chain longer than \(maxDepth)", at: at)
                }
                let nameStart = scanner.position
                guard let nameIndex = try scanner.sharedString() else {
                    throw error(.invalidValue, "a class without a name (nil)", at: nameStart)
                }
                let name = String(decoding: scanner.sharedStrings[nameIndex], as: UTF8.self)
                let versionStart = scanner.position
                let version = try scanner.readSigned()
                guard let v = Int(exactly: version), abs(v) <= Int(Int32.max) else {
                    throw error(.outOfRange, "class version \(version) is out of range", at: versionStart)
                }
                pending.append((name, v, table.count))
                table.append(.objectClass(-1))
                at = scanner.position
                next = try scanner.readByte()
            }
            var superclass: ClassInfo?
            if next != TypedStreamTag.nil {
                let i = try tableIndex(head: next, at: at)
                guard case .objectClass(let c) = table[i], c >= 0 else {
                    throw error(.invalidReference, "entry \(i) of the object table is not a class", at: at)
                }
                superclass = classes[c]
            }
            let depth = pending.count + (superclass?.chain.count ?? 0)
            guard depth <= maxDepth else {
                throw error(.depthLimitExceeded, "a class chain longer than \(maxDepth)", at: start)
            }
            // The chains stored: the new classes' chains are `depth`, `depth - 1`, ... names long.
            let names = pending.count * (2 * depth - pending.count + 1) / 2
            guard names <= classNamesLeft else {
                throw error(.elementLimitExceeded, "the class chains would hold more class names than the stream has bytes for", at: start)
            }
            classNamesLeft -= names
            for entry in pending.reversed() {
                let info = ClassInfo(name: entry.name, version: entry.version,
                                     chain: [entry.name] + (superclass?.chain ?? []),
                                     versions: [entry.version] + (superclass?.versions ?? []))
                classes.append(info)
                table[entry.tableIndex] = .objectClass(classes.count - 1)
                if versions[entry.name] == nil { versions[entry.name] = entry.version }
                superclass = info
            }
            return classes.count - 1
        case .reference(let i, let start):
            guard case .objectClass(let c) = table[i], c >= 0 else {
                throw error(.invalidReference, "entry \(i) of the object table is not a class", at: start)
            }
            return c
        }
    }

    /// A C string: nil, a new one (its text a shared string; numbered in the object table) or a reference.
    func readCString() throws -> Any? {
        switch try readHead() {
        case .none:
            return nil
        case .new:
            let textStart = scanner.position
            guard let index = try scanner.sharedString() else {
                throw error(.invalidValue, "a new C string whose text is nil", at: textStart)
            }
            let text = Self.text(scanner.sharedStrings[index])
            table.append(.cString(text))
            return text
        case .reference(let i, let start):
            guard case .cString(let s) = table[i] else {
                throw error(.invalidReference, "entry \(i) of the object table is not a C string", at: start)
            }
            return s
        }
    }

    /// Bytes as a `String` when they are UTF-8, else as `Data`.
    static func text(_ bytes: [UInt8]) -> Any {
        if let s = validUTF8String(bytes) { return s }
        return Data(bytes)
    }
}
