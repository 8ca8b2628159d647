/// Builds the ``PlistValue`` tree below an object, refusing cycles, excessive depth and excessive expansion.
///
/// Iterative, with an explicit stack, so that the depth limit, not the thread's stack size, bounds nesting.
struct BinaryPlistMaterializer {
    let objects: BinaryPlistObjects
    let maxDepth: Int
    let maxElements: Int
    var elements = 0
    /// The collections open above the one being filled (cycle detection).
    var path = CollectionPath()
    /// Recently read string keys by object index (direct-mapped): dictionary keys repeat the same objects.
    /// Made once a decode has read a few dozen values, so that materializing many small objects one by one
    /// does not pay for it each time.
    var keyCache: [(index: Int, value: PlistValue)] = []

    init(objects: BinaryPlistObjects) {
        self.objects = objects
        self.maxDepth = objects.maxDepth
        self.maxElements = objects.elementBudget
    }

    /// A collection being filled. Plain offsets into the borrowed buffer: no reference counting per child.
    private struct Frame {
        enum Kind { case array, set, dictionary }
        let index: Int
        let start: Int
        let kind: Kind
        /// Position of the first reference, and of the first value reference of a dictionary.
        let refs: Int
        let valueRefs: Int
        let count: Int
        var position = 0
        var items: [PlistValue] = []
        var entries: [PlistDictionary.Entry] = []
        /// The key under which this collection goes into its parent dictionary.
        var parentKey: PlistValue?
    }

    /// Reference `i` of a collection whose references `collection(_:depth:)` already checked against the object
    /// count (`checkReferences`, which compares all 64 bits): every one is below an `Int`, so reading it is exact
    /// on every platform.
    @inline(__always)
    private func reference(_ base: Int, _ i: Int) -> Int {
        objects.checkedReference(at: base + i * objects.referenceWidth)
    }

    @inline(__always)
    private mutating func count(_ index: Int) throws(PlistError) {
        elements += 1
        if elements > maxElements {
            throw PlistError(.elementLimitExceeded, "more than \(maxElements) values would be materialized",
                             objectIndex: index)
        }
    }

