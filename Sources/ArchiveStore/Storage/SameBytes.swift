import ArchivePlatform

/// Whether `a` and `b` hold the same bytes, by `memcmp(3)`: a record's key is compared on every read of it,
/// where `[UInt8] ==` compares byte by byte.
@inline(__always)
func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { p in
        b.withUnsafeBytes { q in
            guard let left = p.baseAddress, let right = q.baseAddress else { return true }   // both empty
            return Kernel.bytesEqual(left, right, count: p.count)
        }
    }
}

/// ``sameBytes(_:_:)-([UInt8],[UInt8])`` for bytes in place (a string's UTF-8, a key).
@inline(__always)
func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let left = a.baseAddress, let right = b.baseAddress else { return true }   // both empty
    return Kernel.bytesEqual(UnsafeRawPointer(left), UnsafeRawPointer(right), count: a.count)
}
