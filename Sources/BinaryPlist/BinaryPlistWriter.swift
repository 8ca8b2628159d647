/// Writes a ``PlistValue`` as a `bplist00` binary property list.
///
/// Output is deterministic: objects are numbered depth-first from the top (a dictionary's keys, then its
/// values), scalars are uniqued by value (`1`, `1.0` and `true` are never merged; reals and dates by bit
/// pattern), collections are never uniqued, and the offset and reference widths are the smallest that
/// CoreFoundation accepts. ASCII strings are written as `0x5n`, all others as UTF-16 (`0x6n`).
///
/// Mirrors `__CFBinaryPlistWrite` in CoreFoundation.
package struct BinaryPlistWriter {
    /// The limits writing enforces (the depth limit).
    package var limits: PlistLimits

    /// A writer that enforces `limits`.
    package init(limits: PlistLimits = .default) {
        self.limits = limits
    }

    /// The members a first census visits of a collection of more than four times as many (see ``WriterCensus``).
    static var sampleSize: Int { 256 }

    /// Encodes `value` to binary plist bytes.
    /// - Throws: ``PlistError`` `.depthLimitExceeded` for nesting deeper than the limit, `.invalidKey` for
    ///   a collection used as a dictionary key.
    package func encode(_ value: PlistValue) throws -> [UInt8] {
        try encode(value, sampleSize: Self.sampleSize)
    }

    /// ``encode(_:)`` after a first census of `sampleSize` (`nil`: an exact census): when it sampled, the plist
    /// is written with widths that leave its estimates room, and written again after an exact census should the
    /// objects outgrow them.
    package func encode(_ value: PlistValue, sampleSize: Int?) throws -> [UInt8] {
        let first = census(of: value, sampleSize: sampleSize)
        if first.isExact {
            return try Self.write(value, first, exact: true, limits: limits)
        }
        do {
            return try Self.write(value, first, exact: false, limits: limits)
        } catch is ProvisionalWidthsOutgrown {
            return try Self.write(value, census(of: value, sampleSize: nil), exact: true, limits: limits)
        }
    }

    /// The widths of an exact census, chosen as ``write(_:_:exact:limits:)`` chooses them: object numbers in
    /// 32 bits (8-byte uniquing slots) whenever the count of values leaves room for them, and object offsets in
    /// 32 bits whenever the file is sure to stay below 2 GiB: no object's bytes take more than twice what the
    /// census counts for them (a string that is not ASCII: two bytes a UTF-16 unit, at most one unit a UTF-8
    /// byte), and the writer writes at most one scalar past its objects' bytes. An estimate (a sampled census)
    /// is given a quarter more room, and kept below ``provisionalCeiling``.
    static func write(_ value: PlistValue, _ census: WriterCensus, exact: Bool, limits: PlistLimits) throws -> [UInt8] {
        let ceiling = Self.provisionalCeiling
        let values = exact ? census.values : min(census.values + census.values / 4 + 64, ceiling.values)
        let size = exact ? census.estimatedSize : min(census.estimatedSize + census.estimatedSize / 4 + 64, ceiling.bytes)
        guard values < Int(UInt32.max) else {
            return try write(value, census, values: values, size: size, exact: exact, limits: limits,
                             numbering: UInt.self, positions: UInt.self)
        }
        if size < Int(UInt32.max / 4) {
            return try write(value, census, values: values, size: size, exact: exact, limits: limits,
                             numbering: UInt32.self, positions: UInt32.self)
        }
        return try write(value, census, values: values, size: size, exact: exact, limits: limits,
                         numbering: UInt32.self, positions: UInt.self)
    }

    /// The most an estimate may reserve: values (offsets, 4-byte references), bytes (of the array) and
    /// uniquing slots. A sample of members far heavier than the others (a few large dictionaries among many
    /// booleans) can overestimate a tree by as much as the collection is larger than the sample; the writer
    /// grows past these where the plist is that large.
    static var provisionalCeiling: (values: Int, bytes: Int, scalars: Int) { (1 << 24, 1 << 28, 1 << 20) }

    /// ``encode(_:)`` with object numbers of `Object` and offsets of `Position`, whatever the plist's size (tests
    /// write with each pair: the widths change the tables, never the bytes).
    func encode<Object: FixedWidthInteger & UnsignedInteger, Position: FixedWidthInteger & UnsignedInteger>(
        _ value: PlistValue, numbering: Object.Type, positions: Position.Type
    ) throws -> [UInt8] {
        let census = census(of: value, sampleSize: nil)
        return try Self.write(value, census, values: census.values, size: census.estimatedSize, exact: true,
                              limits: limits, numbering: numbering, positions: positions)
    }

    /// The first pass (see ``WriterCensus``): the counts that size the second.
    func census(of value: PlistValue, sampleSize: Int?) -> WriterCensus {
        var census = WriterCensus(maxDepth: limits.maxDepth, sampleSize: sampleSize)
        withUnsafePointer(to: value) { census.visit($0, depth: 1) }
        return census
    }

    /// Writes the file into an array of the census's estimated size (`size`), which is the file when it fits and
    /// fills at least half of it (no more capacity to spare than an array grown by appending can have); else the
    /// file is written where the writer grew to and copied into an array of its size. References are as wide as
    /// `values` needs; unless the census was `exact`, the writer throws ``ProvisionalWidthsOutgrown`` when the
    /// objects outgrow them, or the offsets `Position`, or the numbers `Object`.
    private static func write<Object: FixedWidthInteger & UnsignedInteger, Position: FixedWidthInteger & UnsignedInteger>(
        _ value: PlistValue, _ census: WriterCensus, values: Int, size: Int, exact: Bool, limits: PlistLimits,
        numbering: Object.Type, positions: Position.Type
    ) throws -> [UInt8] {
        // Never more than the writer reserved before, 16 bytes a value (the tree itself takes that much): a
        // scalar repeated many times is counted at each occurrence.
        let capacity = min(size, 64 + 16 * values)
        var elsewhere: [UInt8] = []
        let file = try [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var writer = ObjectWriter<Object, Position>(census, values: values, exact: exact,
                                                        maxDepth: limits.maxDepth, into: buffer)
            _ = try withUnsafePointer(to: value) { try writer.add($0, depth: 1) }
            if writer.outgrown { throw ProvisionalWidthsOutgrown() }
            if let size = writer.finishInPlace() {
                count = size
            } else {
                count = 0
                elsewhere = writer.finish()
            }
        }
        return file.isEmpty ? elsewhere : file
    }
}

