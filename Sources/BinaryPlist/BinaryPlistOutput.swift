/// The bytes of a binary plist whose size was computed before writing began: one allocation of exactly that
/// size, filled through a pointer, with no growth and no capacity check per byte.
///
/// Both writers of the package (``BinaryPlistWriter`` and the keyed archiver's builder) know every object's
/// size before they write the first one, so they compute the file's size (``markerLength(count:)`` for the
/// collections), then fill it front to back. Each call checks once that its bytes fit; a write that would not
/// (a size computed wrong, a bug) is dropped and recorded in ``overran``, never written past the buffer.
///
/// ```swift
/// let bytes = BinaryPlistOutput.bytes(count: size) { out in
///     out.append(header)
///     out.appendMarker(0xA0, count: 2)
/// }
/// ```
///
/// Mirrors the single `CFData` that CoreFoundation's `__CFBinaryPlistWrite` appends into.
package struct BinaryPlistOutput {
    let base: UnsafeMutablePointer<UInt8>
    /// The size the caller computed.
    package let capacity: Int
    /// The number of bytes written so far from the start.
    package private(set) var position = 0
    /// Whether a write was dropped because it did not fit (the size was computed wrong).
    package private(set) var overran = false

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// An array of `count` bytes, filled by `write`. When `write` leaves bytes unwritten or overruns, the
    /// array holds only the bytes written in order from the start (a debug build stops there).
    package static func bytes(count: Int, _ write: (inout BinaryPlistOutput) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else {
                initialized = 0
                return
            }
            var out = BinaryPlistOutput(base: base, capacity: count)
            write(&out)
            assert(!out.overran && out.position == count, "binary plist size computed wrong")
            initialized = out.overran ? 0 : out.position
        }
    }

    /// Whether `n` more bytes fit; records an overrun when they do not.
    @inline(__always)
    mutating func fits(_ n: Int, at p: Int) -> Bool {
        if n <= capacity - p { return true }
        overran = true
        return false
    }

    /// Appends one byte.
    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        guard fits(1, at: position) else { return }
        base[position] = byte
        position += 1
    }

    /// Appends `bytes`.
    @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard fits(bytes.count, at: position), let source = bytes.baseAddress else { return }
        (base + position).initialize(from: source, count: bytes.count)
        position += bytes.count
    }

    /// Appends the low `width` (1...8) bytes of `v`, most significant first.
    @inline(__always)
    package mutating func appendBigEndian(_ v: UInt64, width: Int) {
        store(v, width: width, at: position)
        if !overran { position += width }
    }

    /// Writes the low `width` (1...8) bytes of `v`, most significant first, at byte `p` (an entry of the
    /// offset table, which is written ahead of `position`).
    @inline(__always)
    package mutating func store(_ v: UInt64, width: Int, at p: Int) {
        guard p >= 0, fits(width, at: p) else { return }
        switch width {
        case 1: base[p] = UInt8(truncatingIfNeeded: v)
        case 2:
            base[p] = UInt8(truncatingIfNeeded: v >> 8)
            base[p + 1] = UInt8(truncatingIfNeeded: v)
        case 3:
            base[p] = UInt8(truncatingIfNeeded: v >> 16)
            base[p + 1] = UInt8(truncatingIfNeeded: v >> 8)
            base[p + 2] = UInt8(truncatingIfNeeded: v)
        case 4: UnsafeMutableRawPointer(base + p).storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, as: UInt32.self)
        case 8: UnsafeMutableRawPointer(base + p).storeBytes(of: v.bigEndian, as: UInt64.self)
        default:
            // Exactly `width` bytes: the offset table is written ahead of the objects, so no store may reach
            // past its own field.
            var shift = UInt64(8 * (width - 1))
            for i in 0..<width {
                base[p + i] = UInt8(truncatingIfNeeded: v >> shift)
                shift &-= 8
            }
        }
    }

    /// Appends `refs`, each `width` (1...8) bytes, most significant first.
    @inline(__always)
    package mutating func appendReferences<R: FixedWidthInteger>(_ refs: UnsafeBufferPointer<R>, width: Int) {
        guard fits(refs.count * width, at: position) else { return }
        var p = position
        switch width {
        case 1:
            for r in refs {
                base[p] = UInt8(truncatingIfNeeded: r)
                p += 1
            }
        case 2:
            for r in refs {
                base[p] = UInt8(truncatingIfNeeded: r >> 8)
                base[p + 1] = UInt8(truncatingIfNeeded: r)
                p += 2
            }
        case 3:
            for r in refs {
                base[p] = UInt8(truncatingIfNeeded: r >> 16)
                base[p + 1] = UInt8(truncatingIfNeeded: r >> 8)
                base[p + 2] = UInt8(truncatingIfNeeded: r)
                p += 3
            }
        default:
            for r in refs {
                store(UInt64(truncatingIfNeeded: r), width: width, at: p)
                p += width
            }
        }
        position = p
    }

    /// The number of bytes of a marker of `count` entries: the marker, and for 15 and more an integer object.
    @inline(__always)
    package static func markerLength(count: Int) -> Int {
        if count < 15 { return 1 }
        return count <= 0xFF ? 3 : count <= 0xFFFF ? 4 : count <= 0xFFFF_FFFF ? 6 : 10
    }

    /// Appends the marker of a collection, data or string of `count` entries: `kind | count` below 15, else
    /// `kind | 0xF` and the count as the smallest integer object.
    @inline(__always)
    package mutating func appendMarker(_ kind: UInt8, count: Int) {
        if count < 15 {
            append(kind | UInt8(truncatingIfNeeded: count))
            return
        }
        append(kind | 0x0F)
        let v = UInt64(truncatingIfNeeded: count)
        let width = v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFF_FFFF ? 4 : 8
        append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(v, width: width)
    }

    /// Moves past bytes already written, up to byte `p`: the offset table, with ``store(_:width:at:)``, or the
    /// objects ``BinaryPlistWriter`` wrote into the buffer before this output was made over it.
    mutating func skip(to p: Int) {
        guard p >= position, fits(p - position, at: position) else { return }
        position = p
    }

    /// Appends the 32-byte `trailer`.
    mutating func appendTrailer(_ trailer: BinaryPlistTrailer) {
        guard fits(BinaryPlistTrailer.byteCount, at: position) else { return }
        for _ in 0..<5 { append(0) }
        append(trailer.sortVersion)
        append(UInt8(truncatingIfNeeded: trailer.offsetWidth))
        append(UInt8(truncatingIfNeeded: trailer.referenceWidth))
        appendBigEndian(UInt64(truncatingIfNeeded: trailer.objectCount), width: 8)
        appendBigEndian(UInt64(truncatingIfNeeded: trailer.topObject), width: 8)
        appendBigEndian(UInt64(truncatingIfNeeded: trailer.offsetTableOffset), width: 8)
    }

    /// The `bplist00` magic and version.
    package static let header: [UInt8] = [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30]

    /// A whole binary plist of `objectCount` objects, numbered in the order they are written: object `i` is
    /// `object(i)`, a scalar (`kind` 0) whose encoded bytes are `scalarBytes[start..<start + count]`, or a
    /// collection (`kind` 0xA0, 0xC0 or 0xD0) of `count` entries whose references are `pool[start...]` (`count`
    /// of them, twice that for a dictionary: its keys, then its values). References and offsets get the smallest
    /// widths CoreFoundation accepts. The size is computed first, then the header, the objects, the offset table
    /// and the trailer are written into one buffer of that size. The keyed archiver's builder writes this way
    /// (``BinaryPlistWriter`` writes its objects in order as it goes, and copies them here with
    /// ``bytes(count:_:)``).
    /// Mirrors the layout `__CFBinaryPlistWrite` in CoreFoundation writes.
    package static func plist(
        objectCount: Int, topObject: Int, scalarBytes: UnsafeBufferPointer<UInt8>, pool: UnsafeBufferPointer<Int32>,
        object: (Int) -> (kind: UInt8, start: Int, count: Int)
    ) -> [UInt8] {
        assemble(objectCount: objectCount, topObject: topObject, scalarBytes: scalarBytes, pool: pool, object: object)
    }

    /// Specialized in this module for the width of reference, so that no reference goes through a generic call.
    @inline(__always)
    private static func assemble<Reference: FixedWidthInteger>(
        objectCount: Int, topObject: Int, scalarBytes: UnsafeBufferPointer<UInt8>, pool: UnsafeBufferPointer<Reference>,
        object: (Int) -> (kind: UInt8, start: Int, count: Int)
    ) -> [UInt8] {
        let refWidth = byteWidth(toExceed: objectCount)
        var objectBytes = scalarBytes.count
        for i in 0..<objectCount {
            let node = object(i)
            guard node.kind != 0 else { continue }
            let refs = node.kind == 0xD0 ? 2 * node.count : node.count
            objectBytes += markerLength(count: node.count) + refs * refWidth
        }
        let table = header.count + objectBytes
        let trailer = BinaryPlistTrailer(objectCount: objectCount, topObject: topObject, offsetTableOffset: table,
                                         referenceWidth: refWidth)
        let offsetWidth = trailer.offsetWidth
        let size = table + objectCount * offsetWidth + BinaryPlistTrailer.byteCount
        return bytes(count: size) { out in
            header.withUnsafeBufferPointer { out.append($0) }
            var entry = table
            for i in 0..<objectCount {
                out.store(UInt64(truncatingIfNeeded: out.position), width: offsetWidth, at: entry)
                entry += offsetWidth
                let node = object(i)
                if node.kind == 0 {
                    out.append(UnsafeBufferPointer(rebasing: scalarBytes[node.start..<(node.start + node.count)]))
                    continue
                }
                out.appendMarker(node.kind, count: node.count)
                let refs = node.kind == 0xD0 ? 2 * node.count : node.count
                out.appendReferences(UnsafeBufferPointer(rebasing: pool[node.start..<(node.start + refs)]), width: refWidth)
            }
            out.skip(to: size - BinaryPlistTrailer.byteCount)
            out.appendTrailer(trailer)
        }
    }
}
