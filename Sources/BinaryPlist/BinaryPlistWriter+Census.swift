/// The writer's first pass: counts what ``BinaryPlistWriter`` will write, so that the writing pass writes into
/// tables and an array sized in advance, its references as wide as the objects' count needs.
///
/// It walks the collections depth first in the order the writer numbers objects (a dictionary's keys, then its
/// values). It checks nothing: the writing pass refuses what the writer refuses, in its order. It stops at the
/// depth limit (the writer refuses deeper nesting) and counts a collection used as a key as nothing.
///
/// **Exact or sampled.** A census with no sample size visits every value: ``values`` is then at least the
/// number of objects the plist will have (uniquing only merges scalars), and the writer takes its reference
/// width from it, narrowing the references afterwards in the rare plists whose uniquing brings the count below
/// a width boundary. A census with a sample size `k` visits, of a collection with more than `4k` members, `k`
/// members spread evenly over it, and scales what they add by the collection's count: an estimate in a few
/// thousand visits of a tree of millions, where visiting every value costs as much as a fifth of the writing
/// (each collection's storage is far from the last one's in memory). The writer then writes with widths that
/// leave the estimate room, and writes the plist again after an exact census when the objects outgrow them
/// (``isExact`` is false); the bytes are the same either way.
///
/// It also adds up the bytes the file would take were no scalar uniqued (``estimatedSize``): the writer writes
/// into an array of that capacity, the file itself when it fits and fills most of it. A string key of the same
/// storage as one of the last seen is counted once (it will be one object), a string by its UTF-8 length (its
/// size when ASCII; a string that is not may take more, and a file that does not fit is written elsewhere).
struct WriterCensus {
    let maxDepth: Int
    /// The members visited of a collection of more than `4 * sampleSize` (`nil`: every member).
    let sampleSize: Int?
    /// Whether every value was visited (no collection was sampled).
    private(set) var isExact = true
    /// What the census counts.
    private var counts = Counts()
    /// Which of `null`, `false` and `true` have been counted (bits 0, 1, 2): each is written once.
    private var constants: UInt8 = 0
    /// The identities of recently counted string keys (see ``RecentStrings``); a slot is `(0, 0)` when empty
    /// (the bits of no string: the empty string's are not zero).
    private var recentKeys: [(UInt64, UInt64)] = Array(repeating: (0, 0), count: 256)

    /// The counts of a census, added up over the values visited.
    private struct Counts {
        /// Every value of the tree, the top one included, each key and value of a dictionary counted.
        var values = 1
        /// The collections among `values`.
        var collections = 0
        /// The dictionary keys among `values`.
        var keys = 0
        /// The references of the collections among `values`.
        var references = 0
        /// The dictionary keys counted as objects of their own (not the same string as a key seen just before).
        var keyObjects = 0
        /// The bytes of the collections' markers and of the scalars (see ``estimatedSize``).
        var markerAndScalarBytes = 0
        /// The occurrences of `null`, `false` and `true`, keys included: the uniquing table holds none of them.
        var constantOccurrences = 0

        /// `self` with what was added since `before` scaled by `count / sampled`, rounded up (and kept below
        /// `Int.max / 16`, so that the sums made of these counts cannot overflow).
        func scaling(since before: Counts, by count: Int, over sampled: Int) -> Counts {
            func scaled(_ now: Int, _ then: Int) -> Int {
                let limit = Int.max / 16
                let (product, overflow) = (now - then).multipliedReportingOverflow(by: count)
                guard !overflow else { return limit }
                let share = product / sampled + (product % sampled == 0 ? 0 : 1)
                let (total, over) = then.addingReportingOverflow(share)
                return over ? limit : min(limit, total)
            }
            var out = self
            out.values = scaled(values, before.values)
            out.collections = scaled(collections, before.collections)
            out.keys = scaled(keys, before.keys)
            out.references = scaled(references, before.references)
            out.keyObjects = scaled(keyObjects, before.keyObjects)
            out.markerAndScalarBytes = scaled(markerAndScalarBytes, before.markerAndScalarBytes)
            out.constantOccurrences = scaled(constantOccurrences, before.constantOccurrences)
            return out
        }
    }

    /// A census that visits every value (`sampleSize` `nil`) or samples large collections.
    init(maxDepth: Int, sampleSize: Int? = nil) {
        self.maxDepth = maxDepth
        self.sampleSize = sampleSize.map { max(1, $0) }
    }

    /// Every value of the tree, the top one included, each key and value of a dictionary counted.
    var values: Int { counts.values }
    /// The collections among ``values``.
    var collections: Int { counts.collections }
    /// The dictionary keys among ``values``.
    var keys: Int { counts.keys }

    /// The scalars that are not dictionary keys, `null` or booleans: each may be a new object of the uniquing
    /// table (keys repeat; the three constants are written once, outside it). A constant key, not among these,
    /// lowers the count: it is an estimate, and the table grows past it.
    var valueScalars: Int { max(0, counts.values - counts.collections - counts.keys - counts.constantOccurrences) }