/// Thrown by a writer whose objects outgrew the widths a sampled census's estimate chose; the plist is then
/// written again after an exact census.
struct ProvisionalWidthsOutgrown: Error {}

/// The writing pass: each object's bytes written once, in object-number order, into one growing buffer, with
/// the references of collections as wide as the census's count of values needs; each new scalar is written
/// where it would go and taken back when an equal one already has an object. The buffer is the one it is given
/// (an array's storage) until it outgrows it. The file is then that buffer with the offset table and the trailer
/// after the objects, or else the buffer, the offset table and the trailer copied once into an array of the size
/// they need (the references narrowed on the way when uniquing brought the object count below their width).
/// `Object` is the uniquing table's type of object number, wide enough for every object the census allows;
/// `Position` the type of the objects' offsets, wide enough for every byte the file can take.
private struct ObjectWriter<Object: FixedWidthInteger & UnsignedInteger, Position: FixedWidthInteger & UnsignedInteger>: ~Copyable {
    typealias Table = EncodedScalarTable<Object>

    /// The header and the objects written so far.
    var bytes: UnsafeMutablePointer<UInt8>
    var capacity: Int
    /// Whether `bytes` was allocated by the writer (after it outgrew the buffer it was given).
    var ownsBytes: Bool
    var position = 0
    /// Where each object starts in `bytes`; object `i + 1` starts where object `i` ends.
    var offsets: UnsafeMutablePointer<Position>
    var offsetCapacity: Int
    var objectCount = 0
    /// The width of every reference written (from the census: enough for any object count it allows).
    let referenceWidth: Int
    /// The most objects the widths allow: as many as `referenceWidth` bytes can number, below `Object.max`
    /// (`Int.max` when the census was exact: its count of values is sure to fit them).
    let objectLimit: Int
    /// The most bytes `Position` offsets can reach (`Int.max` when the census was exact).
    let positionLimit: Int
    /// Whether the objects outgrew ``objectLimit`` or ``positionLimit``: the file is then written again.
    var outgrown = false
    /// The nesting the writer refuses beyond.
    let maxDepth: Int
    /// The references written, for narrowing them at the end.
    var referenceCount = 0

    var table: Table
    /// The objects of `null`, `false` and `true` (-1 until written).
    var constants: (null: Int, no: Int, yes: Int) = (-1, -1, -1)
    /// Strings that are not ASCII, compared as Swift strings, as they were always uniqued.
    var otherStrings: [String: Int] = [:]
    /// Whether `otherStrings` holds a string equal to an ASCII one ("\u{212A}", equal to "K").
    var hasASCIIEquivalents = false
    var recentStrings = RecentStrings()

