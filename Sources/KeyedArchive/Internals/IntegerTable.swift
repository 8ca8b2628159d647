/// An open-addressing hash map from 64-bit keys to non-negative `Int32` values, for the archiver's hot
/// uniquing paths (reals by bit pattern, integers, object identities) where `Dictionary`'s seeded hashing
/// dominates. Key and value share one slot, so a probe touches one cache line.
struct IntegerTable {
    private struct Slot {
        var key: UInt64
        /// -1 marks an empty slot.
        var value: Int32
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: Slot(key: 0, value: -1), count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        // MurmurHash3's 64-bit finalizer: reals and pointers differ mostly in a few high or middle bits.
        var k = key
        k ^= k >> 33
        k &*= 0xFF51_AFD7_ED55_8CCD
        k ^= k >> 33
        k &*= 0xC4CE_B9FE_1A85_EC53
        k ^= k >> 33
        return Int(truncatingIfNeeded: k) & mask
    }

    subscript(key: UInt64) -> Int32? {
        slots.withUnsafeBufferPointer { table in
            var i = slot(key)
            while table[i].value >= 0 {
                if table[i].key == key { return table[i].value }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    /// Adds `key` (not yet present) with a non-negative `value`.
    mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + 1) * 2 > slots.count { grow() }
        var i = slot(key)
        while slots[i].value >= 0 {
            if slots[i].key == key {
                slots[i].value = value
                return
            }
            i = (i + 1) & mask
        }
        slots[i] = Slot(key: key, value: value)
        count += 1
    }

    private mutating func grow() {
        let old = slots
        let size = slots.count * 2
        slots = Array(repeating: Slot(key: 0, value: -1), count: size)
        mask = size - 1
        count = 0
        for s in old where s.value >= 0 { insert(s.key, s.value) }
    }
}

/// A direct-mapped cache from 64-bit keys to `Int32` values: a fixed table small enough to stay in the CPU
/// cache, where a new key evicts the one in its slot. The builder uniques reals and integers through it,
/// so repeated values (constants, common sizes) share one plist object while a stream of distinct values
/// costs no large-table cache misses. The result depends only on the input, so output stays deterministic.
struct RecentIntegerCache {
    private var keys: [UInt64]
    private var values: [Int32]
    private let mask: Int

    init(size: Int = 8192) {
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: -1, count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        var k = key
        k ^= k >> 33
        k &*= 0xFF51_AFD7_ED55_8CCD
        k ^= k >> 33
        return Int(truncatingIfNeeded: k) & mask
    }

    @inline(__always)
    subscript(key: UInt64) -> Int32? {
        let i = slot(key)
        return values[i] >= 0 && keys[i] == key ? values[i] : nil
    }

    @inline(__always)
    mutating func insert(_ key: UInt64, _ value: Int32) {
        let i = slot(key)
        keys[i] = key
        values[i] = value
    }
}
