#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit digest of the store file as this library last wrote it, kept in the lock file (`<store>.lock`,
/// which exists beside every store written to).
///
/// The quick paths of ``ArchiveRepository`` (``ArchiveRepository/get(_:)`` decoding one record,
/// ``ArchiveRepository/add(_:)`` appending in place) read only part of the file, so they are taken only when
/// the file is exactly what the last write left: every record in it was then checked. A file changed any
/// other way (damaged on disk, edited or written by another program, restored from elsewhere) no longer
/// matches and is read in full, which reports damage as ``StoreError/Code/corrupt`` and never writes. The
/// digest is a hint, not a lock: it is written after each replace, under the store lock, without a sync; a
/// missing, stale or unreadable digest only costs the quick path.
///
/// The digest detects accidental change, not deliberate forgery (it is not cryptographic); a forged file
/// still never traps the reader and never loses what it holds.
///
/// No Apple API; plays the part of SQLite's page checksums for this one-file store.
package enum StoreDigest {
    private static let prefix = "archive-digest "

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

    /// The digest recorded in the lock file at `lockPath`, or `nil` (no lock file, not a regular file, no
    /// digest, unreadable). Never blocks: the file is opened non-blocking and must be a regular file.
    static func recorded(at lockPath: String) -> UInt64? {
        guard let fd = try? SystemCalls.openFile(lockPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        defer { SystemCalls.closeFile(fd) }
        guard let info = try? SystemCalls.fileStatus(fd, lockPath), SystemCalls.isRegularFile(info) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let text = String(validating: buffer[0..<count], as: UTF8.self),
              text.hasPrefix(prefix), text.hasSuffix("\n")
        else { return nil }
        return UInt64(text.dropFirst(prefix.count).dropLast(), radix: 16)
    }

    /// Records `digest` in the lock file at `lockPath` (which the caller holds), when that file is a regular
    /// file that is empty or holds a digest: anything else in it is left alone. Failures are ignored: a digest
    /// that was not recorded only sends the next read down the full path.
    static func record(_ digest: UInt64, at lockPath: String) {
        guard let fd = try? SystemCalls.openFile(lockPath, O_RDWR | O_NOFOLLOW | O_NONBLOCK) else { return }
        defer { SystemCalls.closeFile(fd) }
        guard let info = try? SystemCalls.fileStatus(fd, lockPath), SystemCalls.isRegularFile(info), info.st_size <= 64
        else { return }
        var current = [UInt8](repeating: 0, count: 64)
        let count = current.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count == 0 || (count > 0 && current[0..<count].starts(with: prefix.utf8)) else { return }
        let text = Array((prefix + String(digest, radix: 16) + "\n").utf8)
        let written = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        if written == text.count { _ = ftruncate(fd, off_t(text.count)) } else { _ = ftruncate(fd, 0) }
    }
}
