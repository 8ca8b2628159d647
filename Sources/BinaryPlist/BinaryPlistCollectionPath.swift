/// The collections open on the current path from the top of a read, outermost first: how the event reader
/// refuses a collection that contains itself.
///
/// The first ``shallowCount`` are searched in order; the ones deeper than that are also kept in a set. Nothing
/// is allocated in proportion to the document, so reading each of many objects alone stays linear.
///
/// Mirrors the `objset` of CoreFoundation's `__CFBinaryPlistCreateObjectFiltered`, which refuses a collection
/// already being created further up.
@usableFromInline
struct CollectionPath {
    private var path: [Int] = []
    private var deep: Set<Int> = []
    static let shallowCount = 16

    @usableFromInline init() {}

    /// Whether collection `index` is open on the path.
    @usableFromInline func contains(_ index: Int) -> Bool {
        if path.prefix(Self.shallowCount).contains(index) { return true }
        return path.count > Self.shallowCount && deep.contains(index)
    }

    /// Opens collection `index` below the ones on the path.
    @usableFromInline mutating func enter(_ index: Int) {
        path.append(index)
        if path.count > Self.shallowCount { deep.insert(index) }
    }

    /// Closes the innermost collection.
    @usableFromInline mutating func leave() {
        if path.count > Self.shallowCount, let index = path.last { deep.remove(index) }
        path.removeLast()
    }
}
