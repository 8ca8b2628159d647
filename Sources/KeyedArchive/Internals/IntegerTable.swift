/// The power of two, at least 16, that keeps `capacity` entries at most half full.
func hashTableSize(forCapacity capacity: Int) -> Int {
    var size = 16
    while size < capacity * 2 { size <<= 1 }
    return size
}

/// An open-addressing hash map from object identities (addresses) to non-negative `Int32` values, for the
/// archiver's shared-reference tracking, where `Dictionary`'s seeded hashing dominates. Key and value share
/// one slot, so a probe touches one cache line.
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
        let size = hashTableSize(forCapacity: capacity)
        slots = Array(repeating: Slot(key: 0, value: -1), count: size)
        mask = size - 1
    }

    /// Keys are object addresses (identities), which come from this process's allocator, never from input.
    /// Objects allocated one after another sit close together, so the slot keeps that locality (the address
    /// in 16-byte units) and folds in the higher bits to spread distant regions: a million identities are
    /// then probed mostly in sequence instead of one cache miss each, which keeps encoding linear in the
    /// number of objects.
    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key >> 4) ^ (key >> 24)) & mask
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

/// An open-addressing hash map from strings to non-negative `Int32` values, for the builder's string
/// uniquing. Each slot keeps the string's hash, so growing never hashes a string again, and the hash is an
/// unseeded multiply-and-fold over the UTF-8 bytes, eight at a time (cheaper than `Hasher`, which also
/// needs a seed per call). The table only finds values; the order of the output never depends on it.
struct StringTable {
    private struct Slot {
        var hash: UInt64
        /// -1 marks an empty slot.
        var value: Int32
        var string: String
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        let size = hashTableSize(forCapacity: capacity)
        slots = Array(repeating: Slot(hash: 0, value: -1, string: ""), count: size)
        mask = size - 1
    }

    @inline(__always)
    static func hash(_ s: String) -> UInt64 {
        if let h = s.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) { return h }
        return Array(s.utf8).withUnsafeBytes { hash($0) }
    }

    /// Eight bytes per step, each step a multiply and a fold (MurmurHash3's constants).
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < bytes.count {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 29)
    }

    /// The value for `s`, after inserting `value` for it if `s` is new.
    mutating func uniqueValue(for s: String, _ value: Int32) -> Int32 {
        let h = Self.hash(s)
        var i = Int(truncatingIfNeeded: h) & mask
        while slots[i].value >= 0 {
            if slots[i].hash == h && slots[i].string == s { return slots[i].value }
            i = (i + 1) & mask
        }
        slots[i] = Slot(hash: h, value: value, string: s)
        count += 1
        if count * 2 > slots.count { grow() }
        return value
    }

    private mutating func grow() {
        let old = slots
        let size = slots.count * 2
        slots = Array(repeating: Slot(hash: 0, value: -1, string: ""), count: size)
        mask = size - 1
        for slot in old where slot.value >= 0 {
            var i = Int(truncatingIfNeeded: slot.hash) & mask
            while slots[i].value >= 0 { i = (i + 1) & mask }
            slots[i] = slot
        }
    }
}
