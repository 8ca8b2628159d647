import BinaryPlist

extension ArchiveGraph {
    /// Checks the structure every reader of the graph relies on, beyond the top level that reading it
    /// from bytes already checked:
    /// - `$objects[0]` is the string `$null`;
    /// - every UID, in `$top` and at any depth inside every object, is below the object count;
    /// - every dictionary in `$objects` is an object (it has `$class`) or a class description (it has
    ///   `$classname`);
    /// - every `$class` is a UID of a class description, whose `$classname` is a string and whose
    ///   `$classes`, when present, is an array of strings.
    ///
    /// It does not decode objects (an `NSArray` whose `NS.objects` is not an array passes): that is
    /// ``KeyedUnarchiver``'s work, for the classes it knows.
    ///
    /// ```swift
    /// let graph = try ArchiveGraph(bytes: bytes)
    /// try graph.validate()   // keyed archive: object 1 at NS.objects.2: UID 9 is not below the 5 objects
    /// ```
    ///
    /// No Apple API corresponds: `NSKeyedUnarchiver` finds these defects only when decoding reaches them.
    /// - Throws: ``KeyedArchiveError`` with ``KeyedArchiveError/Code/invalidHeader``,
    ///   ``KeyedArchiveError/Code/invalidReference``, ``KeyedArchiveError/Code/invalidClass`` or
    ///   ``KeyedArchiveError/Code/depthLimitExceeded`` (values nested deeper than 512 levels).
    public func validate() throws {
        guard objects.first == .string("$null") else {
            throw KeyedArchiveError(.invalidHeader, "$objects[0] is not \"$null\"")
        }
        var checker = GraphChecker(objectCount: objects.count)
        for entry in top.entries {
            if let bad = checker.firstBadUID(in: entry.value, depth: 0) {
                throw checker.error(bad, object: nil, prefix: [describeKey(entry.key)])
            }
        }
        for uid in objects.indices.dropFirst() {
            let object = objects[uid]
            if let fields = object.dictionaryValue {
                if let classReference = fields["$class"] {
                    try checker.checkClassReference(classReference, of: uid, in: objects)
                } else if fields["$classname"] != nil {
                    try checker.checkClassDescription(uid, in: objects, referencedBy: nil)
                } else {
                    throw KeyedArchiveError(.invalidClass, "a dictionary with neither $class nor $classname",
                                            objectIndex: uid)
                }
            }
            if let bad = checker.firstBadUID(in: object, depth: 0) {
                throw checker.error(bad, object: uid, prefix: [])
            }
        }
    }
}

/// A key as a key path shows it: the string itself, or the value's description.
private func describeKey(_ key: PlistValue) -> String {
    key.stringValue ?? "\(key)"
}

/// The state of one ``ArchiveGraph/validate()`` run.
private struct GraphChecker {
    let objectCount: Int
    /// Class descriptions already found well formed.
    var checkedClasses: Set<Int> = []
    static let maxDepth = 512

    /// A UID past the end, or a nesting too deep, and the keys leading to it (innermost last).
    struct Defect {
        var uid: UInt64?
        var path: [String]
    }

    /// The first UID at or below `value` that is not below the object count, or a depth overrun.
    func firstBadUID(in value: PlistValue, depth: Int) -> Defect? {
        switch value {
        case .uid(let u):
            return u.value < UInt64(objectCount) ? nil : Defect(uid: u.value, path: [])
        case .array(let items), .set(let items):
            guard depth < Self.maxDepth else { return Defect(uid: nil, path: []) }
            for (i, item) in items.enumerated() {
                if var bad = firstBadUID(in: item, depth: depth + 1) {
                    bad.path.append(String(i))
                    return bad
                }
            }
            return nil
        case .dictionary(let d):
            guard depth < Self.maxDepth else { return Defect(uid: nil, path: []) }
            for entry in d.entries {
                if var bad = firstBadUID(in: entry.key, depth: depth + 1) ?? firstBadUID(in: entry.value, depth: depth + 1) {
                    bad.path.append(describeKey(entry.key))
                    return bad
                }
            }
            return nil
        default:
            return nil
        }
    }

    func error(_ defect: Defect, object: Int?, prefix: [String]) -> KeyedArchiveError {
        let path = (prefix + defect.path.reversed()).joined(separator: ".")
        guard let uid = defect.uid else {
            return KeyedArchiveError(.depthLimitExceeded, "values nested deeper than \(Self.maxDepth) levels",
                                     objectIndex: object, keyPath: path.isEmpty ? nil : path)
        }
        return KeyedArchiveError(.invalidReference, "UID \(uid) is not below the \(objectCount) objects",
                                 objectIndex: object, keyPath: path.isEmpty ? nil : path)
    }

    /// `$class` of object `uid` must be the UID of a well-formed class description.
    mutating func checkClassReference(_ reference: PlistValue, of uid: Int, in objects: [PlistValue]) throws {
        func bad(_ reason: String, _ code: KeyedArchiveError.Code = .invalidClass) -> KeyedArchiveError {
            KeyedArchiveError(code, reason, objectIndex: uid)
        }
        guard let target = reference.uidValue else {
            throw bad("$class is \(reference.kindNameWithArticle), not a UID")
        }
        guard target.value > 0 else { throw bad("$class is $null") }
        guard target.value < UInt64(objects.count) else {
            throw bad("UID \(target.value) is not below the \(objects.count) objects", .invalidReference)
        }
        let classUID = Int(target.value)
        guard let description = objects[classUID].dictionaryValue else {
            throw bad("$class refers to object \(classUID), which is \(objects[classUID].kindNameWithArticle), "
                + "not a class description")
        }
        guard description["$classname"] != nil else {
            throw bad("$class refers to object \(classUID), which has no $classname")
        }
        try checkClassDescription(classUID, in: objects, referencedBy: uid)
    }

    /// The class description at `classUID` has a string `$classname` and, if any, a `$classes` array of
    /// strings.
    mutating func checkClassDescription(_ classUID: Int, in objects: [PlistValue], referencedBy uid: Int?) throws {
        guard !checkedClasses.contains(classUID) else { return }
        func bad(_ reason: String) -> KeyedArchiveError {
            uid == nil ? KeyedArchiveError(.invalidClass, reason, objectIndex: classUID)
                : KeyedArchiveError(.invalidClass, "$class refers to object \(classUID), whose \(reason)",
                                    objectIndex: uid)
        }
        guard let description = objects[classUID].dictionaryValue else { return }
        if let name = description["$classname"], name.stringValue == nil {
            throw bad("$classname is \(name.kindNameWithArticle), not a string")
        }
        if let classes = description["$classes"] {
            guard let list = classes.arrayValue else {
                throw bad("$classes is \(classes.kindNameWithArticle), not an array")
            }
            if let other = list.first(where: { $0.stringValue == nil }) {
                throw bad("$classes holds \(other.kindNameWithArticle), not only strings")
            }
        }
        checkedClasses.insert(classUID)
    }
}