    /// A writer that writes into `buffer` (uninitialized) until it needs more.
    init(_ census: WriterCensus, values: Int, exact: Bool, maxDepth: Int,
         into buffer: UnsafeMutableBufferPointer<UInt8>) {
        referenceWidth = byteWidth(toExceed: values)
        self.maxDepth = maxDepth
        if exact {
            objectLimit = .max
            positionLimit = .max
        } else {
            let numbered = 8 * referenceWidth >= Int.bitWidth - 1 ? Int.max : 1 << (8 * referenceWidth)
            let objectMax = Object.bitWidth >= Int.bitWidth ? Int.max : Int(truncatingIfNeeded: Object.max)
            objectLimit = min(numbered, objectMax)
            positionLimit = Position.bitWidth >= Int.bitWidth ? Int.max : Int(truncatingIfNeeded: Position.max)
        }
        if let base = buffer.baseAddress {
            bytes = base
            capacity = buffer.count
            ownsBytes = false
        } else {
            capacity = 64
            bytes = .allocate(capacity: capacity)
            ownsBytes = true
        }
        offsetCapacity = max(1, min(values, objectLimit))
        offsets = .allocate(capacity: offsetCapacity)
        table = Table(capacity: (exact ? census.valueScalars : min(census.valueScalars, BinaryPlistWriter.provisionalCeiling.scalars)) + 64)
        let header = BinaryPlistOutput.header
        let p = reserve(header.count)
        for (k, b) in header.enumerated() { p[k] = b }
        position = header.count
    }

    deinit {
        if ownsBytes { bytes.deallocate() }
        offsets.deallocate()
    }

    // MARK: The buffers

