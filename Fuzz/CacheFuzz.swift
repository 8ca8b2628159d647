// libFuzzer entry for the readers of ArchiveCache: the table's header and slots, segment frames, entries (large
// files and frame payloads), and a whole cache directory built from the input. Compiled by Fuzz/run.sh into the
// ArchiveStore module (so that internal types are reachable), against ArchivePlatform, BinaryPlist and
// KeyedArchive built as libraries.
//
// Input: byte 0 picks the mode; the rest is split at the first two occurrences of "|||" into a table (its
// 104-byte header, then slots of 24 bytes), a segment (frames) and an entry (a keyed archive).
// An odd mode first gives the header, every frame and the entry valid checksums, so that what lies behind the
// checks is reached; an even mode leaves them as they are (the checks must reject almost every input).
// - mode < 240: the parsers alone. A header that parses writes back to the same bytes; every slot writes back
//   to its bytes; every frame the segment walk accepts lies within the segment, and (with a canonical expiry)
//   encodes back to its bytes; an entry either is rejected or decodes to a value that round-trips.
// - mode >= 240: a cache directory: the header and slots as `cache.table` (each slot placed where its tag puts
//   it in a table of 256), the segment as the segment the header calls the head (or as raw bytes with mode 254
//   and 255, table included: sizes no table has), the entry as the large file of "key-0". A cache with limits
//   is opened on it, and reads, sets, removals, listing, expiry and a trim must work: no trap, errors only the
//   StoreErrors of system calls, every value set reads back, the count agrees with the listing.
import ArchivePlatform
import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
#if canImport(Glibc)
import Glibc
#endif

func cacheFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

private func split(_ bytes: ArraySlice<UInt8>) -> [[UInt8]] {
    var parts: [[UInt8]] = []
    var current: [UInt8] = []
    var i = bytes.startIndex
    while i < bytes.endIndex {
        if parts.count < 2, i + 2 < bytes.endIndex, bytes[i] == 124, bytes[i + 1] == 124, bytes[i + 2] == 124 {
            parts.append(current)
            current = []
            i += 3
            continue
        }
        current.append(bytes[i])
        i += 1
    }
    parts.append(current)
    while parts.count < 3 { parts.append([]) }
    return parts
}

private func put32(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
    for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> UInt32(8 * i)) }
}

/// Gives the header a valid checksum (when it is long enough to hold one).
private func sealHeader(_ table: inout [UInt8]) {
    guard table.count >= CacheTableHeader.usedSize else { return }
    put32(Checksum.crc32(table, 0..<CacheTableHeader.checksumOffset), into: &table, at: CacheTableHeader.checksumOffset)
}

/// Gives every frame the walk reaches a valid checksum (a frame's length field decides where the next starts).
private func sealFrames(_ segment: inout [UInt8]) {
    var offset = 0
    while offset + FrameHeader.size <= segment.count {
        let length = Int(readLittleEndian(segment, offset, width: 4))
        guard length >= FrameHeader.size, length <= segment.count - offset else { return }
        let crc = Checksum.crc32(continuing: Checksum.crc32(segment, offset..<offset + 16), segment, offset + 20..<offset + length)
        put32(crc, into: &segment, at: offset + 16)
        offset += length
    }
}

private func checkParsers(table: [UInt8], segment: [UInt8], entry: [UInt8]) {
    if let header = CacheTableHeader(table) {
        guard header.bytes == Array(table[0..<CacheTableHeader.usedSize]) || table[100..<104] != [0, 0, 0, 0] else {
            cacheFinding("an accepted header does not write back to the same bytes")
        }
    }
    var offset = min(table.count, CacheTableHeader.usedSize)
    while offset + CacheSlot.size <= table.count {
        let slot = CacheSlot(table, at: offset)
        guard slot.bytes[0..<22] == table[offset..<offset + 22] else { cacheFinding("a slot does not write back to its bytes") }
        offset += CacheSlot.size
    }
    offset = 0
    while offset + FrameHeader.size <= segment.count {
        guard let frame = try? FrameHeader(segment, at: offset, available: segment.count - offset, fileOffset: offset,
                                           path: "segment", allowsExternal: true)
        else { break }
        guard frame.length >= FrameHeader.size, offset + frame.length <= segment.count else { cacheFinding("a frame passes the end") }
        let key = Array(frame.key(in: segment, at: offset)), payload = Array(frame.payload(in: segment, at: offset))
        if frame.verify(segment, at: offset), frame.expiry != nil || frame.expiryBits == Double.nan.bitPattern {
            let again = FrameHeader.encode(kind: frame.kind, key: key, expiry: frame.expiry, payload: payload)
            guard again == Array(segment[offset..<offset + frame.length]) else { cacheFinding("a frame does not encode back") }
        }
        _ = CacheDirectory.hash(ofFrameKey: key)
        offset += frame.length
    }
    switch CacheEntryCoding.decode(entry, as: [UInt8].self, key: "k", now: Date(timeIntervalSince1970: 1_700_000_000),
                                   registry: .standard) {
    case .value(let value, let expires):
        let again: [UInt8]
        do {
            again = try CacheEntryCoding.encode(CacheEntryFile(key: "k", value: value, created: Date(timeIntervalSince1970: 0), expires: expires))
        } catch {
            cacheFinding("a decoded value does not encode: \(error)")
        }
        guard case .value(let back, _) = CacheEntryCoding.decode(again, as: [UInt8].self, key: "k",
                                                                   now: Date(timeIntervalSince1970: 0), registry: .standard),
              back == value
        else { cacheFinding("a decoded value does not round-trip") }
    case .rejected:
        break
    }
    _ = CacheEntryCoding.header(entry)
}