    /// The size of the file were no scalar uniqued and every string ASCII: the header, the objects, the offset
    /// table and the trailer, with references as wide as ``values`` needs. Kept below `Int.max / 4` (the scaled
    /// counts of nested samples can reach sums no tree has).
    var estimatedSize: Int {
        let c = counts
        let limit = Int.max / 4
        func sum(_ terms: Int...) -> Int {
            var total = 0
            for t in terms {
                let (s, overflow) = total.addingReportingOverflow(t)
                guard !overflow, s <= limit else { return limit }
                total = s
            }
            return total
        }
        func product(_ a: Int, _ b: Int) -> Int {
            let (p, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? limit : min(p, limit)
        }
        let objects = sum(BinaryPlistOutput.header.count, c.markerAndScalarBytes,
                          product(c.references, byteWidth(toExceed: c.values)))
        let entries = sum(c.values - c.keys, c.keyObjects)
        return sum(objects, product(entries, byteWidth(toExceed: objects)), BinaryPlistTrailer.byteCount)
    }

    /// Counts the value at `value` and everything in it; `depth` is its nesting (the top object is 1). Values are
    /// looked at where they are (see the writer's `add(_:)`). Recursion is bounded by `maxDepth`.
    mutating func visit(_ value: UnsafePointer<PlistValue>, depth: Int) {
        switch value.pointee {
        case .array(let items), .set(let items):
            guard depth <= maxDepth else { return }
            let n = items.count
            counts.collections += 1
            counts.values += n
            counts.references += n
            counts.markerAndScalarBytes += BinaryPlistOutput.markerLength(count: n)
            items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                visitMembers(count: n, depth: depth + 1) { first + $0 }
            }
        case .dictionary(let dict):
            guard depth <= maxDepth else { return }
            let n = dict.count
            counts.collections += 1
            counts.values += 2 * n
            counts.keys += n
            counts.references += 2 * n
            counts.markerAndScalarBytes += BinaryPlistOutput.markerLength(count: n)
            dict.entries.withUnsafeBufferPointer { entries in
                guard let first = entries.baseAddress else { return }
                visitMembers(count: n, depth: depth + 1) { (first + $0).pointer(to: \.key) } values: { (first + $0).pointer(to: \.value) }
            }
        default:
            countScalar(value)
        }
    }

    /// Visits the `count` members of a collection (`member(i)` is member `i`; for a dictionary, `member(i)` its
    /// key and `value(i)` its value): every one, or else a sample of them scaled to the count. The keys of a
    /// dictionary are counted before its values, as the writer writes them.
    @inline(__always)
    private mutating func visitMembers(count n: Int, depth: Int, _ member: (Int) -> UnsafePointer<PlistValue>?,
                                       values value: ((Int) -> UnsafePointer<PlistValue>?)? = nil) {
        let sampled = sampleSize.flatMap { n > 4 * $0 ? $0 : nil } ?? n
        let before = counts
        for s in 0..<sampled {
            let i = sampled == n ? s : s * (n / sampled)
            guard let p = member(i) else { continue }
            if value == nil { visitMember(p, depth: depth) } else { countKey(p) }
        }
        if let value {
            for s in 0..<sampled {
                let i = sampled == n ? s : s * (n / sampled)
                guard let p = value(i) else { continue }
                visitMember(p, depth: depth)
            }
        }
        if sampled < n {
            isExact = false
            counts = counts.scaling(since: before, by: n, over: sampled)
        }
    }

    /// A collection's member at `value`: visited when it is a collection, else counted here.
    @inline(__always)
    private mutating func visitMember(_ value: UnsafePointer<PlistValue>, depth: Int) {
        if value.pointee.isCollection {
            visit(value, depth: depth)
        } else {
            countScalar(value)
        }
    }

    /// Counts a dictionary key: a string of the storage of one counted recently is the same object. A collection
    /// (which the writer refuses as a key) counts as nothing.
    @inline(__always)
    private mutating func countKey(_ key: UnsafePointer<PlistValue>) {
        guard case .string(let s) = key.pointee, let bits = RecentStrings.bits(of: s) else {
            guard !key.pointee.isCollection else { return }
            counts.keyObjects += 1
            countScalar(key)
            return
        }
        let slot = RecentStrings.slot(bits)
        if recentKeys[slot] == bits { return }
        recentKeys[slot] = bits
        counts.keyObjects += 1
        let n = s.utf8.count
        counts.markerAndScalarBytes += BinaryPlistOutput.markerLength(count: n) + n
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
                counts.markerAndScalarBytes += v <= 0xFF ? 2 : v <= 0xFFFF ? 3 : v <= 0xFFFF_FFFF ? 5 : 9
            } else {
                counts.markerAndScalarBytes += i.high == -1 && i.low >= (1 << 63) ? 9 : 17
            }
        case .real, .date: counts.markerAndScalarBytes += 9
        case .uid(let u):
            let v = u.value
            counts.markerAndScalarBytes += v <= 0xFF ? 2 : v <= 0xFFFF ? 3 : v <= 0xFFFF_FFFF ? 5 : 9
        case .string(let s):
            let n = s.utf8.count
            counts.markerAndScalarBytes += BinaryPlistOutput.markerLength(count: n) + n
        case .data(let d):
            counts.markerAndScalarBytes += BinaryPlistOutput.markerLength(count: d.count) + d.count
        case .array, .set, .dictionary:
            break
        }
    }

    @inline(__always)
    private mutating func countConstant(_ bit: UInt8) {
        counts.constantOccurrences += 1
        if constants & bit == 0 {
            constants |= bit
            counts.markerAndScalarBytes += 1
        }
    }
}
