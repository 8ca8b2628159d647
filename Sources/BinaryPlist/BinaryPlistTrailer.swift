/// The 32-byte trailer that ends every binary plist.
///
/// Layout: 5 unused bytes, sort version, offset-table entry width, object-reference width, object count
/// (8 bytes), top object index (8 bytes), offset-table position (8 bytes), all big-endian.
///
/// Mirrors `CFBinaryPlistTrailer` in CoreFoundation's `CFBinaryPList.c`.
package struct BinaryPlistTrailer: Sendable, Hashable {
    /// The sort version byte, which CoreFoundation writes as 0 and no reader uses.
    package var sortVersion: UInt8
    /// Width in bytes (1...8) of each entry of the offset table.
    package var offsetWidth: Int
    /// Width in bytes (1...8) of each object reference inside arrays, sets and dictionaries.
    package var referenceWidth: Int
    /// The number of objects, and of entries in the offset table.
    package var objectCount: Int
    /// The index of the top object.
    package var topObject: Int
    /// The byte offset where the offset table starts.
    package var offsetTableOffset: Int

    /// The size of the trailer: 32 bytes.
    package static let byteCount = 32

    /// Where the trailer's five unused bytes are in a binary plist of `count` bytes (header and trailer at
    /// least), the bytes every reader ignores (CoreFoundation, Python's `plistlib`, this package): a writer may
    /// keep a mark of its own there and the file stays a plist. `nil` for a file too short to be one.
    package static func unusedBytes(inPlistOfSize count: Int) -> Range<Int>? {
        guard count >= 8 + byteCount else { return nil }
        return count - byteCount..<count - byteCount + 5
    }
}

extension BinaryPlistTrailer {
    /// The trailer of a plist whose offset table starts at `offsetTableOffset`, with the narrowest offset
    /// width that can express that position (CoreFoundation's rule, as Apple's writer chooses it).
    package init(objectCount: Int, topObject: Int, offsetTableOffset: Int, referenceWidth: Int, sortVersion: UInt8 = 0) {
        self.init(sortVersion: sortVersion, offsetWidth: byteWidth(toExceed: offsetTableOffset),
                  referenceWidth: referenceWidth, objectCount: objectCount, topObject: topObject,
                  offsetTableOffset: offsetTableOffset)
    }

    /// The 32 bytes of the trailer.
    package var encoded: [UInt8] {
        var out = BinaryPlistBuffer()
        out.bytes.reserveCapacity(Self.byteCount)
        out.bytes.append(contentsOf: [0, 0, 0, 0, 0, sortVersion, UInt8(offsetWidth), UInt8(referenceWidth)])
        out.writeBigEndian(UInt64(objectCount), width: 8)
        out.writeBigEndian(UInt64(topObject), width: 8)
        out.writeBigEndian(UInt64(offsetTableOffset), width: 8)
        return out.bytes
    }

    /// Ends a plist whose header and objects `out` holds, object `i` at `offsets[i]`: appends the offset table
    /// and the trailer. Every binary plist this package writes ends here.
    /// Mirrors the end of CoreFoundation's `__CFBinaryPlistWrite`.
    package static func appendTable(offsets: [Int], topObject: Int, referenceWidth: Int, to out: inout BinaryPlistBuffer) {
        let trailer = BinaryPlistTrailer(objectCount: offsets.count, topObject: topObject,
                                         offsetTableOffset: out.bytes.count, referenceWidth: referenceWidth)
        out.bytes.reserveCapacity(out.bytes.count + offsets.count * trailer.offsetWidth + byteCount)
        for o in offsets { out.writeBigEndian(UInt64(o), width: trailer.offsetWidth) }
        out.bytes.append(contentsOf: trailer.encoded)
    }
}

/// Big-endian reads from a raw buffer; callers have checked the bounds. A `width` above 8 reads the last
/// 8 of those bytes (callers that accept wider fields check the leading bytes themselves).
@inlinable @inline(__always)
package func readBigEndian(_ base: UnsafeRawBufferPointer, _ start: Int, _ size: Int) -> UInt64 {
    // Not recursive, so that it is inlined: a call per read cost more than the read.
    let at = size > 8 ? start + size - 8 : start
    let width = size > 8 ? 8 : size
    if at + 8 <= base.count {
        // One unaligned 8-byte load, then drop the bytes past `width`.
        let word = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        return width == 8 ? word : word >> UInt64(64 - 8 * width)
    }
    var v: UInt64 = 0
    for i in 0..<width {
        v = (v << 8) | UInt64(base[at + i])
    }
    return v
}

/// Width in bytes (1...8) needed so that `1 << (8 * width)` exceeds `value`, CoreFoundation's rule.
@inline(__always)
package func byteWidth(toExceed value: Int) -> Int {
    var w = 1
    while w < 8 && (UInt64(1) << UInt64(8 * w)) <= UInt64(value) { w += 1 }
    return w
}
