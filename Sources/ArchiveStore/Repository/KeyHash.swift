/// The 64-bit hash under which a record's key is filed in a repository's id table and index file:
/// SipHash-1-3 (Aumasson and Bernstein; one compression and three finalization rounds, as Rust's and Python's
/// hash tables use it) of the key's bytes, keyed with the log's generation (`k0`) and its complement (`k1`).
///
/// The key changes with every log file, so ids nobody can predict the hashes of cannot be chosen to pile up on
/// one slot of the table. Two keys with one hash are still told apart: every lookup compares the key the frame
/// holds.
///
/// No Apple API: the part of `NSDictionary`'s hashing in Core Data's row cache.
struct KeyHash {
    private var v0: UInt64
    private var v1: UInt64
    private var v2: UInt64
    private var v3: UInt64

    /// The hash function of the log of `generation`.
    init(generation: UInt64) {
        let k0 = generation
        let k1 = ~generation
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    /// The hash of `key`.
    func callAsFunction(_ key: [UInt8]) -> UInt64 {
        key.withUnsafeBytes { hash($0) }
    }

    /// The hash of the bytes of `key`.
    func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var (v0, v1, v2, v3) = (self.v0, self.v1, self.v2, self.v3)
        @inline(__always) func round() {
            v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }
        let count = key.count
        var i = 0
        while i + 8 <= count {
            let m = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            v3 ^= m
            round()
            v0 ^= m
            i += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while i < count {
            last |= UInt64(key[i]) << shift
            shift += 8
            i += 1
        }
        v3 ^= last
        round()
        v0 ^= last
        v2 ^= 0xFF
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}
