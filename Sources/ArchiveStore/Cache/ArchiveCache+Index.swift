extension ArchiveCache {
    // MARK: The shared index

    /// Writes buffered uses to the journal (and the loaded index).
    func flushAccesses() {
        let flushed = disk.withLock { d -> Bool in
            let accesses = memory.withLock { $0.takeAccesses(writer: files.writer) }
            guard !accesses.isEmpty else { return false }
            if d.index != nil { for access in accesses { d.index?.apply(access) } }
            _ = try? files.appendShared(accesses)
            return true
        }
        if flushed { compactIfDue() }
    }

    /// ``flushAccesses()`` from a read: only when neither this cache's writers nor another process's hold
    /// the locks now (a read never waits for a writer); otherwise the uses stay buffered for later.
    func flushAccessesIfFree() {
        _ = disk.withLockIfAvailable { d in
            let accesses = memory.withLock { $0.takeAccesses(writer: files.writer) }
            guard !accesses.isEmpty else { return }
            if (try? files.appendShared(accesses, nonBlocking: true)) == true {
                if d.index != nil { for access in accesses { d.index?.apply(access) } }
            } else {
                memory.withLock { m in m.restoreAccesses(accesses) }
            }
        }
    }

    // MARK: Disk index

    /// Loads the index (snapshot + journal, or a rebuild), or brings a loaded one up to date with the
    /// journal: others' records applied, a compaction by another process followed by a reload.
    func synchronize(_ d: inout CacheIndexState) throws(StoreError) {
        if d.index != nil {
            let stamp = try files.journal.stamp()
            if stamp == d.stamp { return }
            let read = try files.journal.read(from: d.offset, to: stamp.size)
            if stamp.identity == d.stamp.identity && read.generation == d.generation && stamp.size >= d.offset && !read.damaged {
                for record in read.records where record.writer != files.writer { d.index?.apply(record) }
                d.offset = read.consumed
                d.stamp = stamp
                return
            }
        }
        if let loaded = try files.loadIndex() {
            d.adopt(loaded)
        } else {
            try compact(&d)
        }
        memory.withLock { m in
            m.lastTick = max(m.lastTick, d.index?.latestTick ?? 0)
        }
    }

    func compact(_ d: inout CacheIndexState) throws(StoreError) {
        // Bring the memory layer up to the journal's end first: what it has read is then all the
        // compaction merges, unless another process appends in between (then it starts empty).
        let before = memory.withLock { m -> (UInt64?, Int) in
            m.refresh(from: files.journal, writer: files.writer)
            return (m.generation, m.offset)
        }
        let result = try files.compact()
        d.adopt(result.loaded)
        memory.withLock { m in
            if result.rebuilt || before.0 != m.generation || before.1 != m.offset || m.offset != result.merged {
                m.clear()
            }
            m.generation = result.loaded.generation
            m.offset = result.loaded.offset
            m.stamp = result.loaded.stamp
            m.lastTick = max(m.lastTick, result.loaded.index.latestTick)
            files.journal.closeLeftDescriptors()   // both locks held: no other thread is using one
        }
    }

    /// Compacts when the journal holds more records than the index has entries (and at least 16,384), so
    /// that its cost, spread over the writes that grew the journal, stays constant per write.
    /// - Parameter afterWrite: called right after a `set`, whose section left the journal's size in the disk
    ///   state (flushes of uses append without updating it, so they ask the file).
    func compactIfDue(afterWrite: Bool = false) {
        disk.withLock { d in
            let known = afterWrite && d.index != nil && d.stamp.size >= 0
            let size = known ? d.stamp.size : (try? files.journal.stamp())?.size ?? 0
            guard size / CacheJournalRecord.size > max(16_384, d.index?.count ?? 0) else { return }
            // A cache without limits never needed its index; its journal must not grow forever either.
            _ = try? files.exclusively { () throws(StoreError) in
                try synchronize(&d)
                if let count = d.index?.count, (try files.journal.stamp()).size / CacheJournalRecord.size > max(16_384, count) {
                    try compact(&d)
                }
            }
        }
    }

    /// Writes a new index snapshot and starts the journal over now (tests; compaction otherwise runs by
    /// itself once the journal holds more records than there are entries).
    package func compactIndex() throws(StoreError) {
        try mutate { (d: inout CacheIndexState) throws(StoreError) in
            try synchronize(&d)
            try compact(&d)
        }
    }

    /// Runs `body` on the disk state holding this cache's lock and the directory's lock file exclusively
    /// (see ``CacheDirectory/exclusively(_:)``).
    func mutate<Result>(_ body: (inout CacheIndexState) throws(StoreError) -> Result) throws(StoreError) -> Result {
        try disk.withLock { (d: inout CacheIndexState) throws(StoreError) -> Result in
            try files.exclusively { () throws(StoreError) -> Result in try body(&d) }
        }
    }
}
