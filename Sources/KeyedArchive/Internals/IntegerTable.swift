/// An open-addressing hash map from 64-bit keys to `Int32`, for the archiver's hot uniquing paths (reals by
/// bit pattern, integers, object identities) where `Dictionary`'s seeded hashing dominates.
struct IntegerTable {
    private var keys: [UInt64]
    private var values: [Int32]
    private var occupied: [Bool]
    private var mask: Int
    private var shift: UInt64
    private(set) var count = 0

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: -1, count: size)
        occupied = Array(repeating: false, count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        // Fibonacci hashing (the high bits of the product), after folding the high half into the low half.
        Int(truncatingIfNeeded: ((key ^ (key >> 32)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    subscript(key: UInt64) -> Int32? {
        var i = slot(key)
        while occupied[i] {
            if keys[i] == key { return values[i] }
            i = (i + 1) & mask
        }
        return nil
    }

    mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        var i = slot(key)
        while occupied[i] {
            if keys[i] == key {
                values[i] = value
                return
            }
            i = (i + 1) & mask
        }
        occupied[i] = true
        keys[i] = key
        values[i] = value
        count += 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values, oldOccupied = occupied
        let size = keys.count * 2
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: -1, count: size)
        occupied = Array(repeating: false, count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
        count = 0
        for i in oldKeys.indices where oldOccupied[i] { insert(oldKeys[i], oldValues[i]) }
    }
}
