/// The writer's scalar uniquing, by encoded bytes: two scalars share one object exactly when their encodings
/// are equal, which is the rule of ``BinaryPlistWriter`` (integers by value, reals and dates by bit pattern,
/// data and ASCII strings by their bytes, `1`, `1.0` and `true` apart since their markers differ). Strings
/// that are not ASCII compare as Swift strings (canonical equivalence) in a `Dictionary`, as they always did;
/// see ``BinaryPlistWriter``'s `string(_:)`.
///
/// An open-addressing table with linear probing, at most half full, whose slots hold the object number (an
/// `Object`: `UInt32` for a plist that cannot reach 2^32 - 1 objects, 8-byte slots, else `UInt`, 16-byte slots)
/// and 32 bits of its encoding's hash (the writer gives each object's bytes, ``ObjectEncodings``): a lookup
/// hashes the candidate's bytes once and compares bytes only on an equal hash. The hash is a multiply-and-fold
/// over eight bytes at a time, seeded per process; should a probe ever run past ``longProbe`` slots (values crafted to collide), the table
/// switches for good to Swift's `Hasher` (SipHash, seeded per process) and rehashes what it holds, so crafted
/// values cannot make writing quadratic. The table only finds objects; the output never depends on it.
struct EncodedScalarTable<Object: FixedWidthInteger & UnsignedInteger> {
    private struct Slot {
        /// ``empty`` marks an empty slot.
        var object: Object
        var hash: UInt32
    }

    /// The object number of an empty slot (no object has it: the writer sizes `Object` to exceed every number).
    private static var empty: Object { Object.max }

    /// Where each object's encoding lies in the scalar buffer: the writer's object list.
    typealias Objects = UnsafeBufferPointer<WrittenObject>

    private var slots: [Slot]
    private var count = 0
    /// Whether the table hashes with `Hasher` (after a long probe).
    private(set) var strong = false
    /// A probe longer than this with the fast hash switches the table to `Hasher` (48 slots by default).
    private let longProbe: Int
    /// The process's seed, read once (a global's lazy initialization is checked at each read).
    private let seed = processSeed
    /// What ``touch(_:)`` loaded, kept so that the loads are made.
    private var touched = 0

    /// Whether the table is larger than the caches keep close (64 Ki slots, half a megabyte or one), so that
    /// touching a slot ahead saves a wait.
    var outgrowsCaches: Bool { slots.count >= 1 << 16 }

    /// A table for `capacity` encodings: twice as many slots, a multiple of 16 (no power of two: a slot is found
    /// from the hash by a multiply, ``slot(of:size:)``, so no rounding up wastes memory that a large plist
    /// would pay in fresh pages and cache misses). It doubles when it is half full.
    init(capacity: Int = 512, longProbe: Int = 48) {
        self.longProbe = longProbe
        let size = max(16, (2 * max(capacity, 0) + 15) & ~15)
        slots = Array(repeating: Slot(object: Self.empty, hash: 0), count: size)
    }