    /// Reads object `index` when it is a scalar; `nil` when it is a collection.
    ///
    /// The values a plist is mostly made of (plain ASCII strings, integers of up to 8 bytes, 8-byte reals and
    /// dates, booleans) are read here, inline, when they are well formed; everything else, and anything
    /// malformed, goes to ``BinaryPlistObjects/scalar(_:start:marker:)``, which returns the same value or
    /// throws the error.
    @inline(__always)
    private mutating func scalar(_ index: Int) throws(PlistError) -> PlistValue? {
        try count(index)
        let start = objects.offset(index)
        let marker = objects.raw[start]
        switch marker >> 4 {
        case 0xA, 0xC, 0xD:
            return nil
        case 0x5:
            if let s = objects.plainASCII(start: start, marker: marker) { return .string(s) }
        case 0x1 where marker & 0x0F <= 3 && 1 << Int(marker & 0x0F) <= objects.left(start + 1):
            let width = 1 << Int(marker & 0x0F)
            let v = readBigEndian(objects.raw, start + 1, width)
            // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
            return .integer(width == 8 ? PlistInteger(Int64(bitPattern: v)) : PlistInteger(v))
        case 0x2 where marker == 0x23 && 8 <= objects.left(start + 1):
            return .real(Double(bitPattern: readBigEndian(objects.raw, start + 1, 8)))
        case 0x3 where marker == 0x33 && 8 <= objects.left(start + 1):
            return .date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: readBigEndian(objects.raw, start + 1, 8))))
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        default:
            break
        }
        return try objects.scalar(index, start: start, marker: marker)
    }

    /// Reads the dictionary key `index` (`nil` when it is a collection), through a cache of recent string keys
    /// by object index (direct-mapped): the keys of many dictionaries are the same objects.
    @inline(__always)
    private mutating func key(_ index: Int) throws(PlistError) -> PlistValue? {
        let slot = index & 255
        if keyCache.isEmpty {
            if elements > 32 { keyCache = Array(repeating: (-1, .null), count: 256) }
        } else if keyCache[slot].index == index {
            try count(index)
            return keyCache[slot].value
        }
        guard let key = try scalar(index) else { return nil }
        if !keyCache.isEmpty, case .string = key { keyCache[slot] = (index, key) }
        return key
    }

    /// Opens a frame for the collection `index` (already counted), checking depth, cycles and references.
    private mutating func collection(_ index: Int, depth: Int) throws(PlistError) -> Frame {
        let start = objects.offset(index)
        let marker = objects.raw[start]
        let kind: Frame.Kind = switch marker >> 4 {
        case 0xA: .array
        case 0xC: .set
        default: .dictionary
        }
        if depth > maxDepth {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)", byteOffset: start, objectIndex: index)
        }
        if path.contains(index) {
            throw PlistError(.cycle, "collection contains itself", byteOffset: start, objectIndex: index)
        }
        let (n, p) = try objects.count(marker, at: start, index)
        let refCount = kind == .dictionary ? n.multipliedReportingOverflow(by: 2) : (partialValue: n, overflow: false)
        if refCount.overflow {
            throw PlistError(.invalidCount, "count \(describeCount(UInt64(n))) is too large", byteOffset: start, objectIndex: index)
        }
        try objects.checkReferences(at: p, count: refCount.partialValue, index, start)
        path.enter(index)
        var frame = Frame(index: index, start: start, kind: kind, refs: p, valueRefs: p + n * objects.referenceWidth, count: n)
        if kind == .dictionary {
            frame.entries.reserveCapacity(n)
        } else {
            frame.items.reserveCapacity(n)
        }
        return frame
    }

    private mutating func close(_ frame: Frame) -> PlistValue {
        path.leave()
        switch frame.kind {
        case .array: return .array(frame.items)
        case .set: return .set(frame.items)
        case .dictionary: return .dictionary(PlistDictionary(entries: frame.entries))
        }
    }

    /// Materializes object `index`, at nesting `depth`.
    ///
    /// The collection being filled is a local value (`current`), its unfinished ancestors on `parents`: each
    /// element is appended to an array the loop owns, and a frame moves only when a collection opens or closes.
    mutating func value(_ index: Int, depth: Int) throws(PlistError) -> PlistValue {
        if let scalar = try scalar(index) { return scalar }
        var current = try collection(index, depth: depth)
        var parents: [Frame] = []
        while true {
            let childDepth = depth + parents.count + 1
            var child: Frame?
            if current.kind == .dictionary {
                while current.position < current.count {
                    let i = current.position
                    current.position = i + 1
                    guard let key = try key(reference(current.refs, i)) else {
                        throw PlistError(.invalidKey, "dictionary key is a collection",
                                         byteOffset: current.start, objectIndex: current.index)
                    }
                    let valueIndex = reference(current.valueRefs, i)
                    if let value = try scalar(valueIndex) {
                        current.entries.append(.init(key: key, value: value))
                    } else {
                        var frame = try collection(valueIndex, depth: childDepth)
                        frame.parentKey = key
                        child = frame
                        break
                    }
                }
            } else {
                while current.position < current.count {
                    let i = current.position
                    current.position = i + 1
                    let childIndex = reference(current.refs, i)
                    if let value = try scalar(childIndex) {
                        current.items.append(value)
                    } else {
                        child = try collection(childIndex, depth: childDepth)
                        break
                    }
                }
            }
            if let child {
                parents.append(current)
                current = child
                continue
            }
            let key = current.parentKey
            let value = close(current)
            guard var parent = parents.popLast() else { return value }
            if let key {
                parent.entries.append(.init(key: key, value: value))
            } else {
                parent.items.append(value)
            }
            current = parent
        }
    }
}
