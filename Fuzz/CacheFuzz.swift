// libFuzzer entry for the readers of ArchiveCache: the journal, the index snapshot and entry files, and a
// whole cache directory built from the input. Compiled by Fuzz/run.sh into the ArchiveStore module (so that
// internal types are reachable), against BinaryPlist and KeyedArchive built as libraries.
//
// Input: byte 0 picks the mode; the rest is split at the first two occurrences of "|||" into an index
// snapshot, a journal and an entry file.
// - mode < 240: the parsers alone. The journal parser consumes at most what it was given and every record it
//   returns writes back to bytes that parse to the same record; a snapshot that parses writes back to the
//   same bytes; an entry file either is rejected or decodes to a value that round-trips through encode. An
//   odd mode seals the entry with a valid checksum first, so that the decoding behind the checksum is
//   reached; an even mode leaves it as it is (the checksum must reject almost every input).
// - mode >= 240: the three files are written into a fresh cache directory (the entry at key "k"'s path), a
//   cache with limits is opened on it, and read, set, read, removeExpired and statistics must work: no trap,
//   errors only StoreError, "k" reads back what was set, the entry count is at least one.
import BinaryPlist
import ArchivePlatform
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

private func checkParsers(index: [UInt8], journal: [UInt8], entry: [UInt8], seal: Bool) {
    var entry = entry
    if seal { CacheEntryChecksum.seal(&entry) }
    let parsed = CacheJournalFile.parse(journal)
    if parsed.consumed > journal.count { cacheFinding("journal parse consumed past the end") }
    for record in parsed.records {
        var bytes: [UInt8] = []
        record.append(to: &bytes)
        guard CacheJournalRecord(bytes, at: 0) == record else { cacheFinding("a journal record does not round-trip") }
    }
    if let snapshot = CacheIndexSnapshot(index), snapshot.serialized() != index {
        cacheFinding("an accepted snapshot does not write back to the same bytes")
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

private func checkDirectory(index: [UInt8], journal: [UInt8], entry: [UInt8]) {
    let path = fuzzDirectory + "/c"
    removeTree(path)
    mkdir(path, 0o700)
    let hex = StableHash("k".utf8).hex
    mkdir(path + "/" + hex.prefix(2), 0o700)
    if !index.isEmpty { writeFile(index, to: path + "/cache.index") }
    if !journal.isEmpty { writeFile(journal, to: path + "/cache.journal") }
    writeFile(entry, to: path + "/" + hex.prefix(2) + "/" + hex + ".archive")
    var options = CacheOptions()
    options.byteLimit = 4_096
    options.countLimit = 8
    options.memoryCostLimit = 1_024
    options.defaultTimeToLive = .hours(1)
    do throws(StoreError) {
        let cache = try ArchiveCache<[UInt8]>(directory: path, options: options)
        _ = try cache.value(forKey: "k")
        try cache.set([1, 2, 3], forKey: "k")
        guard try cache.value(forKey: "k") == [1, 2, 3] else { cacheFinding("a set value does not read back") }
        _ = try cache.removeExpired()
        try cache.set([4], forKey: "j")
        guard cache.statistics.entryCount >= 1 else { cacheFinding("the index lost the entries just set") }
    } catch {
        // Only system-call failures may surface (a file of the input standing where a directory must be).
        guard [.io, .symbolicLink, .notRegularFile].contains(error.code) else { cacheFinding("unexpected \(error)") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    let parts = split(input[1...])
    if input[0] < 240 {
        checkParsers(index: parts[0], journal: parts[1], entry: parts[2], seal: input[0] % 2 == 1)
    } else {
        checkDirectory(index: parts[0], journal: parts[1], entry: parts[2])
    }
    return 0
}