    /// The first slot of `hash` in a table of `size` slots: the low 32 bits of the hash (what a slot keeps of
    /// it) scaled to the size, so that `place(_:size:)` finds it again from the kept bits.
    @inline(__always)
    static func slot(of hash: Int, size: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt32(truncatingIfNeeded: hash)) &* UInt64(truncatingIfNeeded: size)) >> 32)
    }

    /// The hash of an encoding: of its first byte and its body (what follows the marker), so that a writer can
    /// hash a value before it writes it, from the value's own bytes (``hash(marker:body:)``).
    @inline(__always)
    func hash(_ encoding: UnsafeRawBufferPointer) -> Int {
        guard let first = encoding.first else { return hash(marker: 0, body: encoding) }
        let header = Self.markerLength(encoding)
        return hash(marker: first, body: UnsafeRawBufferPointer(rebasing: encoding[header...]))
    }

    /// The hash of the encoding whose first byte is `marker` and whose bytes after the marker are `body`.
    @inline(__always)
    func hash(marker: UInt8, body: UnsafeRawBufferPointer) -> Int {
        if strong { return Self.strongHash(marker: marker, body: body) }
        return Self.fastHash(body, seed: seed ^ UInt64(marker) << 56)
    }

    /// The length of an encoding's marker: the first byte, and for data and strings of 15 and more units
    /// (`0x4F`, `0x5F`, `0x6F`) the integer object of the count after it. Any bytes get a length (at most
    /// theirs); equal encodings get equal lengths, which is all the hash needs.
    @inline(__always)
    static func markerLength(_ encoding: UnsafeRawBufferPointer) -> Int {
        guard encoding.count >= 2 else { return encoding.count }
        let first = encoding[0]
        let kind = first >> 4
        guard first & 0x0F == 0x0F, kind >= 4 && kind <= 6, encoding[1] >> 4 == 1 else { return 1 }
        return min(2 + (1 << Int(encoding[1] & 0x03)), encoding.count)
    }

    @inline(never)
    static func strongHash(marker: UInt8, body: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(marker)
        hasher.combine(body.count)
        hasher.combine(bytes: body)
        return hasher.finalize()
    }

    /// Loads the first slot of `hash`, so that its cache line is on its way before the lookup: a writer touches
    /// the slots of a collection's scalars before it writes them, and their cache misses overlap instead of
    /// coming one at a time. Changes nothing the table finds.
    @inline(__always)
    mutating func touch(_ hash: Int) {
        guard hash != Self.noHash else { return }
        touched &+= slots.withUnsafeBufferPointer { Int(truncatingIfNeeded: $0[Self.slot(of: hash, size: $0.count)].object) }
    }

    /// Eight bytes per step, each folded in by a full-width multiply (the high and low halves xored).
    @inline(__always)
    static func fastHash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> Int {
        var h = seed ^ UInt64(truncatingIfNeeded: bytes.count)
        var i = 0
        let n = bytes.count
        while n - i >= 8 {
            let m = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)).multipliedFullWidth(by: 0x9FB2_1C65_1E98_DF25)
            h = m.high ^ m.low
            i += 8
        }
        let tail = tailBits(bytes, from: i)
        let m = (h ^ tail ^ 0xA076_1D64_78BD_642F).multipliedFullWidth(by: 0xE703_7ED1_A0B4_28DB)
        return Int(truncatingIfNeeded: m.high ^ m.low)
    }

    /// The last `bytes.count - i` bytes (fewer than eight), byte `k` of them at bit `8 * k`, read in at most
    /// three loads instead of a loop: an overlapping 8-byte load when there are eight bytes to read, else two
    /// overlapping 4-byte loads, else three single bytes (the first, the middle and the last).
    @inline(__always)
    static func tailBits(_ bytes: UnsafeRawBufferPointer, from i: Int) -> UInt64 {
        let n = bytes.count
        let r = n - i
        if r == 0 { return 0 }
        if n >= 8 {
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) >> UInt64(8 * (8 - r))
        }
        if r >= 4 {
            let low = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)))
            return low | high << UInt64(8 * (r - 4))
        }
        let middle = r / 2
        return UInt64(bytes[i]) | UInt64(bytes[i + middle]) << UInt64(8 * middle) | UInt64(bytes[n - 1]) << UInt64(8 * (r - 1))
    }

    /// The object whose encoding is `buffer[start..<end]`, or else `candidate`, registered for it.
    @inline(__always)
    mutating func object(for buffer: UnsafeRawBufferPointer, _ start: Int, _ end: Int, objects: Objects,
                         candidate: Int) -> Int {
        object(for: UnsafeRawBufferPointer(rebasing: buffer[start..<end]), in: WrittenEncodings(bytes: buffer, objects: objects),
               candidate: candidate)
    }

    /// The object whose encoding is `buffer[start..<end]`, if there is one (nothing is registered).
    func existingObject(for buffer: UnsafeRawBufferPointer, _ start: Int, _ end: Int, objects: Objects) -> Int? {
        existingObject(for: UnsafeRawBufferPointer(rebasing: buffer[start..<end]),
                       in: WrittenEncodings(bytes: buffer, objects: objects))
    }

    /// The object whose encoding is `key`, or else `candidate`, registered for it; `objects` has the encoding of
    /// every object the table holds.
    @inline(__always)
    mutating func object(for key: UnsafeRawBufferPointer, in objects: some ObjectEncodings, candidate: Int) -> Int {
        object(for: key, hash: Self.noHash, in: objects, candidate: candidate)
    }

    /// No hash computed ahead (see ``object(for:hash:in:candidate:)``).
    static var noHash: Int { Int.min }

    /// ``object(for:in:candidate:)`` with `hash`, the key's ``hash(_:)`` computed ahead (``noHash`` for none),
    /// used when the table has hashed the same way since (it is computed again after a switch to `Hasher`).
    @inline(__always)
    mutating func object(for key: UnsafeRawBufferPointer, hash ahead: Int, in objects: some ObjectEncodings,
                         candidate: Int) -> Int {
        var hash = ahead != Self.noHash && !strong ? ahead : hash(key)
        var (i, probes) = position(of: key, hash: hash, objects)
        if slots[i].object != Self.empty { return Int(truncatingIfNeeded: slots[i].object) }
        if probes > longProbe && !strong {
            rehashStrongly(objects)
            hash = self.hash(key)
            i = position(of: key, hash: hash, objects).slot
        }
        slots[i] = Slot(object: Object(truncatingIfNeeded: candidate), hash: UInt32(truncatingIfNeeded: hash))
        count += 1
        if count * 2 > slots.count { grow() }
        return candidate
    }

    /// The object whose encoding is `key`, if there is one (nothing is registered).
    func existingObject(for key: UnsafeRawBufferPointer, in objects: some ObjectEncodings) -> Int? {
        let object = slots[position(of: key, hash: hash(key), objects).slot].object
        return object != Self.empty ? Int(truncatingIfNeeded: object) : nil
    }

    /// The slot that holds `key`, or else the empty slot where it would go, and the slots probed before it.
    @inline(__always)
    private func position(of key: UnsafeRawBufferPointer, hash: Int, _ objects: some ObjectEncodings) -> (slot: Int, probes: Int) {
        let hash32 = UInt32(truncatingIfNeeded: hash)
        return slots.withUnsafeBufferPointer { table in
            var i = Self.slot(of: hash, size: table.count)
            var probes = 0
            while table[i].object != Self.empty {
                let slot = table[i]
                if slot.hash == hash32 {
                    let encoding = objects.encoding(of: Int(truncatingIfNeeded: slot.object))
                    if encoding.count == key.count && Self.equal(encoding, key) {
                        return (i, probes)
                    }
                }
                i += 1
                if i == table.count { i = 0 }
                probes += 1
            }
            return (i, probes)
        }
    }

    /// Switches to `Hasher` and places every held encoding again by its new hash.
    private mutating func rehashStrongly(_ objects: some ObjectEncodings) {
        strong = true
        for i in slots.indices where slots[i].object != Self.empty {
            slots[i].hash = UInt32(truncatingIfNeeded: hash(objects.encoding(of: Int(truncatingIfNeeded: slots[i].object))))
        }
        place(slots, size: slots.count)
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i + 8 <= a.count {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i += 8
        }
        while i < a.count {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// Doubles the table; the hashes are kept, so no bytes are hashed again.
    private mutating func grow() {
        place(slots, size: slots.count * 2)
    }

    /// Makes the table `size` slots holding the full slots of `old`, each where its hash puts it; the new table
    /// is filled through a pointer (no uniqueness check per slot) before it replaces the old one.
    private mutating func place(_ old: [Slot], size: Int) {
        var table = Array(repeating: Slot(object: Self.empty, hash: 0), count: size)
        table.withUnsafeMutableBufferPointer { table in
            old.withUnsafeBufferPointer { old in
                for slot in old where slot.object != Self.empty {
                    var i = Self.slot(of: Int(slot.hash), size: size)
                    while table[i].object != Self.empty {
                        i += 1
                        if i == size { i = 0 }
                    }
                    table[i] = slot
                }
            }
        }
        slots = table
    }
}

/// One object of a plist being written: a scalar's byte range in the scalar buffer, or a collection's range of
/// the reference pool.
struct WrittenObject {
    /// 0 for a scalar, else the collection marker's high nibble (0xA0, 0xC0, 0xD0).
    var kind: UInt8
    /// Scalar: first byte in the scalar buffer; collection: first slot in the pool.
    var start: Int
    /// Scalar: byte count; collection: element (or key/value pair) count.
    var count: Int
}

/// Where the uniquing table finds the encoding of each object it holds.
protocol ObjectEncodings {
    /// The encoded bytes of `object`, an object the table holds.
    func encoding(of object: Int) -> UnsafeRawBufferPointer
}

/// The encodings of an object list of ``WrittenObject``s: each scalar's byte range of `bytes`.
struct WrittenEncodings: ObjectEncodings {
    let bytes: UnsafeRawBufferPointer
    let objects: UnsafeBufferPointer<WrittenObject>

    @inline(__always)
    func encoding(of object: Int) -> UnsafeRawBufferPointer {
        let o = objects[object]
        return UnsafeRawBufferPointer(rebasing: bytes[o.start..<(o.start + o.count)])
    }
}

/// A seed for the writer's fast hash, taken once per process from `Hasher`'s random seed.
private let processSeed: UInt64 = {
    var hasher = Hasher()
    hasher.combine(0x6270_6C69_7374 as UInt64)
    return UInt64(truncatingIfNeeded: hasher.finalize())
}()

/// The ASCII string that Swift's `==` (canonical equivalence) finds equal to `s`, when `s` is not ASCII: only
/// three scalars decompose canonically to ASCII (U+037E GREEK QUESTION MARK to `;`, U+1FEF GREEK VARIA to
/// `` ` ``, U+212A KELVIN SIGN to `K`), so such a string is made of ASCII and those three; `nil` for any other
/// string. The writer uniques strings with `==`: "K" and "\u{212A}" are one object.
func asciiEquivalent(of s: String) -> [UInt8]? {
    var out: [UInt8] = []
    for scalar in s.unicodeScalars {
        switch scalar.value {
        case 0..<0x80: out.append(UInt8(scalar.value))
        case 0x037E: out.append(0x3B)
        case 0x1FEF: out.append(0x60)
        case 0x212A: out.append(0x4B)
        default: return nil
        }
    }
    return out
}

/// The writer's recently seen strings by their 16 bytes: a native string's storage and count, or a small
/// string's characters. Equal bytes are the same string, so its object is known without hashing its text;
/// each slot keeps its string, so that no storage is freed and its address reused while the slot names it.
/// Direct-mapped: the keys of a plist's many dictionaries, which repeat, stay; a new string evicts one.
struct RecentStrings {
    private var bits: [(UInt64, UInt64)]
    private var strings: [String]
    private var objects: [Int]

    init() {
        bits = Array(repeating: (0, 0), count: 256)
        strings = Array(repeating: "", count: 256)
        objects = Array(repeating: -1, count: 256)
    }

    /// The 16 bytes of `s`, or `nil` where a `String` is not 16 bytes (32-bit platforms: no cache there).
    @inline(__always)
    static func bits(of s: String) -> (UInt64, UInt64)? {
        guard MemoryLayout<String>.size == 16 else { return nil }
        return withUnsafeBytes(of: s) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                         $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    @inline(__always)
    static func slot(_ b: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((b.0 ^ (b.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xFF51_AFD7_ED55_8CCD) >> 56)
    }

    @inline(__always)
    subscript(b: (UInt64, UInt64)) -> Int? {
        let i = Self.slot(b)
        return objects[i] >= 0 && bits[i] == b ? objects[i] : nil
    }

    @inline(__always)
    mutating func insert(_ s: String, _ b: (UInt64, UInt64), _ object: Int) {
        let i = Self.slot(b)
        bits[i] = b
        strings[i] = s
        objects[i] = object
    }
}
