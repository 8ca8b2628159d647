extension CacheDirectory {
    /// An index as snapshot and journal give it, with how far into the journal it has read.
    struct LoadedIndex {
        var index: CacheIndex
        var generation: UInt64
        var offset: Int
        var stamp: CacheJournalFile.Stamp
    }

    /// The index as the snapshot and journal give it; `nil` when they do not agree (a compaction or rebuild
    /// is needed). The caller holds the lock file.
    func loadIndex() throws(StoreError) -> LoadedIndex? {
        try readIndex(requireAgreement: true)
    }

    /// The snapshot: `.some(nil)` when there is none (generation 0, empty), `nil` when it is damaged or not a
    /// regular file.
    private func readSnapshot() throws(StoreError) -> CacheIndexSnapshot?? {
        guard let fd = try fileSystem.openIfPresent(indexPath, [.readOnly, .noFollow, .nonBlocking]) else {
            return .some(nil)
        }
        defer { fileSystem.close(fd) }
        // The header says how long the file must be; anything else, or more entries than a cache keeps,
        // is damage, found before the body is allocated.
        let info = try fileSystem.status(fd, indexPath)
        guard info.isRegularFile else { return nil }
        let header = try fileSystem.read(fd, count: CacheIndexSnapshot.headerSize, at: 0, indexPath)
        guard header.count == CacheIndexSnapshot.headerSize else { return nil }
        let count = readLittleEndian(header, 32, width: 8)
        guard count <= CacheIndexSnapshot.largestCount,
              let size = Int(exactly: info.size), let lines = intFromDisk(count),
              size == CacheIndexSnapshot.headerSize + lines * CacheIndexSnapshot.lineSize
        else { return nil }
        let bytes = try fileSystem.read(fd, count: size, at: 0, indexPath)
        guard let snapshot = CacheIndexSnapshot(bytes) else { return nil }  // damaged
        return .some(snapshot)
    }

    /// Reads snapshot + journal. With `requireAgreement`, `nil` unless the journal is the snapshot's own
    /// generation; without, applies what can be trusted and returns `nil` only when a rebuild is needed.
    private func readIndex(requireAgreement: Bool) throws(StoreError) -> LoadedIndex? {
        let stamp = try journal.stamp()
        guard let snapshotOrNone = try readSnapshot() else { return nil }
        let snapshot = snapshotOrNone ?? CacheIndexSnapshot(generation: 0, baseGeneration: 0, mergedLength: 0, entries: [])
        let read = try journal.read(from: 0, to: stamp.size)
        guard let generation = read.generation, !read.damaged else { return nil }
        var index = CacheIndex(entries: snapshot.entries)
        if generation == snapshot.generation {
            for record in read.records { index.apply(record) }
        } else if !requireAgreement && generation == snapshot.baseGeneration && snapshotOrNone != nil {
            // Crashed between the snapshot's rename and the journal's reset: what came after the merge.
            guard snapshot.mergedLength <= UInt64(stamp.size), let merged = intFromDisk(snapshot.mergedLength) else {
                return nil   // longer than the journal: damage
            }
            let skip = max(0, (merged - CacheJournalRecord.size) / CacheJournalRecord.size)
            for record in read.records.dropFirst(skip) { index.apply(record) }
        } else {
            return nil
        }
        return LoadedIndex(index: index, generation: generation, offset: read.consumed, stamp: stamp)
    }

    /// What a compaction made.
    struct Compaction {
        var loaded: LoadedIndex
        /// Rebuilt from the entry files (snapshot and journal could not be trusted).
        var rebuilt: Bool
        /// The journal's length when it was merged.
        var merged: Int
    }

    /// Rewrites the snapshot from snapshot + journal (or from the entry files when those cannot be trusted)
    /// and starts the journal over. The caller holds the lock file (``exclusively(_:)``).
    func compact() throws(StoreError) -> Compaction {
        var rebuilt = false
        var index: CacheIndex
        var previous: UInt64
        if let read = try readIndex(requireAgreement: false) {
            index = read.index
            previous = read.generation
        } else {
            index = CacheIndex(entries: try scanEntries())
            rebuilt = true
            previous = currentGeneration()
        }
        let merged = try journal.stamp().size
        let generation = try startOver(with: index.entries, after: previous)
        return Compaction(loaded: LoadedIndex(index: index, generation: generation, offset: CacheJournalRecord.size,
                                              stamp: try journal.stamp()),
                          rebuilt: rebuilt, merged: merged)
    }

    /// The generation a new snapshot follows: the larger of the journal's and the snapshot's.
    func currentGeneration() -> UInt64 {
        var previous: UInt64 = 0
        if let read = try? journal.read(from: 0, to: 0), let generation = read.generation,
           generation != CacheJournalFile.unknownGeneration {
            previous = generation
        }
        if case .some(.some(let snapshot)) = try? readSnapshot() { previous = max(previous, snapshot.generation) }
        return previous
    }

    /// Writes a snapshot of `entries` as generation `previous + 1` (synced, renamed into place), then starts the
    /// journal over as a new file renamed into place, so that every process sees by its identity that the
    /// journal changed, whatever size it grows back to. The caller holds the lock file exclusively.
    func startOver(with entries: [CacheIndex.Entry], after previous: UInt64) throws(StoreError) -> UInt64 {
        let merged = try journal.stamp().size
        let generation = previous &+ 1
        let snapshot = CacheIndexSnapshot(generation: generation, baseGeneration: previous,
                                          mergedLength: UInt64(merged), entries: entries)
        var index = try staging.write(snapshot.serialized(), for: indexPath, durability: .synchronous)
        do throws(StoreError) { try index.install(.relaxed) } catch {
            index.abandon()
            throw error
        }
        var fresh = try AtomicReplace(replacing: journal.path, temporary: staging.temporaryName(), fileSystem: fileSystem)
        do throws(StoreError) {
            try fresh.append(CacheJournalFile.header(generation: generation))
            try fresh.finish(.relaxed)
            try fresh.install(.relaxed)
        } catch {
            fresh.abandon()
            throw error
        }
        try? fileSystem.syncDirectory(path)
        try journal.follow(creating: false)
        return generation
    }
}
