/// The writer's first pass: checks what ``BinaryPlistWriter`` refuses and counts what it will write, so that
/// the second pass writes without a check and into tables sized in advance.
///
/// It walks the collections only (a scalar needs neither a check nor a visit), depth first in the order the
/// writer numbers objects (a dictionary's keys, then its values), so the first error it throws is the one a
/// single writing pass would meet first: `.depthLimitExceeded` for a collection deeper than the limit,
/// `.invalidKey` for a collection used as a dictionary key.
///
/// Every key and value is counted, so ``values`` is at least the number of objects the plist will have
/// (uniquing only merges scalars): the writer takes its reference width from it, and narrows the references
/// afterwards in the rare plists whose uniquing brings the count below a width boundary.
///
/// It also adds up the bytes the file would take were no scalar uniqued (``estimatedSize``): the writer writes
/// into an array of that capacity, the file itself when it fits and fills most of it. A string key of the same
/// storage as one of the last seen is counted once (it will be one object), a string by its UTF-8 length (its
/// size when ASCII; a string that is not may take more, and a file that does not fit is written elsewhere).
struct WriterCensus {
    let maxDepth: Int
    /// Every value of the tree, the top one included, each key and value of a dictionary counted.
    private(set) var values = 1
    /// The collections among ``values``.
    private(set) var collections = 0
    /// The dictionary keys among ``values``.
    private(set) var keys = 0
    /// The references of the collections among ``values``.
    private var references = 0
    /// The dictionary keys counted as objects of their own (not the same string as a key seen just before).
    private var keyObjects = 0
    /// The bytes of the collections' markers and of the scalars (see ``estimatedSize``).
    private var markerAndScalarBytes = 0
    /// Which of `null`, `false` and `true` have been counted (bits 0, 1, 2): each is written once.
    private var constants: UInt8 = 0
    /// The occurrences of `null`, `false` and `true`, keys included: the uniquing table holds none of them.
    private var constantOccurrences = 0
    /// The identities of recently counted string keys (see ``RecentStrings``); a slot is `(0, 0)` when empty
    /// (the bits of no string: the empty string's are not zero).
    private var recentKeys: [(UInt64, UInt64)] = Array(repeating: (0, 0), count: 256)

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    /// The scalars that are not dictionary keys, `null` or booleans: each may be a new object of the uniquing
    /// table (keys repeat; the three constants are written once, outside it). A constant key, not among these,
    /// lowers the count: it is an estimate, and the table grows past it.
    var valueScalars: Int { max(0, values - collections - keys - constantOccurrences) }

    /// The size of the file were no scalar uniqued and every string ASCII: the header, the objects, the offset
    /// table and the trailer, with references as wide as ``values`` needs.
    var estimatedSize: Int {
        let objects = BinaryPlistOutput.header.count + markerAndScalarBytes + references * byteWidth(toExceed: values)
        let entries = values - keys + keyObjects
        return objects + entries * byteWidth(toExceed: objects) + BinaryPlistTrailer.byteCount
    }

    /// Checks and counts the value at `value` and everything in it; `depth` is its nesting (the top object is
    /// 1). Values are looked at where they are (see the writer's `add(_:)`). Recursion is bounded by `maxDepth`.
    mutating func visit(_ value: UnsafePointer<PlistValue>, depth: Int) throws {
        switch value.pointee {
        case .array(let items), .set(let items):
            try checkDepth(depth)
            collections += 1
            values += items.count
            references += items.count
            markerAndScalarBytes += BinaryPlistOutput.markerLength(count: items.count)
            try items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                for i in items.indices {
                    if items[i].isCollection {
                        try visit(first + i, depth: depth + 1)
                    } else {
                        countScalar(first + i)
                    }
                }
            }
        case .dictionary(let dict):
            try checkDepth(depth)
            collections += 1
            values += 2 * dict.count
            keys += dict.count
            references += 2 * dict.count
            markerAndScalarBytes += BinaryPlistOutput.markerLength(count: dict.count)
            try dict.entries.withUnsafeBufferPointer { entries in
                for i in entries.indices where entries[i].key.isCollection {
                    throw PlistError(.invalidKey, "\(entries[i].key.kindNameWithArticle) cannot be a dictionary key")
                }
                guard let first = entries.baseAddress else { return }
                for i in entries.indices {
                    guard let key = (first + i).pointer(to: \.key) else { continue }
                    countKey(key)
                }
                for i in entries.indices {
                    guard let value = (first + i).pointer(to: \.value) else { continue }
                    if entries[i].value.isCollection {
                        try visit(value, depth: depth + 1)
                    } else {
                        countScalar(value)
                    }
                }
            }
        default:
            countScalar(value)
        }
    }

    /// Counts a dictionary key: a string of the storage of one counted recently is the same object.
    @inline(__always)
    private mutating func countKey(_ key: UnsafePointer<PlistValue>) {
        guard case .string(let s) = key.pointee, let bits = RecentStrings.bits(of: s) else {
            keyObjects += 1
            countScalar(key)
            return
        }
        let slot = RecentStrings.slot(bits)
        if recentKeys[slot] == bits { return }
        recentKeys[slot] = bits
        keyObjects += 1
        let n = s.utf8.count
        markerAndScalarBytes += BinaryPlistOutput.markerLength(count: n) + n
    }

    /// Adds the bytes of the scalar at `value` (a collection is visited, not counted here).
    @inline(__always)
    private mutating func countScalar(_ value: UnsafePointer<PlistValue>) {
        switch value.pointee {
        case .null: countConstant(1)
        case .bool(let b): countConstant(b ? 4 : 2)
        case .integer(let i):
            if i.high == 0 && i.low < (1 << 63) {
                let v = i.low
                markerAndScalarBytes += v <= 0xFF ? 2 : v <= 0xFFFF ? 3 : v <= 0xFFFF_FFFF ? 5 : 9
            } else {
                markerAndScalarBytes += i.high == -1 && i.low >= (1 << 63) ? 9 : 17
            }
        case .real, .date: markerAndScalarBytes += 9
        case .uid(let u):
            let v = u.value
            markerAndScalarBytes += v <= 0xFF ? 2 : v <= 0xFFFF ? 3 : v <= 0xFFFF_FFFF ? 5 : 9
        case .string(let s):
            let n = s.utf8.count
            markerAndScalarBytes += BinaryPlistOutput.markerLength(count: n) + n
        case .data(let d):
            markerAndScalarBytes += BinaryPlistOutput.markerLength(count: d.count) + d.count
        case .array, .set, .dictionary:
            break
        }
    }

    @inline(__always)
    private mutating func countConstant(_ bit: UInt8) {
        constantOccurrences += 1
        if constants & bit == 0 {
            constants |= bit
            markerAndScalarBytes += 1
        }
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > maxDepth {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)")
        }
    }
}
