/// Moves the entries of a cache directory of the format before segments (one file per entry under
/// `<hh>/<hash>.archive`, with `cache.index`, `cache.journal` and `staging/`) into the segment format, on the
/// first write (the caller holds the lock). Entries with a valid checksum are kept: a small one becomes a frame,
/// a large one is renamed into `large/`. Entries without one (written before checksums) are dropped, as are the
/// old index, journal and staging files. Only names the old format wrote are touched.
enum CacheLegacyMigration {
    static let oldIndexName = "cache.index"
    static let oldJournalName = "cache.journal"
    static let oldStagingName = "staging"

    /// Writes the small entries into segments numbered from `firstSegment`.
    static func moveIn(_ directory: CacheDirectory, firstSegment: UInt32, segmentSize: Int, largeThreshold: Int) throws(StoreError) {
        let fileSystem = directory.fileSystem
        let names = try fileSystem.list(directory.path) ?? []
        let fanOuts = names.filter(CacheDirectory.isLegacyFanOut)
        var segment = firstSegment
        var pending: [UInt8] = []
        func flush() throws(StoreError) {
            guard !pending.isEmpty else { return }
            let path = directory.segments.file(segment)
            var file = try AtomicReplace(replacing: path, fileSystem: fileSystem)
            do throws(StoreError) {
                try file.append(pending)
                try file.finish(.relaxed)
                try file.install(.relaxed)
            } catch {
                file.abandon()
                throw error
            }
            pending.removeAll(keepingCapacity: true)
            segment &+= 1
        }
        for fanOut in fanOuts.sorted() {
            let fanOutPath = PathName.join(directory.path, fanOut)
            for name in try fileSystem.list(fanOutPath) ?? [] {
                guard let hash = CacheDirectory.legacyHash(directory: fanOut, name: name) else { continue }
                let file = PathName.join(fanOutPath, name)
                guard let bytes = try? directory.readLargeFile(file, limit: 1 << 30), CacheEntryChecksum.verify(bytes),
                      let header = CacheEntryCoding.header(bytes), StableHash(header.key.utf8) == hash
                else {
                    _ = try? fileSystem.unlink(file)
                    continue
                }
                let key = CacheDirectory.frameKey(Array(header.key.utf8), hash: hash)
                let expiry = header.expires?.timeIntervalSince1970
                if bytes.count > largeThreshold {
                    try fileSystem.makeDirectory(directory.largePath)
                    try fileSystem.rename(file, directory.largeFile(hash))
                    var size: [UInt8] = []
                    appendLittleEndian(UInt64(bytes.count), width: 8, to: &size)
                    pending += FrameHeader.encode(kind: .external, key: key, expiry: expiry, payload: size)
                } else {
                    pending += FrameHeader.encode(kind: .put, key: key, expiry: expiry, payload: bytes)
                    _ = try? fileSystem.unlink(file)
                }
                if pending.count >= segmentSize { try flush() }
            }
            _ = try? fileSystem.removeDirectory(fanOutPath)   // only when empty
        }
        try flush()
        for name in [oldIndexName, oldJournalName] {
            let path = PathName.join(directory.path, name)
            if let info = try fileSystem.linkStatus(path), info.isRegularFile { _ = try? fileSystem.unlink(path) }
        }
        let staging = PathName.join(directory.path, oldStagingName)
        for name in try fileSystem.list(staging) ?? [] where isOldStagingName(name) {
            _ = try? fileSystem.unlink(PathName.join(staging, name))
        }
        _ = try? fileSystem.removeDirectory(staging)
    }

    /// A name the old staging area used: `<8 hex>.owner` or `<8 hex>-<digits>.tmp`.
    static func isOldStagingName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 9, bytes[0..<8].allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return false }
        if bytes.count == 14 && name.hasSuffix(".owner") { return true }
        return bytes[8] == UInt8(ascii: "-") && name.hasSuffix(".tmp") && bytes.count > 13
            && bytes[9..<(bytes.count - 4)].allSatisfy({ (48...57).contains($0) })
    }
}
