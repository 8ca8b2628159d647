/// A direct-mapped cache from 64-bit keys to `Int32` values: a fixed table small enough to stay in the CPU
/// cache, where a new key evicts the one in its slot. The builder uniques reals and integers through it,
/// so repeated values (constants, common sizes) share one plist object while a stream of distinct values
/// costs no large-table cache misses. The result depends only on the input, so output stays deterministic.
struct RecentIntegerCache {
    /// A slot: its key and its value (-1: empty). One array, so that a lookup and an insert touch one buffer
    /// (one bounds check, one uniqueness check for the insert).
    private struct Slot {
        var key: UInt64
        var value: Int32
    }

    private var slots: [Slot]
    private var mask: Int
    /// The size the cache grows to as values are inserted (it starts small, so that a small archive does not
    /// pay for clearing a large one).
    private let largest: Int
    private var inserted = 0

    init(size: Int = 8192) {
        largest = size
        let initial = min(size, 64)
        slots = Array(repeating: Slot(key: 0, value: -1), count: initial)
        mask = initial - 1
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
        let entry = slots[slot(key)]
        return entry.value >= 0 && entry.key == key ? entry.value : nil
    }

    @inline(__always)
    mutating func insert(_ key: UInt64, _ value: Int32) {
        inserted += 1
        if inserted > slots.count / 2 && slots.count < largest { grow() }
        slots[slot(key)] = Slot(key: key, value: value)
    }

    /// Empties the cache and gives it its first size again (an archiver encoding another archive): what it
    /// uniques depends on its size, and an archive's bytes must not depend on the archives before it.
    mutating func removeAll() {
        guard inserted > 0 else { return }
        let initial = min(largest, 64)
        if slots.count == initial {
            slots.withUnsafeMutableBufferPointer { $0.update(repeating: Slot(key: 0, value: -1)) }
        } else {
            slots = Array(repeating: Slot(key: 0, value: -1), count: initial)
            mask = initial - 1
        }
        inserted = 0
    }

    /// Doubles the cache, keeping what it holds.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: 0, value: -1), count: old.count * 2)
        mask = slots.count - 1
        for entry in old where entry.value >= 0 { slots[slot(entry.key)] = entry }
    }
}
