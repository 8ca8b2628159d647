import BinaryPlist

/// Adds one object at the end of an array inside an existing binary keyed archive, without archiving the
/// rest again.
///
/// ```swift
/// if let (bytes, uid) = try KeyedArchiveAppender.appending(record, toArrayAt: ["root", "records"], in: stored) {
///     // `bytes` decodes as `stored` with `record` (object `uid`) added at the end of root.records.
/// }
/// ```
///
/// The object is archived on its own and its objects are added after the archive's, numbered from the old
/// `$objects` count; class descriptions, strings and key names that the array's last element already uses
/// are used again rather than repeated. Only `$objects` and the array's `NS.objects` are written anew
/// (``BinaryPlistAppender``): every existing object keeps its bytes and its UID, so nothing stored before is
/// touched (``BinaryPlistAppender`` checks that of its result). Returns `nil` when the archive is
/// XML, or laid out in a way the appender does not handle, or would need wider object references: the caller
/// then archives everything.
///
/// No Apple API appends to an archive; the result is what `NSKeyedUnarchiver` decodes as the old graph with
/// the object added at the end of the `NSArray`.
package enum KeyedArchiveAppender {
    /// `bytes` with `object` archived and appended to the `NSArray` reached from `$top` through `keyPath`
    /// (each key's value a reference to the next object), and the new element's UID.
    /// - Throws: ``KeyedArchiveError`` when the archive is malformed (an object that cannot be read, a key path
    ///   that leads to no array, a UID beyond `$objects`) or `object` cannot be archived.
    package static func appending(_ object: Any, toArrayAt keyPath: [String], in bytes: [UInt8]) throws
        -> (bytes: [UInt8], uid: Int)?
    {
        guard PropertyList.detectFormat(bytes) == .binary, !keyPath.isEmpty else { return nil }
        do {
            return try append(object, keyPath, bytes)
        } catch let error as PlistError where error.code == .unsupportedValue {
            return nil  // a layout the appender does not handle: not an error in the archive
        } catch let error as PlistError {
            throw KeyedArchiveError(.invalidPlist, error.description, underlying: error)
        }
    }

    private static func append(_ object: Any, _ keyPath: [String], _ bytes: [UInt8]) throws -> (bytes: [UInt8], uid: Int)? {
        let document = try BinaryPlistDocument(bytes)
        guard let objectsRef = try value(document, document.topObject, "$objects"),
              let topRef = try value(document, document.topObject, "$top")
        else { throw KeyedArchiveError(.invalidHeader, "the archive has no $objects or no $top") }
        guard case .array(let archiveObjects) = try document.object(objectsRef), archiveObjects.count > 0,
              case .scalar(.string("$null")) = try document.object(archiveObjects[0])
        else { throw KeyedArchiveError(.invalidHeader, "$objects is not an array starting with \"$null\"") }

        // Follow the key path to the array object and its NS.objects.
        var current = topRef
        var path: [String] = []
        for key in keyPath {
            path.append(key)
            guard let ref = try value(document, current, key), case .scalar(.uid(let uid)) = try document.object(ref),
                  uid.value > 0, uid.value < UInt64(archiveObjects.count)
            else {
                throw KeyedArchiveError(.valueNotFound, "no object reference", keyPath: path.joined(separator: "."))
            }
            current = archiveObjects[Int(uid.value)]
        }
        guard let classRef = try value(document, current, "$class"),
              case .scalar(.uid(let classUID)) = try document.object(classRef), classUID.value < UInt64(archiveObjects.count),
              let name = try document.decodeObject(archiveObjects[Int(classUID.value)])["$classname"]?.stringValue,
              name == "NSArray" || name == "NSMutableArray",
              let elementsRef = try value(document, current, "NS.objects")
        else {
            throw KeyedArchiveError(.typeMismatch, "not an NSArray", keyPath: path.joined(separator: "."))
        }

        guard case .array(let elements) = try document.object(elementsRef) else {
            throw KeyedArchiveError(.typeMismatch, "NS.objects is not an array", keyPath: path.joined(separator: "."))
        }
        var appender = try BinaryPlistAppender(document)
        // A UID beyond `$objects` is damage; new objects numbered from the old count would give it a meaning.
        if let largest = appender.largestUID, largest >= UInt64(archiveObjects.count) {
            throw KeyedArchiveError(.invalidReference, "UID \(largest) is not below the \(archiveObjects.count) objects")
        }

        // The object on its own: its `$objects`, numbered from 0 ($null).
        let single = try PropertyList.decode(try KeyedArchiver.archivedData(withRootObject: object))
        guard let singleObjects = single["$objects"]?.arrayValue, let root = single["$top"]?["root"]?.uidValue,
              root.value > 0, root.value < UInt64(singleObjects.count)
        else { throw KeyedArchiveError(.invalidValue, "the object archived to nothing") }

        // Class descriptions and strings the last element uses, to be used again.
        var reusable = Reusable()
        if let last = elements.last, case .scalar(.uid(let uid)) = try document.object(last),
           uid.value < UInt64(archiveObjects.count) {
            try reusable.collect(from: Int(uid.value), archiveObjects, document, &appender)
        }

        var numbers = [Int](repeating: 0, count: singleObjects.count)
        var added: [Int] = []
        for (index, value) in singleObjects.enumerated().dropFirst() {
            if let existing = reusable.existing(value) {
                numbers[index] = existing
            } else {
                numbers[index] = archiveObjects.count + added.count
                added.append(index)
            }
        }
        var newObjects: [Int] = []
        for index in added {
            newObjects.append(try appender.append(try renumbered(singleObjects[index], numbers)))
        }
        let uid = numbers[Int(root.value)]
        try appender.extendArray(objectsRef, with: newObjects)
        try appender.extendArray(elementsRef, with: [try appender.append(.uid(PlistUID(UInt64(uid))))])
        return appender.serialize().map { ($0, uid) }
    }

    /// The value reference for string key `key` of plist dictionary `dictionary`, or `nil`. A key found twice
    /// is refused (`unsupportedValue`, so the caller writes in full): readers differ on which one wins.
    private static func value(_ document: BinaryPlistDocument, _ dictionary: Int, _ key: String) throws -> Int? {
        guard case .dictionary(let keys, let values) = try document.object(dictionary) else { return nil }
        var found: Int?
        for i in 0..<keys.count {
            guard case .scalar(.string(let k)) = try document.object(keys[i]), k == key else { continue }
            guard found == nil else {
                throw PlistError(.unsupportedValue, "key \"\(key)\" appears twice", objectIndex: dictionary)
            }
            found = values[i]
        }
        return found
    }

    /// `value` with every UID `u` replaced by `numbers[u]`.
    private static func renumbered(_ value: PlistValue, _ numbers: [Int]) throws -> PlistValue {
        switch value {
        case .uid(let u):
            guard u.value < UInt64(numbers.count) else {
                throw KeyedArchiveError(.invalidReference, "UID \(u.value) is not below \(numbers.count)")
            }
            return .uid(PlistUID(UInt64(numbers[Int(u.value)])))
        case .array(let items): return .array(try items.map { try renumbered($0, numbers) })
        case .set(let items): return .set(try items.map { try renumbered($0, numbers) })
        case .dictionary(let d):
            return .dictionary(PlistDictionary(entries: try d.entries.map {
                PlistDictionary.Entry(key: $0.key, value: try renumbered($0.value, numbers))
            }))
        default: return value
        }
    }

    /// Archive objects near an existing element that the appended objects may use instead of new ones:
    /// class descriptions (`$classname` and `$classes` alone) and bare ASCII strings, both values, never
    /// identities, compared by their UTF-8 bytes (canonically equivalent strings stay apart). The plist strings
    /// of their keys are registered with the appender too.
    private struct Reusable {
        var classes: [ClassDescription: Int] = [:]
        var strings: [[UInt8]: Int] = [:]

        /// `$classname` then the `$classes` chain, as bytes.
        struct ClassDescription: Hashable {
            var names: [[UInt8]]

            init?(_ value: PlistValue) {
                guard let d = value.dictionaryValue, d.count == 2, let name = d["$classname"]?.stringValue,
                      let list = d["$classes"]?.arrayValue
                else { return nil }
                let chain = list.compactMap(\.stringValue)
                guard chain.count == list.count else { return nil }
                names = ([name] + chain).map { Array($0.utf8) }
            }
        }

        func existing(_ value: PlistValue) -> Int? {
            if case .string(let s) = value { return strings[Array(s.utf8)] }
            return ClassDescription(value).flatMap { classes[$0] }
        }

        /// Visits up to 64 objects reachable from `start`.
        mutating func collect(from start: Int, _ objects: BinaryPlistDocument.References, _ document: BinaryPlistDocument,
                              _ appender: inout BinaryPlistAppender) throws {
            var queue = [start]
            var visited: Set<Int> = []
            while let uid = queue.popLast(), visited.count < 64 {
                guard uid > 0, uid < objects.count, visited.insert(uid).inserted else { continue }
                switch try document.object(objects[uid]) {
                case .scalar(.string(let s)):
                    // Only a string written as ASCII: any other reader makes the same of its bytes.
                    let key = Array(s.utf8)
                    if strings[key] == nil, key.allSatisfy({ $0 < 0x80 }),
                       try document.bytes[document.offset(ofObject: objects[uid])] >> 4 == 0x5 {
                        strings[key] = uid
                    }
                case .dictionary(let keys, _):
                    for key in keys { try appender.reuseString(key) }
                    let value = try document.decodeObject(objects[uid])
                    if let description = ClassDescription(value) {
                        if classes[description] == nil { classes[description] = uid }
                        continue
                    }
                    for entry in value.dictionaryValue?.entries ?? [] {
                        if let u = entry.value.uidValue { queue.append(Int(truncatingIfNeeded: u.value)) }
                        for item in entry.value.arrayValue ?? [] {
                            if let u = item.uidValue { queue.append(Int(truncatingIfNeeded: u.value)) }
                        }
                    }
                default:
                    continue
                }
            }
        }
    }
}
