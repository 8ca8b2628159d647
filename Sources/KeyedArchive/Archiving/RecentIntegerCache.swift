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
