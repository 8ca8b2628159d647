/// Builds the ``PlistValue`` tree below an object, refusing cycles, excessive depth and excessive expansion.
///
/// Iterative, with an explicit stack, so that the depth limit, not the thread's stack size, bounds nesting.
struct BinaryPlistMaterializer {
    let objects: BinaryPlistObjects
    let maxDepth: Int
    let maxElements: Int
    var elements = 0
    /// The collections on the current path from the top, outermost first (cycle detection). The first
    /// ``shallowPath`` are searched in order; the rest are also in ``deepPath``. Nothing is allocated in
    /// proportion to the document, so materializing each of many objects alone stays linear.
    var path: [Int] = []
    var deepPath: Set<Int> = []
    static let shallowPath = 16
    /// Recently read strings by object index (direct-mapped): dictionary keys repeat the same objects. Made
    /// once a decode has read a few dozen values, so that materializing many small objects one by one does
    /// not pay for it each time.
    var stringCache: [(index: Int, value: PlistValue)] = []

    init(objects: BinaryPlistObjects) {
        self.objects = objects
        self.maxDepth = objects.maxDepth
        self.maxElements = objects.elementBudget
    }

    private func isOnPath(_ index: Int) -> Bool {
        if path.prefix(Self.shallowPath).contains(index) { return true }
        return path.count > Self.shallowPath && deepPath.contains(index)
    }

    private mutating func enterPath(_ index: Int) {
        path.append(index)
        if path.count > Self.shallowPath { deepPath.insert(index) }
    }

    private mutating func leavePath() {
        if path.count > Self.shallowPath, let index = path.last { deepPath.remove(index) }
        path.removeLast()
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
        let width = objects.referenceWidth
        return Int(truncatingIfNeeded: readBigEndian(objects.raw, base + i * width, width))
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
    @inline(__always)
    private mutating func scalar(_ index: Int) throws(PlistError) -> PlistValue? {
        try count(index)
        let slot = index & 255
        if stringCache.isEmpty {
            if elements > 32 { stringCache = Array(repeating: (-1, .null), count: 256) }
        } else if stringCache[slot].index == index {
            return stringCache[slot].value
        }
        let start = objects.offset(index)
        let marker = objects.raw[start]
        switch marker >> 4 {
        case 0xA, 0xC, 0xD:
            return nil
        case 0x5:
            let value = try objects.scalar(index, start: start, marker: marker)
            if !stringCache.isEmpty { stringCache[slot] = (index, value) }
            return value
        default:
            return try objects.scalar(index, start: start, marker: marker)
        }
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
        if isOnPath(index) {
            throw PlistError(.cycle, "collection contains itself", byteOffset: start, objectIndex: index)
        }
        let (n, p) = try objects.count(marker, at: start, index)
        let refCount = kind == .dictionary ? n.multipliedReportingOverflow(by: 2) : (partialValue: n, overflow: false)
        if refCount.overflow {
            throw PlistError(.invalidCount, "count \(describeCount(UInt64(n))) is too large", byteOffset: start, objectIndex: index)
        }
        try objects.checkReferences(at: p, count: refCount.partialValue, index, start)
        enterPath(index)
        var frame = Frame(index: index, start: start, kind: kind, refs: p, valueRefs: p + n * objects.referenceWidth, count: n)
        if kind == .dictionary {
            frame.entries.reserveCapacity(n)
        } else {
            frame.items.reserveCapacity(n)
        }
        return frame
    }

    private mutating func close(_ frame: Frame) -> PlistValue {
        leavePath()
        switch frame.kind {
        case .array: return .array(frame.items)
        case .set: return .set(frame.items)
        case .dictionary: return .dictionary(PlistDictionary(entries: frame.entries))
        }
    }

    mutating func value(_ index: Int, depth: Int) throws(PlistError) -> PlistValue {
        if let scalar = try scalar(index) { return scalar }
        var stack: [Frame] = [try collection(index, depth: depth)]
        while let top = stack.indices.last {
            let i = stack[top].position
            if i < stack[top].count {
                stack[top].position = i + 1
                let childDepth = depth + stack.count
                if stack[top].kind == .dictionary {
                    let keyIndex = reference(stack[top].refs, i)
                    guard let key = try scalar(keyIndex) else {
                        throw PlistError(.invalidKey, "dictionary key is a collection",
                                         byteOffset: stack[top].start, objectIndex: stack[top].index)
                    }
                    let valueIndex = reference(stack[top].valueRefs, i)
                    if let value = try scalar(valueIndex) {
                        stack[top].entries.append(.init(key: key, value: value))
                    } else {
                        var frame = try collection(valueIndex, depth: childDepth)
                        frame.parentKey = key
                        stack.append(frame)
                    }
                } else {
                    let childIndex = reference(stack[top].refs, i)
                    if let value = try scalar(childIndex) {
                        stack[top].items.append(value)
                    } else {
                        stack.append(try collection(childIndex, depth: childDepth))
                    }
                }
            } else {
                guard let done = stack.popLast() else { break }
                let value = close(done)
                guard let parent = stack.indices.last else { return value }
                if let key = done.parentKey {
                    stack[parent].entries.append(.init(key: key, value: value))
                } else {
                    stack[parent].items.append(value)
                }
            }
        }
        return .null
    }
}
