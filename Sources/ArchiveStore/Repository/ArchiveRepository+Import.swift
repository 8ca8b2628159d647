import KeyedArchive

/// Bulk import: any sequence of records, streamed into one commit with bounded memory.
extension ArchiveRepository {
    /// Adds the records of `records` in one commit (all or nothing), reading the sequence once, one record at a
    /// time, and returns how many were added. What is built is written ahead of the commit every 4 MiB, so
    /// memory holds the records' locations, not the records: an import of a million records from a lazy
    /// sequence stays well under 256 MB.
    ///
    /// With `skippingExisting`, a record whose id is taken (in the store, or earlier in `records`) is left out
    /// and handed to `skipped`; without it, such a record throws ``StoreError/Code/duplicateID`` and nothing is
    /// added. `progress` counts the records read, of `records.underestimatedCount` when that is not zero. The
    /// writer lock is held for the whole import: other writers wait (up to ``RepositoryOptions/lockTimeout``),
    /// readers do not.
    ///
    /// ```swift
    /// let added = try repository.add(contentsOf: (0..<1_000_000).lazy.map { Workout(id: "w\($0)", count: $0) })
    /// ```
    ///
    /// Mirrors Core Data's `NSBatchInsertRequest` and Realm's `add(_:update:)` of a sequence in one write.
    @discardableResult
    public func add<Records: Sequence>(contentsOf records: Records, skippingExisting: Bool = false,
                                       progress: ProgressHandler? = nil,
                                       skipped: ((Record) -> Void)? = nil) throws(StoreError) -> Int
        where Records.Element == Record
    {
        let estimate = records.underestimatedCount
        let total = estimate > 0 ? estimate : nil
        // An empty sequence writes nothing and creates nothing: its first record is read before anything is locked.
        var iterator = records.makeIterator()
        guard let first = iterator.next() else { return 0 }
        var pending: Record? = first
        let records = IteratorSequence(AnyIterator<Record> {
            if let record = pending {
                pending = nil
                return record
            }
            return iterator.next()
        })
        let added = try locked(createsDirectory: true) { () throws(StoreError) -> Int in
            var durabilityDoubt: StoreError?
            let handle = try writableHandle(durabilityDoubt: &durabilityDoubt)
            let added: Int
            if let handle {
                added = try importRecords(records, into: handle, skippingExisting: skippingExisting, progress: progress,
                                          total: total, skipped: skipped)
                maintain(handle)
            } else {
                added = try importRecords(records, skippingExisting: skippingExisting, progress: progress, total: total,
                                          skipped: skipped)
            }
            if let durabilityDoubt { throw durabilityDoubt }
            return added
        }
        return added ?? 0
    }

    /// The import into an open store: one commit, written ahead as it grows.
    private func importRecords<Records: Sequence>(_ records: Records, into handle: StoreHandle, skippingExisting: Bool,
                                                  progress: ProgressHandler?, total: Int?,
                                                  skipped: ((Record) -> Void)?) throws(StoreError) -> Int
        where Records.Element == Record
    {
        let (start, chain) = reader.withLock { _ in (handle.state.committed, handle.state.chain) }
        var builder = CommitBuilder(start: start, chain: chain, path: path)
        builder.keepsKeys = reader.withLock { _ in handle.journal != nil }
        // The records this import added so far, to find an id it repeats.
        var added = LiveTable()
        var read = 0
        do throws(StoreError) {
            var batches = archivedBatches(records)
            while let (record, payload) = try batches.next() {
                read += 1
                let key = Self.key(record.id)
                let hash = handle.keyHash(key)
                var taken = try reader.withLock { _ throws(StoreError) in try handle.locate(key, hash: hash) } != nil
                if !taken {
                    taken = try added.firstIndex(hash: hash) { index throws(StoreError) -> Bool in
                        try importedKey(at: added.entries[index], matches: key, builder: builder, handle: handle)
                    } != nil
                }
                if taken {
                    guard skippingExisting else { throw RepositoryFile<Record>.duplicateID(record.id, path: path) }
                    skipped?(record)
                    progress?(read, total)
                    continue
                }
                let offset = builder.size
                try builder.put(key: key, hash: hash, expiryBits: (expiry(record) ?? .nan).bitPattern, payload: payload,
                                replacing: nil, values: indexValues(of: record))
                added.insert(LiveEntry(hash: hash, offset: offset, length: builder.size - offset, expiryBits: 0))
                progress?(read, total)
                if builder.bytes.count >= options.tuning.writeAheadBytes {
                    let at = start + builder.drained
                    if let ahead = builder.drain() { try handle.writeAhead(ahead, at: at) }
                }
            }
            guard added.count > 0 else {
                if builder.drained > 0 { handle.abandonWriteAhead(after: start) }
                return 0
            }
            let commit = builder.finish()
            try handle.appendAndSync(commit)
            reader.withLock { state in
                handle.applyCommitted(commit)
                followTable(&state, handle)
            }
            return added.count
        } catch {
            if builder.drained > 0 { handle.abandonWriteAhead(after: start) }
            throw error
        }
    }

