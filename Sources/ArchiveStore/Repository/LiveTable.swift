/// Where a live record's frame is: its key's ``KeyHash``, the frame's offset and length in the log, and the
/// record's expiry as the frame keeps it (the bits of a double; NaN for none).
struct LiveEntry: Hashable, Sendable {
    var hash: UInt64
    var offset: Int
    /// The whole frame's length; zero marks an entry no longer live (see ``LiveTable``).
    var length: Int
    var expiryBits: UInt64

    var expiry: Double? { FrameHeader.expiry(fromBits: expiryBits) }
    var isLive: Bool { length != 0 }
}

/// The live records of an open store, in memory: every live frame's ``LiveEntry``, kept in log order (each new
/// frame is appended; the entry it replaces is marked dead and the array is compacted when the dead outnumber
/// the live), and an open-addressing table from key hash to entry (linear probing from the hash's top bits,
/// backward-shift deletion, at most half full).
///
/// The hash alone does not identify a key: a lookup visits every entry with the hash and the caller compares
/// the key its frame holds.
struct LiveTable: Sendable {
    private(set) var entries: [LiveEntry] = []
    /// Entry index + 1, or 0 for an empty slot.
    private var slots: [UInt32]
    private var bits: Int
    /// The live entries.
    private(set) var count = 0

    init(capacity: Int = 0) {
        bits = 4
        while (1 << bits) < capacity * 2 { bits += 1 }
        slots = [UInt32](repeating: 0, count: 1 << bits)
        entries.reserveCapacity(capacity)
    }

    private var mask: Int { (1 << bits) - 1 }

    @inline(__always)
    private func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - bits)) }

    /// Calls `body` with the index of each live entry whose hash is `hash` until it returns `true`; returns that
    /// index, or `nil`.
    func firstIndex<Failure: Error>(hash: UInt64, where body: (Int) throws(Failure) -> Bool) throws(Failure) -> Int? {
        var slot = home(hash)
        while true {
            let value = slots[slot]
            if value == 0 { return nil }
            let index = Int(value) - 1
            if entries[index].hash == hash, try body(index) { return index }
            slot = (slot + 1) & mask
        }
    }

    /// Whether some live entry has `hash`.
    func containsHash(_ hash: UInt64) -> Bool { firstIndex(hash: hash) { _ in true } != nil }

    /// Adds the entry of a key the table does not hold; returns its index.
    @discardableResult
    mutating func insert(_ entry: LiveEntry) -> Int {
        if (count + 1) * 2 > slots.count { grow() }
        let index = entries.count
        entries.append(entry)
        count += 1
        place(UInt32(index + 1), hash: entry.hash)
        return index
    }

    /// Replaces the live entry at `index` (same key) with `entry`, appended at the end; returns its index.
    /// Indices stay valid until ``compactIfSparse()``.
    @discardableResult
    mutating func replace(_ index: Int, with entry: LiveEntry) -> Int {
        let slot = slotOf(index)
        entries[index].length = 0
        let new = entries.count
        entries.append(entry)
        slots[slot] = UInt32(new + 1)
        return new
    }

    /// Removes the live entry at `index`. Indices stay valid until ``compactIfSparse()``.
    mutating func remove(_ index: Int) {
        var i = slotOf(index)
        entries[index].length = 0
        count -= 1
        var j = i
        while true {
            j = (j + 1) & mask
            let value = slots[j]
            if value == 0 { break }
            let k = home(entries[Int(value) - 1].hash)
            let stays = i <= j ? (i < k && k <= j) : (i < k || k <= j)
            if !stays {
                slots[i] = value
                i = j
            }
        }
        slots[i] = 0
    }

    /// Calls `body` with every live entry, in log order.
    func forEachLive<Failure: Error>(_ body: (LiveEntry) throws(Failure) -> Void) throws(Failure) {
        for entry in entries where entry.isLive { try body(entry) }
    }

    /// The live entries, in log order.
    var liveEntries: [LiveEntry] {
        var result: [LiveEntry] = []
        result.reserveCapacity(count)
        forEachLive { result.append($0) }
        return result
    }

    /// The slot that holds `index`.
    private func slotOf(_ index: Int) -> Int {
        var slot = home(entries[index].hash)
        while slots[slot] != UInt32(index + 1) { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func place(_ value: UInt32, hash: UInt64) {
        var slot = home(hash)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = value
    }

    private mutating func grow() {
        bits += 1
        rebuildSlots()
    }

    /// Drops dead entries once they outnumber the live ones (amortized: each dead entry is moved at most once).
    /// Changes the indices of entries: callers call it between batches of changes.
    mutating func compactIfSparse() {
        guard entries.count > 2 * count + 1024 else { return }
        entries.removeAll { !$0.isLive }
        rebuildSlots()
    }

    private mutating func rebuildSlots() {
        slots = [UInt32](repeating: 0, count: 1 << bits)
        for (index, entry) in entries.enumerated() where entry.isLive { place(UInt32(index + 1), hash: entry.hash) }
    }
}
