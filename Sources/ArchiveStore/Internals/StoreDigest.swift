#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fast 64-bit digest of a byte string, for detecting accidental change (not cryptographic): the cache's
/// index snapshot checks its lines with it.
///
/// No Apple API.
package enum StoreDigest {
    /// The digest of `bytes`: four independent multiply-xor lanes over eight-byte words, then mixed.
    package static func of(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var lanes: (UInt64, UInt64, UInt64, UInt64) = (
                0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5)
            @inline(__always) func step(_ h: inout UInt64, _ word: UInt64) {
                h = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 29
            }
            var i = 0
            while i + 32 <= raw.count {
                step(&lanes.0, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                step(&lanes.1, raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                step(&lanes.2, raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
                step(&lanes.3, raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
                i += 32
            }
            var last: UInt64 = 0
            var shift: UInt64 = 0
            while i < raw.count {
                last |= UInt64(raw[i]) << shift
                shift += 8
                if shift == 64 {
                    step(&lanes.0, last)
                    (last, shift) = (0, 0)
                }
                i += 1
            }
            var h = UInt64(truncatingIfNeeded: raw.count)
            for lane in [lanes.0, lanes.1, lanes.2, lanes.3, last] { step(&h, lane) }
            // MurmurHash3's finalizer.
            h ^= h >> 33
            h &*= 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 33
            h &*= 0xC4CE_B9FE_1A85_EC53
            h ^= h >> 33
            return h
        }
    }
}
