/// An open-addressing hash map from keys to non-negative `Int32` values, with linear probing and at most half
/// of its slots full: the archiver's table of shared references (``IdentityTable``) and the builder's string
/// uniquing (``StringTable``), where `Dictionary`'s seeded hashing dominates. Key and value share one slot, so
/// a probe touches one cache line. The table only finds values; the order of the output never depends on it.
struct HashTable<Key: HashTableKey> {
    private struct Slot {
        var key: Key
        /// -1 marks an empty slot.
        var value: Int32
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    /// A table that holds `capacity` keys before it first grows.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: Slot(key: .placeholder, value: -1), count: size)
        mask = size - 1
    }

    /// The slot that holds `key`, or else the empty slot where it would go.
    @inline(__always)
    private func position(of key: Key, in table: UnsafeBufferPointer<Slot>) -> Int {
        var i = key.tableHash & mask
        while table[i].value >= 0 && table[i].key != key { i = (i + 1) & mask }
        return i
    }

    subscript(key: Key) -> Int32? {
        slots.withUnsafeBufferPointer { table in
            let value = table[position(of: key, in: table)].value
            return value >= 0 ? value : nil
        }
    }

    /// Empties the table, keeping its storage (an archiver encoding another archive).
    mutating func removeAll() {
        guard count > 0 else { return }
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: Slot(key: .placeholder, value: -1)) }
        count = 0
    }

    /// Sets the value of `key` to `value` (non-negative).
    mutating func insert(_ key: Key, _ value: Int32) {
        let i = slots.withUnsafeBufferPointer { position(of: key, in: $0) }
        if slots[i].value >= 0 {
            slots[i].value = value
        } else {
            add(key, value, at: i)
        }
    }

    /// The value of `key`, after inserting `value` (non-negative) for it if `key` is new.
    mutating func uniqueValue(for key: Key, _ value: Int32) -> Int32 {
        let i = slots.withUnsafeBufferPointer { position(of: key, in: $0) }
        if slots[i].value >= 0 { return slots[i].value }
        add(key, value, at: i)
        return value
    }

    private mutating func add(_ key: Key, _ value: Int32, at i: Int) {
        slots[i] = Slot(key: key, value: value)
        count += 1
        if count * 2 > slots.count { grow() }
    }

    /// Doubles the table. Keys are distinct, so each goes to the first empty slot of its probe, and its
    /// ``HashTableKey/tableHash`` is all that is computed again.
    private mutating func grow() {
        let old = slots
        let size = slots.count * 2
        slots = Array(repeating: Slot(key: .placeholder, value: -1), count: size)
        mask = size - 1
        for slot in old where slot.value >= 0 {
            var i = slot.key.tableHash & mask
            while slots[i].value >= 0 { i = (i + 1) & mask }
            slots[i] = slot
        }
    }
}

/// A key of a ``HashTable``.
protocol HashTableKey: Equatable {
    /// The key held by empty slots (never compared: a slot's value says whether it is empty).
    static var placeholder: Self { get }
    /// Where the key's probe starts, before the table's mask takes the low bits. Cheap: it is computed again
    /// for every key when the table grows.
    var tableHash: Int { get }
}

/// The archiver's shared references: object identity -> UID.
typealias IdentityTable = HashTable<IdentityKey>

/// An object's address, the key of an ``IdentityTable``.
struct IdentityKey: HashTableKey {
    var address: UInt64

    init(_ id: ObjectIdentifier) { address = UInt64(UInt(bitPattern: id)) }

    static var placeholder: IdentityKey { IdentityKey(address: 0) }

    private init(address: UInt64) { self.address = address }

    /// Addresses come from this process's allocator, never from input. Objects allocated one after another
    /// sit close together, so the slot keeps that locality (the address in 16-byte units) and folds in the
    /// higher bits to spread distant regions: a million identities are then probed mostly in sequence instead
    /// of one cache miss each, which keeps encoding linear in the number of objects.
    @inline(__always)
    var tableHash: Int { Int(truncatingIfNeeded: (address >> 4) ^ (address >> 24)) }
}

/// The builder's string uniquing: string -> plist object.
typealias StringTable = HashTable<HashedString>

extension HashTable where Key == HashedString {
    /// The value of `s`, after inserting `value` (non-negative) for it if `s` is new.
    @inline(__always)
    mutating func uniqueValue(for s: String, _ value: Int32) -> Int32 { uniqueValue(for: HashedString(s), value) }
}

/// A string with its hash, the key of a ``StringTable``: slots compare hashes before strings, and growing the
/// table never hashes a string again. The hash is an unseeded multiply-and-fold over the UTF-8 bytes, eight at
/// a time (cheaper than `Hasher`, which also needs a seed per call).
struct HashedString: HashTableKey {
    let hash: UInt64
    let string: String

    @inline(__always)
    init(_ string: String) {
        self.init(hash: Self.hash(string), string: string)
    }

    private init(hash: UInt64, string: String) {
        self.hash = hash
        self.string = string
    }

    static var placeholder: HashedString { HashedString(hash: 0, string: "") }

    @inline(__always)
    var tableHash: Int { Int(truncatingIfNeeded: hash) }

    @inline(__always)
    static func == (a: HashedString, b: HashedString) -> Bool { a.hash == b.hash && a.string == b.string }

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
}

/// A `$classes` chain with its hash, the key of the archiver's class dictionaries: the chain's names hashed as
/// ``HashedString`` hashes them, folded in order.
struct HashedChain: HashTableKey {
    let hash: UInt64
    let chain: [String]

    init(_ chain: [String]) {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(chain.count)
        for name in chain { h = (h ^ HashedString.hash(name)) &* 0xFF51_AFD7_ED55_8CCD; h ^= h >> 32 }
        self.init(hash: h, chain: chain)
    }

    private init(hash: UInt64, chain: [String]) {
        self.hash = hash
        self.chain = chain
    }

    static var placeholder: HashedChain { HashedChain(hash: 0, chain: []) }

    @inline(__always)
    var tableHash: Int { Int(truncatingIfNeeded: hash) }

    @inline(__always)
    static func == (a: HashedChain, b: HashedChain) -> Bool { a.hash == b.hash && a.chain == b.chain }
}
