/// Where the XML parser puts the values it reads: a tree (``PlistTreeSink``) or the object table of a
/// binary plist (``BinaryPlistTableSink``). Values arrive children first.
protocol XMLPlistSink {
    associatedtype Node
    /// A string, number, date, data or boolean.
    mutating func scalar(_ value: PlistValue) -> Node
    mutating func uid(_ value: UInt64) -> Node
    mutating func array(_ items: ArraySlice<Node>) -> Node
    /// Keys unique and in order.
    mutating func dictionary(_ entries: ArraySlice<(key: String, value: Node)>) -> Node
    /// The integer `node` holds, for `{CF$UID: n}`.
    func integer(_ node: Node) -> PlistInteger?
    func isUID(_ node: Node) -> Bool
}

/// Values as a ``PlistValue`` tree.
struct PlistTreeSink: XMLPlistSink {
    func scalar(_ value: PlistValue) -> PlistValue { value }
    func uid(_ value: UInt64) -> PlistValue { .uid(PlistUID(value)) }
    func array(_ items: ArraySlice<PlistValue>) -> PlistValue { .array(Array(items)) }
    func dictionary(_ entries: ArraySlice<(key: String, value: PlistValue)>) -> PlistValue {
        .dictionary(PlistDictionary(entries: entries.map { .init(key: .string($0.key), value: $0.value) }))
    }
    func integer(_ node: PlistValue) -> PlistInteger? { node.integerValue }
    func isUID(_ node: PlistValue) -> Bool { node.uidValue != nil }
}

/// Values written straight into the objects of a `bplist00` file as they arrive (children before their
/// collection, so the top object comes last); strings, numbers, UIDs and booleans are written once each.
/// References are as wide as the input's size needs, which bounds the object count (every object comes
/// from at least one element of four bytes or more).
struct BinaryPlistTableSink: XMLPlistSink {
    struct Node {
        var object: Int
        var integer: PlistInteger?
        var isUID = false
    }

    var out = BinaryPlistBuffer()
    var offsets: [Int] = []
    let referenceWidth: Int
    var strings: [String: Int] = [:]
    var integers: [PlistInteger: Int] = [:]
    var uids: [UInt64: Int] = [:]
    var constants: [Int?] = [nil, nil]  // false, true

    init(inputSize: Int) {
        referenceWidth = byteWidth(toExceed: inputSize)
        out.bytes.append(contentsOf: Array("bplist00".utf8))
    }

    private mutating func newObject() -> Int {
        offsets.append(out.bytes.count)
        return offsets.count - 1
    }

    mutating func scalar(_ value: PlistValue) -> Node {
        switch value {
        case .string(let text):
            if let object = strings[text] { return Node(object: object) }
            strings[text] = offsets.count
        case .integer(let n):
            if let object = integers[n] { return Node(object: object, integer: n) }
            integers[n] = offsets.count
        case .bool(let b):
            if let object = constants[b ? 1 : 0] { return Node(object: object) }
            constants[b ? 1 : 0] = offsets.count
        default:
            break
        }
        let object = newObject()
        out.writeScalar(value)
        return Node(object: object, integer: value.integerValue)
    }

    mutating func uid(_ value: UInt64) -> Node {
        if let existing = uids[value] { return Node(object: existing, isUID: true) }
        let object = newObject()
        out.writeScalar(.uid(PlistUID(value)))
        uids[value] = object
        return Node(object: object, isUID: true)
    }

    mutating func array(_ items: ArraySlice<Node>) -> Node {
        let object = newObject()
        out.writeMarker(0xA0, count: items.count)
        for item in items { out.writeBigEndian(UInt64(item.object), width: referenceWidth) }
        return Node(object: object)
    }

    mutating func dictionary(_ entries: ArraySlice<(key: String, value: Node)>) -> Node {
        let keys = entries.map { scalar(.string($0.key)).object }
        let object = newObject()
        out.writeMarker(0xD0, count: entries.count)
        for key in keys { out.writeBigEndian(UInt64(key), width: referenceWidth) }
        for entry in entries { out.writeBigEndian(UInt64(entry.value.object), width: referenceWidth) }
        return Node(object: object)
    }

    func integer(_ node: Node) -> PlistInteger? { node.integer }
    func isUID(_ node: Node) -> Bool { node.isUID }

    /// The finished file, `top` its top object.
    mutating func finish(top: Node) -> [UInt8] {
        BinaryPlistTrailer.appendTable(offsets: offsets, topObject: top.object, referenceWidth: referenceWidth, to: &out)
        return out.bytes
    }
}