    /// A pointer to `n` writable bytes at `position` (which the caller advances).
    @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - position < n { grow(toFit: n) }
        return bytes + position
    }

    @inline(never)
    mutating func grow(toFit n: Int) {
        capacity = max(2 * capacity, position + n)
        if capacity > positionLimit { outgrown = true }
        if ownsBytes {
            bytes = Self.move(bytes, count: position, toCapacity: capacity)
            return
        }
        // The given buffer stays its owner's.
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        moved.initialize(from: bytes, count: position)
        bytes = moved
        ownsBytes = true
    }

    /// A buffer of `capacity` elements holding the first `count` of `old`, which is freed.
    static func move<Element>(_ old: UnsafeMutablePointer<Element>, count: Int, toCapacity capacity: Int)
        -> UnsafeMutablePointer<Element>
    {
        let moved = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        moved.moveInitialize(from: old, count: count)
        old.deallocate()
        return moved
    }

    /// Numbers a new object, whose bytes start at `start`.
    @inline(__always)
    mutating func newObject(at start: Int) -> Int {
        if objectCount == offsetCapacity { growOffsets() }
        offsets[objectCount] = Position(truncatingIfNeeded: start)
        objectCount += 1
        return objectCount - 1
    }

    /// Needed after a sampled census that counted too few values (an exact one counts every value), and kept so
    /// that no count can write past the table; reaching ``objectLimit`` marks the writer ``outgrown``.
    @inline(never)
    mutating func growOffsets() {
        if objectCount >= objectLimit { outgrown = true }
        offsetCapacity = outgrown ? 2 * offsetCapacity + 16 : min(2 * offsetCapacity + 16, objectLimit)
        offsets = Self.move(offsets, count: objectCount, toCapacity: offsetCapacity)
    }

    /// Writes the marker of `count` entries of `kind` at `p`; returns its length (at most 10 bytes).
    @inline(__always)
    static func writeMarker(_ kind: UInt8, count: Int, at p: UnsafeMutablePointer<UInt8>) -> Int {
        if count < 15 {
            p[0] = kind | UInt8(truncatingIfNeeded: count)
            return 1
        }
        p[0] = kind | 0x0F
        return 1 + writeUnsigned(UInt64(truncatingIfNeeded: count), at: p + 1)
    }

    /// Writes an integer object of `v` (below 2^63) in the smallest of 1, 2, 4 or 8 bytes at `p`; returns its
    /// length (at most 9 bytes).
    @inline(__always)
    static func writeUnsigned(_ v: UInt64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        if v <= 0xFF {
            p[0] = 0x10
            p[1] = UInt8(truncatingIfNeeded: v)
            return 2
        }
        if v <= 0xFFFF {
            p[0] = 0x11
            UnsafeMutableRawPointer(p + 1).storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, as: UInt16.self)
            return 3
        }
        if v <= 0xFFFF_FFFF {
            p[0] = 0x12
            UnsafeMutableRawPointer(p + 1).storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, as: UInt32.self)
            return 5
        }
        p[0] = 0x13
        UnsafeMutableRawPointer(p + 1).storeBytes(of: v.bigEndian, as: UInt64.self)
        return 9
    }

    /// Writes an integer, real, date or UID at `p` (room for 17 bytes); returns its length (0 for any other value).
    @inline(__always)
    static func writeFixedSize(_ value: UnsafePointer<PlistValue>, at p: UnsafeMutablePointer<UInt8>) -> Int {
        let raw = UnsafeMutableRawPointer(p)
        switch value.pointee {
        case .integer(let i):
            if i.high == 0 && i.low < (1 << 63) { return writeUnsigned(i.low, at: p) }
            if i.high == -1 && i.low >= (1 << 63) {
                p[0] = 0x13  // negative 64-bit: always 8 bytes
                raw.storeBytes(of: i.low.bigEndian, toByteOffset: 1, as: UInt64.self)
                return 9
            }
            p[0] = 0x14  // 2^63 and up, or beyond 64 bits: 16 bytes
            raw.storeBytes(of: UInt64(bitPattern: i.high).bigEndian, toByteOffset: 1, as: UInt64.self)
            raw.storeBytes(of: i.low.bigEndian, toByteOffset: 9, as: UInt64.self)
            return 17
        case .real(let r):
            p[0] = 0x23
            raw.storeBytes(of: r.bitPattern.bigEndian, toByteOffset: 1, as: UInt64.self)
            return 9
        case .date(let d):
            p[0] = 0x33
            raw.storeBytes(of: d.secondsSinceReferenceDate.bitPattern.bigEndian, toByteOffset: 1, as: UInt64.self)
            return 9
        case .uid(let u):
            // CoreFoundation's widths: 1, 2, 4 or 8 bytes.
            let v = u.value
            let width = v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFF_FFFF ? 4 : 8
            p[0] = 0x80 | UInt8(truncatingIfNeeded: width - 1)
            var shift = UInt64(8 * (width - 1))
            for k in 1...width {
                p[k] = UInt8(truncatingIfNeeded: v >> shift)
                shift &-= 8
            }
            return 1 + width
        default:
            return 0
        }
    }

    /// How many elements of a collection ``prefetch(_:into:_:)`` hashes and touches at once, a block ahead of the
    /// ones being written.
    static var lookahead: Int { 16 }

    /// Hashes the elements `range` of a collection (`element(i)` is element `i`) into `ring` (element `i` at
    /// `i` modulo the ring's count, a power of two), then touches their uniquing slots one after another (see
    /// ``EncodedScalarTable/touch(_:)``): the touches come together, so that their cache misses overlap, where
    /// with a value's hash between two of them few were in flight at once (the processor looks ahead a few
    /// hundred instructions).
    @inline(__always)
    mutating func prefetch(_ range: Range<Int>, into ring: UnsafeMutableBufferPointer<Int>,
                           _ element: (Int) -> UnsafePointer<PlistValue>?) {
        let mask = ring.count - 1
        // A small table is in the caches: nothing to wait for, nothing to compute ahead.
        guard table.outgrowsCaches else {
            for i in range { ring[i & mask] = Table.noHash }
            return
        }
        for i in range { ring[i & mask] = element(i).map { hashAhead($0) } ?? Table.noHash }
        for i in range { table.touch(ring[i & mask]) }
    }

    /// The hash of the value at `value`, when it is a scalar the table holds, from the value's own bytes as the
    /// table hashes its encoding (``EncodedScalarTable/noHash`` for any other value).
    @inline(__always)
    func hashAhead(_ value: UnsafePointer<PlistValue>) -> Int {
        switch value.pointee {
        case .string(let s):
            return s.utf8.withContiguousStorageIfAvailable { utf8 in
                table.hash(marker: 0x50 | UInt8(truncatingIfNeeded: min(utf8.count, 15)), body: UnsafeRawBufferPointer(utf8))
            } ?? Table.noHash
        case .data(let d):
            return d.withUnsafeBytes { table.hash(marker: 0x40 | UInt8(truncatingIfNeeded: min($0.count, 15)), body: $0) }
        case .integer, .real, .date, .uid:
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { scratch in
                guard let p = scratch.baseAddress else { return Table.noHash }
                // A one-byte marker, then the body.
                let length = Self.writeFixedSize(value, at: p)
                return table.hash(marker: p[0], body: UnsafeRawBufferPointer(start: p + 1, count: length - 1))
            }
        default:
            return Table.noHash
        }
    }

    /// Stores reference `r` at byte `p`, `referenceWidth` bytes, most significant first.
    @inline(__always)
    func storeReference(_ r: Int, at p: Int) {
        let v = UInt64(truncatingIfNeeded: r)
        let at = bytes + p
        switch referenceWidth {
        case 1: at[0] = UInt8(truncatingIfNeeded: v)
        case 2: UnsafeMutableRawPointer(at).storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, as: UInt16.self)
        case 3:
            at[0] = UInt8(truncatingIfNeeded: v >> 16)
            UnsafeMutableRawPointer(at + 1).storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, as: UInt16.self)
        case 4: UnsafeMutableRawPointer(at).storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, as: UInt32.self)
        default:
            var shift = UInt64(8 * (referenceWidth - 1))
            for i in 0..<referenceWidth {
                at[i] = UInt8(truncatingIfNeeded: v >> shift)
                shift &-= 8
            }
        }
    }

    /// A new collection object of `count` entries and `references` references: its marker written and room
    /// left for its references, which the caller stores as its children get their objects. Returns the object
    /// and where its references start.
    @inline(__always)
    mutating func openCollection(_ kind: UInt8, count: Int, references: Int) -> (object: Int, references: Int) {
        let object = newObject(at: position)
        let room = references * referenceWidth
        let p = reserve(10 + room)
        position += Self.writeMarker(kind, count: count, at: p)
        let start = position
        position += room
        referenceCount += references
        return (object, start)
    }

    // MARK: Objects

    /// Writes the value at `value` and its children depth-first (a dictionary's keys, then its values); returns
    /// its object. Values are read where they are, through pointers into the tree's arrays: a value passed on
    /// would be copied (its payload retained and released) at every call. `depth` is the value's nesting (the top
    /// object is 1); recursion is bounded by the depth limit.
    /// - Throws: ``PlistError`` `.depthLimitExceeded` for a collection deeper than the limit, `.invalidKey` for
    ///   a collection used as a dictionary key: the first the writing meets.
    mutating func add(_ value: UnsafePointer<PlistValue>, depth: Int, hash: Int = Table.noHash) throws -> Int {
        switch value.pointee {
        case .string(let s):
            return string(s, hash: hash)
        case .array(let items), .set(let items):
            if depth > maxDepth { throw depthLimitExceeded() }
            let (me, refs) = openCollection(value.pointee.isSet ? 0xC0 : 0xA0, count: items.count, references: items.count)
            let width = referenceWidth
            try items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                // The table slots of the elements are touched a block ahead of their writing; their hashes
                // wait in a ring of two blocks.
                let block = Self.lookahead
                try withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * block) { ring in
                    prefetch(0..<min(items.count, block), into: ring) { first + $0 }
                    for i in items.indices {
                        if i % block == 0 && i + block < items.count {
                            prefetch((i + block)..<min(i + 2 * block, items.count), into: ring) { first + $0 }
                        }
                        storeReference(try add(first + i, depth: depth + 1, hash: ring[i & (2 * block - 1)]),
                                       at: refs + i * width)
                    }
                }
            }
            return me
        case .dictionary(let dict):
            if depth > maxDepth { throw depthLimitExceeded() }
            let n = dict.count
            let (me, refs) = openCollection(0xD0, count: n, references: 2 * n)
            let width = referenceWidth
            try dict.entries.withUnsafeBufferPointer { entries in
                guard let first = entries.baseAddress else { return }
                // Every key is written before any value: the first collection among them is the error.
                for i in 0..<n where entries[i].key.isCollection { throw invalidKey(entries[i].key) }
                // The table slots of the first block of values are touched before the keys are written, the
                // next ones a block ahead of their writing.
                let block = Self.lookahead
                try withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * block) { ring in
                    prefetch(0..<min(n, block), into: ring) { (first + $0).pointer(to: \.value) }
                    for i in 0..<n {
                        guard let key = (first + i).pointer(to: \.key) else { continue }
                        storeReference(try self.key(key), at: refs + i * width)
                    }
                    for i in 0..<n {
                        if i % block == 0 && i + block < n {
                            prefetch((i + block)..<min(i + 2 * block, n), into: ring) { (first + $0).pointer(to: \.value) }
                        }
                        guard let value = (first + i).pointer(to: \.value) else { continue }
                        storeReference(try add(value, depth: depth + 1, hash: ring[i & (2 * block - 1)]),
                                       at: refs + (n + i) * width)
                    }
                }
            }
            return me
        case .integer, .real, .date, .uid:
            let mark = position
            position += Self.writeFixedSize(value, at: reserve(17))
            return unique(from: mark, hash: hash)
        case .data(let d):
            let mark = position
            let p = reserve(10 + d.count)
            let length = Self.writeMarker(0x40, count: d.count, at: p)
            d.withUnsafeBufferPointer { if let source = $0.baseAddress { (p + length).initialize(from: source, count: $0.count) } }
            position += length + d.count
            return unique(from: mark, hash: hash)
        case .null:
            if constants.null < 0 { constants.null = oneByteObject(0x00) }
            return constants.null
        case .bool(let b):
            if b {
                if constants.yes < 0 { constants.yes = oneByteObject(0x09) }
                return constants.yes
            }
            if constants.no < 0 { constants.no = oneByteObject(0x08) }
            return constants.no
        }
    }

    @inline(never)
    func depthLimitExceeded() -> PlistError {
        PlistError(.depthLimitExceeded, "nesting deeper than \(maxDepth)")
    }

    @inline(never)
    func invalidKey(_ key: PlistValue) -> PlistError {
        PlistError(.invalidKey, "\(key.kindNameWithArticle) cannot be a dictionary key")
    }

    /// A new object of one byte (`null`, `false`, `true`: each is written once).
    mutating func oneByteObject(_ byte: UInt8) -> Int {
        let p = reserve(1)
        p[0] = byte
        let object = newObject(at: position)
        position += 1
        return object
    }

    /// A dictionary key: the keys of a plist's many dictionaries repeat, so a string key is first looked up
    /// among the strings recently seen, by identity.
    @inline(__always)
    private mutating func key(_ value: UnsafePointer<PlistValue>) throws -> Int {
        guard case .string(let s) = value.pointee, let bits = RecentStrings.bits(of: s) else {
            return try add(value, depth: 1)
        }
        if let object = recentStrings[bits] { return object }
        let object = string(s)
        recentStrings.insert(s, bits, object)
        return object
    }

    /// The object of the scalar whose bytes were just written from `mark` on: an earlier object with the same
    /// bytes (the new bytes are taken back), or a new one.
    @inline(__always)
    private mutating func unique(from mark: Int, hash: Int = Table.noHash) -> Int {
        let candidate = objectCount
        let key = UnsafeRawBufferPointer(start: bytes + mark, count: position - mark)
        let written = OffsetEncodings<Position>(bytes: bytes, offsets: offsets, count: objectCount, end: mark)
        let object = table.object(for: key, hash: hash, in: written, candidate: candidate)
        if object == candidate {
            return newObject(at: mark)
        }
        position = mark
        return object
    }

    private mutating func string(_ s: String, hash: Int = Table.noHash) -> Int {
        if let found = s.utf8.withContiguousStorageIfAvailable({ asciiString($0, s, hash: hash) }), let object = found {
            return object
        }
        return otherString(s)
    }

    /// The object of `s`, whose UTF-8 is `utf8`, when it is ASCII: its bytes copied (and checked) eight at a time
    /// behind its marker, then uniqued by those bytes; `nil` when it is not ASCII (nothing is kept).
    @inline(__always)
    private mutating func asciiString(_ utf8: UnsafeBufferPointer<UInt8>, _ s: String,
                                      hash: Int = Table.noHash) -> Int? {
        let n = utf8.count
        let mark = position
        let p = reserve(10 + n)
        let length = Self.writeMarker(0x50, count: n, at: p)
        // No base address: the empty string.
        if let source = utf8.baseAddress, !copyASCII(from: source, count: n, to: p + length) { return nil }
        // The bytes in order are the string; `==` on two ASCII strings compares those bytes.
        if hasASCIIEquivalents, let object = otherStrings[s] { return object }
        position += length + n
        return unique(from: mark, hash: hash)
    }

    /// A string that is not ASCII, or not contiguous UTF-8: uniqued as a Swift string, written as UTF-16 (or as
    /// ASCII when a contiguous copy of it is ASCII).
    private mutating func otherString(_ string: String) -> Int {
        var s = string
        if s.utf8.withContiguousStorageIfAvailable({ _ in true }) == nil {
            s.makeContiguousUTF8()
            if let found = s.utf8.withContiguousStorageIfAvailable({ asciiString($0, s) }), let object = found {
                return object
            }
        }
        if let object = otherStrings[s] { return object }
        if let ascii = asciiEquivalent(of: s) {
            // Equal to an ASCII string: that string's object, when it was written first.
            let mark = position
            let p = reserve(10 + ascii.count)
            let length = Self.writeMarker(0x50, count: ascii.count, at: p)
            for (k, b) in ascii.enumerated() { p[length + k] = b }
            let key = UnsafeRawBufferPointer(start: bytes + mark, count: length + ascii.count)
            let written = OffsetEncodings<Position>(bytes: bytes, offsets: offsets, count: objectCount, end: mark)
            if let earlier = table.existingObject(for: key, in: written) { return earlier }
            hasASCIIEquivalents = true
        }
        let units = Array(s.utf16)
        let p = reserve(10 + 2 * units.count)
        let object = newObject(at: position)
        var k = Self.writeMarker(0x60, count: units.count, at: p)
        for u in units {
            p[k] = UInt8(truncatingIfNeeded: u >> 8)
            p[k + 1] = UInt8(truncatingIfNeeded: u)
            k += 2
        }
        position += k
        otherStrings[s] = object
        return object
    }

    // MARK: The file

    /// The file's size when it is complete in the buffer the writer was given: the offset table and the trailer
    /// written after the objects, when they fit, the references need no narrowing, and the file fills at least
    /// half of the buffer; `nil` otherwise (no object is changed: see ``finish()``).
    mutating func finishInPlace() -> Int? {
        let width = byteWidth(toExceed: objectCount)
        guard !ownsBytes, width == referenceWidth else { return nil }
        let trailer = BinaryPlistTrailer(objectCount: objectCount, topObject: 0, offsetTableOffset: position,
                                         referenceWidth: width)
        let size = position + objectCount * trailer.offsetWidth + BinaryPlistTrailer.byteCount
        guard size <= capacity, size >= capacity - capacity / 2 else { return nil }
        var out = BinaryPlistOutput(base: bytes, capacity: size)
        out.skip(to: position)
        out.appendReferences(UnsafeBufferPointer(start: offsets, count: objectCount), width: trailer.offsetWidth)
        out.appendTrailer(trailer)
        return out.overran || out.position != size ? nil : size
    }

    /// The file: header and objects as written (references narrowed when the object count allows fewer bytes
    /// than were written), offset table and trailer, in one array of the size they need.
    consuming func finish() -> [UInt8] {
        let width = byteWidth(toExceed: objectCount)
        let tableOffset = position - referenceCount * (referenceWidth - width)
        let trailer = BinaryPlistTrailer(objectCount: objectCount, topObject: 0, offsetTableOffset: tableOffset,
                                         referenceWidth: width)
        let size = tableOffset + objectCount * trailer.offsetWidth + BinaryPlistTrailer.byteCount
        return BinaryPlistOutput.bytes(count: size) { out in
            if width == referenceWidth {
                out.append(UnsafeBufferPointer(start: bytes, count: position))
            } else {
                narrowReferences(into: &out, width: width)
            }
            out.appendReferences(UnsafeBufferPointer(start: offsets, count: objectCount), width: trailer.offsetWidth)
            out.appendTrailer(trailer)
        }
    }

    /// Copies the header and the objects into `out` with every reference `width` bytes instead of
    /// `referenceWidth`, and moves each object's offset to where it lands. A collection is known by its marker
    /// (0xA, 0xC or 0xD in the high nibble, which no scalar marker has).
    func narrowReferences(into out: inout BinaryPlistOutput, width: Int) {
        let all = UnsafeRawBufferPointer(start: bytes, count: position)
        out.append(UnsafeBufferPointer(start: bytes, count: BinaryPlistOutput.header.count))
        for i in 0..<objectCount {
            let start = Int(truncatingIfNeeded: offsets[i])
            let end = i + 1 < objectCount ? Int(truncatingIfNeeded: offsets[i + 1]) : position
            offsets[i] = Position(truncatingIfNeeded: out.position)
            let kind = bytes[start] & 0xF0
            guard kind == 0xA0 || kind == 0xC0 || kind == 0xD0 else {
                out.append(UnsafeBufferPointer(start: bytes + start, count: end - start))
                continue
            }
            var count = Int(bytes[start] & 0x0F)
            var header = 1
            if count == 0x0F {
                let countWidth = 1 << Int(bytes[start + 1] & 0x0F)
                count = Int(truncatingIfNeeded: readBigEndian(all, start + 2, countWidth))
                header = 2 + countWidth
            }
            out.append(UnsafeBufferPointer(start: bytes + start, count: header))
            let references = kind == 0xD0 ? 2 * count : count
            var at = start + header
            for _ in 0..<references {
                out.appendBigEndian(readBigEndian(all, at, referenceWidth), width: width)
                at += referenceWidth
            }
        }
    }
}

