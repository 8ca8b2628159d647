/// The UIDs whose decoding has begun and not finished (the unarchiver's cycle check), one bit per UID.
/// A `Set<Int>` hashed every object; the archive's object count bounds the UIDs, so a bit array does.
struct UIDBitSet {
    private var words: [UInt64]

    init(count: Int) {
        words = Array(repeating: 0, count: (max(count, 0) + 63) >> 6)
    }

    @inline(__always)
    func contains(_ uid: Int) -> Bool {
        let w = uid >> 6
        guard uid >= 0, w < words.count else { return false }
        return words[w] & (1 << UInt64(uid & 63)) != 0
    }

    @inline(__always)
    mutating func insert(_ uid: Int) {
        let w = uid >> 6
        guard uid >= 0, w < words.count else { return }
        words[w] |= 1 << UInt64(uid & 63)
    }

    @inline(__always)
    mutating func remove(_ uid: Int) {
        let w = uid >> 6
        guard uid >= 0, w < words.count else { return }
        words[w] &= ~(1 << UInt64(uid & 63))
    }
}

/// Resolved class dictionaries by UID. Archives hold few classes, so the first ones are found by a linear
/// scan of a short array (no hashing per object); any beyond those go to a dictionary.
struct ResolvedClassCache {
    private var uids: [Int] = []
    private var classes: [ResolvedClass] = []
    private var overflow: [Int: ResolvedClass] = [:]
    private static let linearLimit = 16

    subscript(classUID: Int) -> ResolvedClass? {
        get {
            for i in uids.indices where uids[i] == classUID { return classes[i] }
            return uids.count < Self.linearLimit ? nil : overflow[classUID]
        }
        set {
            guard let newValue else { return }
            if uids.count < Self.linearLimit {
                uids.append(classUID)
                classes.append(newValue)
            } else {
                overflow[classUID] = newValue
            }
        }
    }
}
