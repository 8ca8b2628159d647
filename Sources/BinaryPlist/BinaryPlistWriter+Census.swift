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
struct WriterCensus {
    let maxDepth: Int
    /// Every value of the tree, the top one included, each key and value of a dictionary counted.
    private(set) var values = 1
    /// The collections among ``values``.
    private(set) var collections = 0
    /// The dictionary keys among ``values``.
    private(set) var keys = 0

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    /// The scalars that are not dictionary keys (each may be a new object; keys repeat).
    var valueScalars: Int { values - collections - keys }

    /// Checks and counts the value at `value` and everything in it; `depth` is its nesting (the top object is
    /// 1). Values are looked at where they are (see the writer's `add(_:)`). Recursion is bounded by `maxDepth`.
    mutating func visit(_ value: UnsafePointer<PlistValue>, depth: Int) throws {
        switch value.pointee {
        case .array(let items), .set(let items):
            try checkDepth(depth)
            collections += 1
            values += items.count
            try items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                for i in items.indices where items[i].isCollection { try visit(first + i, depth: depth + 1) }
            }
        case .dictionary(let dict):
            try checkDepth(depth)
            collections += 1
            values += 2 * dict.count
            keys += dict.count
            try dict.entries.withUnsafeBufferPointer { entries in
                for i in entries.indices where entries[i].key.isCollection {
                    throw PlistError(.invalidKey, "\(entries[i].key.kindNameWithArticle) cannot be a dictionary key")
                }
                guard let first = entries.baseAddress else { return }
                for i in entries.indices where entries[i].value.isCollection {
                    guard let value = (first + i).pointer(to: \.value) else { continue }
                    try visit(value, depth: depth + 1)
                }
            }
        default:
            break
        }
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > maxDepth {
            throw PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)")
        }
    }
}