    /// Whether the frame this import built at `entry` (an offset from the commit's start) holds `key`: in the
    /// builder still, or written ahead.
    private func importedKey(at entry: LiveEntry, matches key: [UInt8], builder: CommitBuilder,
                             handle: StoreHandle) throws(StoreError) -> Bool {
        let count = Swift.min(entry.length, FrameHeader.size + key.count)
        let prefix: ArraySlice<UInt8>
        if entry.offset >= builder.drained {
            let at = entry.offset - builder.drained
            prefix = builder.bytes[at..<at + count]
        } else {
            prefix = try handle.fileSystem.read(handle.fd, count: count, at: builder.start + entry.offset, path)[...]
        }
        return FrameHeader.names(key, prefix: prefix)
    }

    /// The import that creates the store: a new log put in place.
    private func importRecords<Records: Sequence>(_ records: Records, skippingExisting: Bool, progress: ProgressHandler?,
                                                  total: Int?, skipped: ((Record) -> Void)?) throws(StoreError) -> Int
        where Records.Element == Record
    {
        var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: Record.archiveFormatVersion)
        var indexValues: [[IndexValue]] = []
        do throws(StoreError) {
            var read = 0
            var batches = archivedBatches(records)
            while let (record, payload) = try batches.next() {
                read += 1
                let key = Self.key(record.id)
                if try builder.holds(key) {
                    guard skippingExisting else { throw RepositoryFile<Record>.duplicateID(record.id, path: path) }
                    skipped?(record)
                    progress?(read, total)
                    continue
                }
                try builder.add(key: key, expiryBits: (expiry(record) ?? .nan).bitPattern, payload: payload)
                if let values = self.indexValues(of: record) { indexValues.append(values) }
                progress?(read, total)
            }
        } catch {
            builder.abandon()
            throw error
        }
        let added = builder.state.liveCount
        guard added > 0 else {
            builder.abandon()
            return 0
        }
        try installBuilt(&builder, replacing: nil)
        rememberIndexes(of: builder, values: indexValues)
        counters.commits.add(1)
        return added
    }

    /// The records of `records` with their archives, read in order a batch at a time and archived across the
    /// cores (``archiveAll(_:)``): a lazy sequence of pairs, one batch in memory at a time.
    private func archivedBatches<Records: Sequence>(_ records: Records) -> ArchivedBatches<Record, Records>
        where Records.Element == Record
    {
        ArchivedBatches(records: records.makeIterator(), repository: self)
    }
}

/// Records and their archives, a batch at a time (see `ArchiveRepository.archivedBatches(_:)`), iterated once
/// with `next()`, which throws the first error of a batch. (It keeps the repository, not a closure: a stored
/// closure whose type has typed throws needs a runtime function Apple's platforms have only from macOS 15 and
/// iOS 18.)
private struct ArchivedBatches<Record: ArchiveRecord, Records: Sequence> where Records.Element == Record {
    var records: Records.Iterator
    let repository: ArchiveRepository<Record>
    private var batch: [Record] = []
    private var archives: [[UInt8]] = []
    private var position = 0

    init(records: Records.Iterator, repository: ArchiveRepository<Record>) {
        self.records = records
        self.repository = repository
    }

    mutating func next() throws(StoreError) -> (Record, [UInt8])? {
        if position == batch.count {
            batch.removeAll(keepingCapacity: true)
            while batch.count < 512, let record = records.next() { batch.append(record) }
            guard !batch.isEmpty else { return nil }
            archives = try repository.archiveAll(batch)
            position = 0
        }
        defer { position += 1 }
        return (batch[position], archives[position])
    }
}
