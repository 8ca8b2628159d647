import ArchivePlatform

/// A key compared by its UTF-8 bytes, as entry files are named: `"é"` and `"e\u{301}"` are two keys,
/// although Swift's `String ==` calls them equal.
struct CacheKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (a: CacheKey, b: CacheKey) -> Bool {
        let x = a.text.utf8, y = b.text.utf8
        guard x.count == y.count else { return false }
        let same: Bool?? = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                guard let left = p.baseAddress, let right = q.baseAddress else { return true }   // both empty
                return Kernel.bytesEqual(left, right, count: p.count)
            }
        }
        return (same ?? nil) ?? x.elementsEqual(y)
    }

    func hash(into hasher: inout Hasher) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in text.utf8 { hasher.combine(byte) } }
    }
}