/// A table of 256 slots: the input's header, and each of its slots where its tag puts it.
private func tableFile(_ input: [UInt8]) -> [UInt8] {
    let bits = 8
    var file = [UInt8](repeating: 0, count: CacheTableHeader.pageSize + (1 << bits) * CacheSlot.size)
    let header = input.prefix(CacheTableHeader.usedSize)
    file.replaceSubrange(0..<header.count, with: header)
    var taken = [Bool](repeating: false, count: 1 << bits)
    var offset = CacheTableHeader.usedSize
    var placed = 0
    while offset + CacheSlot.size <= input.count && placed < 1 << bits {
        let slot = CacheSlot(input, at: offset)
        var index = CacheTable.home(slot.tag, bits: bits)
        while taken[index] { index = (index + 1) & ((1 << bits) - 1) }
        taken[index] = true
        let start = CacheTableHeader.pageSize + index * CacheSlot.size
        file.replaceSubrange(start..<start + CacheSlot.size, with: input[offset..<offset + CacheSlot.size])
        offset += CacheSlot.size
        placed += 1
    }
    return file
}

private func checkDirectory(table: [UInt8], segment: [UInt8], entry: [UInt8], raw: Bool) {
    let path = fuzzDirectory + "/c"
    removeTree(path)
    mkdir(path, 0o700)
    mkdir(path + "/segments", 0o700)
    mkdir(path + "/large", 0o700)
    if raw {
        if !table.isEmpty { writeFile(table, to: path + "/cache.table") }
    } else if !table.isEmpty {
        writeFile(tableFile(table), to: path + "/cache.table")
    }
    let head = table.count >= 20 ? UInt32(readLittleEndian(table, 16, width: 4)) : 1
    if !segment.isEmpty { writeFile(segment, to: path + "/segments/" + CacheSegments.hex(head) + ".seg") }
    if !entry.isEmpty { writeFile(entry, to: path + "/large/" + StableHash("key-0".utf8).hex + ".archive") }
    var options = CacheOptions()
    options.byteLimit = 64 << 10
    options.countLimit = 8
    options.memoryCostLimit = 1_024
    options.defaultTimeToLive = .hours(1)
    do throws(StoreError) {
        let cache = try ArchiveCache<[UInt8]>(directory: path, options: options)
        for key in ["k", "key-0", "key-1", "key-2"] { _ = try cache.value(forKey: key) }
        _ = try cache.archivedEntry(forKey: "key-0")
        _ = try cache.entries()
        try cache.set([1, 2, 3], forKey: "key-0")
        guard try cache.value(forKey: "key-0") == [1, 2, 3] else { cacheFinding("a set value does not read back") }
        try cache.removeValue(forKey: "key-1")
        guard try cache.value(forKey: "key-1") == nil else { cacheFinding("a removed value reads back") }
        _ = try cache.removeExpired()
        try cache.set([UInt8](repeating: 9, count: 20_000), forKey: "j")   // a large entry
        guard try cache.value(forKey: "j")?.count == 20_000 else { cacheFinding("a large value does not read back") }
        try cache.set([UInt8](repeating: 8, count: 30_000), forKey: "j")   // replaced: the file's other name
        guard try cache.value(forKey: "j") == [UInt8](repeating: 8, count: 30_000) else { cacheFinding("a replaced large value does not read back") }
        let listed = try cache.entries()
        let counted = cache.statistics.entryCount
        // Listing corrects a header's counts from the slots; a slot whose frame cannot be read is not listed.
        guard counted >= 1, listed.count <= counted else { cacheFinding("the table counts \(counted), lists \(listed.count)") }
        try cache.trim(toByteLimit: 0)
        guard cache.statistics.entryCount == 0 else { cacheFinding("a trim to nothing left entries") }
        let reopened = try ArchiveCache<[UInt8]>(directory: path, options: options)
        try reopened.set([4], forKey: "k")
        guard try cache.value(forKey: "k") == [4] else { cacheFinding("another instance's value does not read back") }
    } catch {
        // Only system-call failures may surface (a file of the input standing where a directory must be).
        guard [.io, .symbolicLink, .notRegularFile].contains(error.code) else { cacheFinding("unexpected \(error)") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    var parts = split(input[1...])
    if input[0] % 2 == 1 {
        sealHeader(&parts[0])
        sealFrames(&parts[1])
        CacheEntryChecksum.seal(&parts[2])
    }
    if input[0] < 240 {
        checkParsers(table: parts[0], segment: parts[1], entry: parts[2])
    } else {
        checkDirectory(table: parts[0], segment: parts[1], entry: parts[2], raw: input[0] >= 254)
    }
    return 0
}