/// The encodings of the objects an ``ObjectWriter`` has written: object `i` runs from its offset to the next
/// object's, the last one to `end` (where the candidate being uniqued starts).
private struct OffsetEncodings<Position: FixedWidthInteger & UnsignedInteger>: ObjectEncodings {
    let bytes: UnsafeMutablePointer<UInt8>
    let offsets: UnsafeMutablePointer<Position>
    let count: Int
    let end: Int

    @inline(__always)
    func encoding(of object: Int) -> UnsafeRawBufferPointer {
        let start = Int(truncatingIfNeeded: offsets[object])
        let stop = object + 1 < count ? Int(truncatingIfNeeded: offsets[object + 1]) : end
        return UnsafeRawBufferPointer(start: bytes + start, count: stop - start)
    }
}

/// Copies `count` bytes from `source` to `target` eight at a time (the last eight overlapping the ones before
/// them), or four, or one; returns whether every byte is below 0x80. `target` has room for `count` bytes.
@inline(__always)
private func copyASCII(from source: UnsafePointer<UInt8>, count n: Int, to target: UnsafeMutablePointer<UInt8>) -> Bool {
    let from = UnsafeRawPointer(source)
    let to = UnsafeMutableRawPointer(target)
    if n >= 8 {
        var high: UInt64 = 0
        var i = 0
        while i + 8 <= n {
            let word = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            to.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
            high |= word
            i += 8
        }
        if i < n {
            let word = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            to.storeBytes(of: word, toByteOffset: n - 8, as: UInt64.self)
            high |= word
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
    if n >= 4 {
        let first = from.loadUnaligned(as: UInt32.self)
        let last = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        to.storeBytes(of: first, as: UInt32.self)
        to.storeBytes(of: last, toByteOffset: n - 4, as: UInt32.self)
        return (first | last) & 0x8080_8080 == 0
    }
    var high: UInt8 = 0
    for i in 0..<n {
        target[i] = source[i]
        high |= source[i]
    }
    return high < 0x80
}

/// A growing byte buffer with the binary plist object encodings.
package struct BinaryPlistBuffer {
    package init() {}
    package var bytes: [UInt8] = []

    @inline(__always)
    package mutating func writeBigEndian(_ v: UInt64, width: Int) {
        switch width {
        case 1:
            bytes.append(UInt8(truncatingIfNeeded: v))
            return
        case 2, 4:
            // A few single appends cost less than one append of a buffer (its generic set-up).
            var shift = UInt64(8 * (width - 1))
            for _ in 0..<width {
                bytes.append(UInt8(truncatingIfNeeded: v >> shift))
                shift &-= 8
            }
            return
        default:
            break
        }
        // A contiguous buffer, so that appending is one copy (a slice of a raw buffer is appended byte by byte).
        withUnsafeBytes(of: v.bigEndian) {
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[(8 - width)...]).assumingMemoryBound(to: UInt8.self))
        }
    }

    package mutating func writeMarker(_ kind: UInt8, count: Int) {
        if count < 15 {
            bytes.append(kind | UInt8(count))
        } else {
            bytes.append(kind | 0x0F)
            writeUnsigned(UInt64(count))
        }
    }

    /// An integer object for a non-negative value below 2^63, in the smallest of 1, 2, 4 or 8 bytes.
    package mutating func writeUnsigned(_ v: UInt64) {
        if v <= 0xFF {
            bytes.append(0x10)
            bytes.append(UInt8(v))
        } else if v <= 0xFFFF {
            bytes.append(0x11)
            writeBigEndian(v, width: 2)
        } else if v <= 0xFFFF_FFFF {
            bytes.append(0x12)
            writeBigEndian(v, width: 4)
        } else {
            bytes.append(0x13)
            writeBigEndian(v, width: 8)
        }
    }

    package mutating func writeScalar(_ v: PlistValue) {
        switch v {
        case .null: bytes.append(0x00)
        case .bool(let b): bytes.append(b ? 0x09 : 0x08)
        case .integer(let i):
            if i.high == 0 && i.low < (1 << 63) {
                writeUnsigned(i.low)
            } else if i.high == -1 && i.low >= (1 << 63) {
                bytes.append(0x13)  // negative 64-bit: always 8 bytes
                writeBigEndian(i.low, width: 8)
            } else {
                bytes.append(0x14)  // 2^63 and up, or beyond 64 bits: 16 bytes
                writeBigEndian(UInt64(bitPattern: i.high), width: 8)
                writeBigEndian(i.low, width: 8)
            }
        case .real(let r):
            bytes.append(0x23)
            writeBigEndian(r.bitPattern, width: 8)
        case .date(let d):
            bytes.append(0x33)
            writeBigEndian(d.secondsSinceReferenceDate.bitPattern, width: 8)
        case .data(let d):
            writeMarker(0x40, count: d.count)
            bytes.append(contentsOf: d)
        case .string(let s):
            writeString(s)
        case .uid(let u):
            // CoreFoundation's widths: 1, 2, 4 or 8 bytes.
            let width = u.value <= 0xFF ? 1 : u.value <= 0xFFFF ? 2 : u.value <= 0xFFFF_FFFF ? 4 : 8
            bytes.append(0x80 | UInt8(width - 1))
            writeBigEndian(u.value, width: width)
        case .array, .set, .dictionary:
            break  // never reached: collections are nodes of their own
        }
    }

    package mutating func writeString(_ s: String) {
        // An ASCII string is copied from its UTF-8 storage in one go (a bridged string without contiguous
        // UTF-8 is made contiguous first).
        let written: Bool? = s.utf8.withContiguousStorageIfAvailable { buf in writeASCII(buf) }
        if written == true { return }
        if written == nil {
            var copy = s
            copy.makeContiguousUTF8()
            if copy.utf8.withContiguousStorageIfAvailable({ buf in writeASCII(buf) }) == true { return }
        }
        let units = Array(s.utf16)
        writeMarker(0x60, count: units.count)
        for u in units {
            bytes.append(UInt8(u >> 8))
            bytes.append(UInt8(u & 0xFF))
        }
    }

    /// Writes `utf8` as an ASCII string object and returns `true`; writes nothing and returns `false` when a
    /// byte is not ASCII.
    private mutating func writeASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var high: UInt8 = 0
        for b in utf8 { high |= b }
        guard high < 0x80 else { return false }
        writeMarker(0x50, count: utf8.count)
        bytes.append(contentsOf: utf8)
        return true
    }
}
