import ArchivePlatform
import Dispatch
import KeyedArchive

/// The writer: the locks, the handle readied for a commit, the commit itself, whole rewrites (creation,
/// migration, compaction) and the index kept up.
extension ArchiveRepository {
    /// Runs `body` holding the in-process mutex and the store's lock file (waiting at most
    /// ``RepositoryOptions/lockTimeout``). Returns `nil` without running it when the store's directory does not
    /// exist and `createsDirectory` is false. The first time, the store's files get the options' attributes
    /// again where they differ and temporary files of writers that died are removed.
    func locked<Result>(createsDirectory: Bool, _ body: () throws(StoreError) -> Result) throws(StoreError) -> Result? {
        var result: Result?
        guard try lockedRun(createsDirectory: createsDirectory, { () throws(StoreError) in result = try body() }) else { return nil }
        return result
    }

    /// ``locked(createsDirectory:_:)`` for a body that returns nothing: `false` when it did not run. Not generic
    /// over a result, so that a single-record change asks the runtime for no `Optional` metadata (the
    /// repository's code runs unspecialized for the caller's record type).
    func lockedRun(createsDirectory: Bool, _ body: () throws(StoreError) -> Void) throws(StoreError) -> Bool {
        try writers.withLock { (state: inout WriterState) throws(StoreError) -> Bool in
            for attempt in 0..<2 {
                if state.lock == nil {
                    if try fileSystem.linkStatus(PathName.directory(of: path)) == nil {
                        guard createsDirectory else { return false }
                        try fileSystem.makeDirectories(PathName.directory(of: path))
                    }
                    state.lock = try WriterLock(path: lockPath, fileSystem: fileSystem)
                }
                guard let lock = state.lock else { continue }
                do throws(StoreError) {
                    _ = try lock.acquire(exclusive: true, waiting: .atMost(seconds: options.lockTimeout))
                } catch where error.errno == Errno.noSuchFile.rawValue && attempt == 0 {
                    state.lock = nil   // the directory went away: made again (or not) above
                    continue
                }
                defer { lock.release() }
                if !state.firstWriteDone {
                    AtomicReplace.sweepStaleTemporaries(of: [path, indexPath], fileSystem: fileSystem)
                    try restoreAttributes()
                    state.firstWriteDone = true
                }
                try body()
                return true
            }
            return false
        }
    }

    /// The first change of this object: the store's files that exist get the options' protection class and
    /// backup exclusion again where they differ (a store made before the options were set, or copied in).
    func restoreAttributes() throws(StoreError) {
        let wanted = fileSystem.newItems
        guard (fileSystem.attributes.protects && wanted.protection != nil)
            || (fileSystem.attributes.excludesFromBackup && wanted.excludedFromBackup) else { return }
        for file in [path, indexPath, lockPath] where try fileSystem.linkStatus(file)?.isRegularFile == true {
            try fileSystem.restoreAttributes(file, protection: wanted.protection, excludedFromBackup: wanted.excludedFromBackup)
        }
    }

    // MARK: The handle, ready for a commit

    /// The store as a current log, open read-write and brought up to date under the writer lock (the caller
    /// holds it); `nil` when there is no store. A store of one archive, a log of an older format or at an older
    /// record version is rewritten first; a rewrite whose directory sync failed is reported in `durabilityDoubt`.
    func writableHandle(durabilityDoubt: inout StoreError?) throws(StoreError) -> StoreHandle? {
        for _ in 0..<4 {
            let current = try reader.withLock { (state: inout ReaderState) throws(StoreError) -> CurrentStore in
                if let handle = state.handle {
                    if try handle.prepareForWriting() == .current {
                        followTable(&state, handle)
                        return .log(handle)
                    }
                    state.handle = nil
                }
                switch try StoreHandle.open(path, fileSystem: fileSystem, counters: counters, unpublished: .held) {
                case .absent: return .absent
                case .singleArchive(let bytes): return .singleArchive(bytes)
                case .log(let handle):
                    if handle.isChained, handle.writable {
                        guard try handle.prepareForWriting() == .current else { return .absent }
                        state.handle = handle
                        followTable(&state, handle)
                    }
                    return .log(handle)
                }
            }
            do throws(StoreError) {
                switch current {
                case .absent:
                    if try fileSystem.linkStatus(path) != nil { continue }   // replaced while opened: again
                    return nil
                case .singleArchive(let bytes):
                    try migrate(singleArchive: bytes)
                case .log(let handle):
                    try checkVersion(handle.state.recordVersion)
                    if handle.isChained && handle.state.recordVersion == Record.archiveFormatVersion {
                        guard handle.writable else {
                            throw StoreError(.io, "the store file cannot be opened for writing", path: path,
                                             errno: Errno.permissionDenied.rawValue)
                        }
                        return handle
                    }
                    try rewrite(handle, reencoding: handle.state.recordVersion != Record.archiveFormatVersion)
                }
            } catch where error.code == .durabilityUnknown {
                durabilityDoubt = error
            }
        }
        throw StoreError(.io, "the store changed while it was being rewritten", path: path)
    }

    /// A store of one archive (from before the record log) rewritten as a log. When it holds some id twice
    /// (a log holds one record an id; `get` returned the first) the file is first kept beside it as
    /// `<path>.before-migration`, so that no record it held is lost.
    func migrate(singleArchive bytes: [UInt8]) throws(StoreError) {
        let records = try RepositoryFile<Record>.decode(bytes, path: path).records
        if Set(records.map { Self.key($0.id) }).count != records.count {
            try AtomicReplace.replace(path + ".before-migration", with: bytes, fileSystem: fileSystem)
        }
        try install(records, replacing: nil)
    }

    /// A new log holding `records` (at the current version), renamed over the store after `old` is marked
    /// retired. Duplicate ids keep the first record.
    func install(_ records: [Record], replacing old: StoreHandle?) throws(StoreError) {
        var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: Record.archiveFormatVersion)
        do throws(StoreError) {
            var seen: Set<[UInt8]> = []
            for record in records {
                let key = Self.key(record.id)
                guard seen.insert(key).inserted else { continue }
                try builder.add(key: key, expiryBits: (expiry(record) ?? .nan).bitPattern, payload: try archived(record))
            }
        } catch {
            builder.abandon()
            throw error
        }
        try installBuilt(&builder, replacing: old)
    }

    /// Rewrites the log of `handle` with only its live records (compaction; also how a log of format 2
    /// becomes format 3): frames copied byte for byte in log order, or with `reencoding` decoded through the
    /// record's migration and archived again at the current version.
    func rewrite(_ handle: StoreHandle, reencoding: Bool) throws(StoreError) {
        let (entries, version) = reader.withLock { _ in (handle.table.liveEntries, handle.state.recordVersion) }
        var builder = try LogBuilder(path: path, fileSystem: fileSystem,
                                     recordVersion: reencoding ? Record.archiveFormatVersion : version)
        do throws(StoreError) {
            try handle.forEachRawFrame(entries) { entry, bytes, start, header throws(StoreError) -> Bool in
                if reencoding {
                    let frame = try StoreHandle.frame(in: bytes, at: start, of: entry, isChained: handle.isChained, path: path)
                    let record = try decode(frame, version: version)
                    try builder.add(key: frame.key, expiryBits: (expiry(record) ?? .nan).bitPattern,
                                    payload: try archived(record))
                } else {
                    try builder.add(frameIn: bytes, at: start, header: header)
                }
                return true
            }
        } catch {
            builder.abandon()
            throw error
        }
        // Where each frame goes, for the property indexes to move with them (frames are copied in log order).
        var moved: [Int: (offset: Int, length: Int)] = [:]
        let follows = hasIndexes && !reencoding
            && reader.withLock { state in state.indexes?.handle === handle && state.indexes?.committed == handle.state.committed }
        if follows {
            moved.reserveCapacity(entries.count)
            for (old, new) in zip(entries, builder.table.liveEntries) { moved[old.offset] = (new.offset, new.length) }
        }
        let (fromGeneration, fromCommitted) = (handle.generation, handle.state.committed)
        do throws(StoreError) {
            try installBuilt(&builder, replacing: handle)
        } catch {
            if follows, error.code == .durabilityUnknown { rememberRemap(moved, from: (fromGeneration, fromCommitted), to: builder.state) }
            throw error
        }
        if follows { rememberRemap(moved, from: (fromGeneration, fromCommitted), to: builder.state) }
    }

    private func rememberRemap(_ moved: [Int: (offset: Int, length: Int)], from: (generation: UInt64, committed: Int), to state: LogState) {
        reader.withLock { reader in
            reader.remap = PendingRemap(fromGeneration: from.generation, fromCommitted: from.committed, generation: state.generation,
                                        committed: state.committed, frames: state.frameCount, chain: state.chain, moved: moved)
        }
    }

    /// Puts a built log in place of the store (with an index when it is large enough to need one) and lets
    /// the open handle go.
    func installBuilt(_ builder: inout LogBuilder, replacing old: StoreHandle?) throws(StoreError) {
        let writesIndex = builder.state.frameCount >= options.tuning.mergeFrames
        defer { reader.withLock { $0.handle = nil } }
        // The old file is marked retired just before the rename, once the new one is complete and synced: a
        // rewrite that fails before then leaves no mark in it.
        do throws(StoreError) {
            try builder.install(retiring: { if let old { reader.withLock { _ in old.retire() } } }, writesIndex: writesIndex)
        } catch where error.code == .durabilityUnknown {
            directoryUnsynced.withLock { $0 = true }
            throw error
        }
    }

    // MARK: Committing

    /// Runs `body` with a transaction on the store under the writer lock, then commits what it staged, in one
    /// commit, and keeps the index and log in shape. Returns `nil`, having written nothing, when there is no
    /// store and `createsStore` is false. Whatever `body` throws leaves the store as it was.
    func withTransaction<Result>(createsStore: Bool,
                                 _ body: (RepositoryTransaction<Record>) throws(StoreError) -> Result) throws(StoreError) -> Result? {
        var result: Result?
        guard try transact(createsStore: createsStore, { transaction throws(StoreError) in result = try body(transaction) }) else {
            return nil
        }
        return result
    }

    /// ``withTransaction(createsStore:_:)`` for a body that returns nothing: `false` when it did not run (no
    /// store, and `createsStore` false). Not generic over a result: the single-record changes call it.
    func transact(createsStore: Bool, _ body: (RepositoryTransaction<Record>) throws(StoreError) -> Void) throws(StoreError) -> Bool {
        var ran = false
        let locked = try lockedRun(createsDirectory: createsStore) { () throws(StoreError) in
            var durabilityDoubt: StoreError?
            let handle = try writableHandle(durabilityDoubt: &durabilityDoubt)
            if handle == nil && !createsStore {
                if let durabilityDoubt { throw durabilityDoubt }
                return
            }
            let transaction = RepositoryTransaction(repository: self, handle: handle)
            defer { transaction.end() }
            try body(transaction)
            ran = true
            transaction.end()
            try commit(transaction, handle: handle)
            if let handle { maintain(handle) }
            if let durabilityDoubt { throw durabilityDoubt }
        }
        return locked && ran
    }

    /// Commits what `transaction` staged: appended to the log as one commit, or, when there is no store yet, as
    /// the first commit of a new log put in place.
    func commit(_ transaction: RepositoryTransaction<Record>, handle: StoreHandle?) throws(StoreError) {
        let changes = transaction.stagedChanges
        guard !changes.isEmpty else { return }
        try syncDirectoryLeftUnsynced()
        guard let handle else {
            // No store yet: only the records put make one (a record added and removed again makes none).
            guard changes.contains(where: { !$0.isDelete }) else { return }
            var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: Record.archiveFormatVersion)
            var indexValues: [[IndexValue]] = []
            do throws(StoreError) {
                for change in changes where !change.isDelete {
                    try builder.add(key: change.key, expiryBits: change.expiryBits, payload: change.payload)
                    if let record = transaction.record(of: change), let values = self.indexValues(of: record) {
                        indexValues.append(values)
                    }
                }
            } catch {
                builder.abandon()
                throw error
            }
            try installBuilt(&builder, replacing: nil)
            rememberIndexes(of: builder, values: indexValues)
            counters.commits.add(1)
            return
        }
        let (start, chain) = reader.withLock { _ in (handle.state.committed, handle.state.chain) }
        var builder = CommitBuilder(start: start, chain: chain, path: path)
        builder.keepsKeys = reader.withLock { _ in handle.journal != nil }
        for change in changes {
            if change.isDelete {
                guard let replacing = change.replacing else { continue }
                builder.delete(key: change.key, hash: change.hash, replacing: replacing)
            } else {
                try builder.put(key: change.key, hash: change.hash, expiryBits: change.expiryBits, payload: change.payload,
                                replacing: change.replacing,
                                values: hasIndexes ? transaction.record(of: change).flatMap(indexValues(of:)) : nil)
            }
        }
        let commit = builder.finish()
        try handle.appendAndSync(commit)
        reader.withLock { state in
            handle.applyCommitted(commit)
            followTable(&state, handle)
        }
    }

    /// Syncs the store's directory when a rewrite's sync of it failed (the rewrite may have been a compaction
    /// whose failure no caller saw): a commit into the new file is acknowledged only once its name is durable.
    /// - Throws: ``StoreError/Code/io`` when the sync fails again; nothing is committed.
    func syncDirectoryLeftUnsynced() throws(StoreError) {
        guard directoryUnsynced.withLock({ $0 }) else { return }
        do throws(StoreError) {
            try fileSystem.syncDirectory(PathName.directory(of: path))
        } catch {
            throw StoreError(.io, "the store's directory could not be synced since its file was replaced, so no change is made until it can be: \(error.reason)",
                             path: path, errno: error.errno)
        }
        directoryUnsynced.withLock { $0 = false }
    }

    // MARK: Keeping the index and the log in shape

    /// After a commit (under the writer lock): compacts the log when its dead frames outweigh the live ones,
    /// else writes the index again when enough frames were committed past it: on a background queue, or here
    /// when that falls four times behind (or is turned off). Failures are left for the next writer: the commit
    /// is made.
    func maintain(_ handle: StoreHandle) {
        let tuning = options.tuning
        let (state, indexed, damaged) = reader.withLock { _ in (handle.state, handle.indexedFrames, handle.indexDamaged) }
        if state.deadBytes > Swift.max(state.liveBytes, tuning.compactionFloor) {
            do {
                try rewrite(handle, reencoding: false)
            } catch {
                return
            }
            return
        }
        let background = maintenance.withLock { $0.indexed(generation: state.generation) }
        let tail = state.frameCount - (damaged ? 0 : Swift.max(indexed, background))
        let interval = tuning.indexInterval(live: state.liveCount)
        guard tail >= interval else {
            // A store too small to need an index: a damaged one is removed rather than checked at every open.
            if damaged, (try? IndexFile.mayReplace(indexPath, fileSystem: fileSystem)) == true, (try? fileSystem.unlink(indexPath)) != nil {
                reader.withLock { _ in handle.indexDamaged = false }
            }
            return
        }
        if tuning.maintainsInBackground && tail < 4 * interval {
            // The index written from here on covers the damage (a failed write leaves `tail` growing from the
            // last index written, so it is tried again).
            if damaged { reader.withLock { _ in handle.indexDamaged = false } }
            startIndexInBackground()
            return
        }
        // Inline: a copy of the table (shared with the handle until its next change) written outside its lock.
        let (table, current) = reader.withLock { _ in (handle.table, handle.state) }
        guard (try? IndexFile.write(table, of: current, to: indexPath, fileSystem: fileSystem)) != nil else { return }
        reader.withLock { _ in
            handle.indexedFrames = current.frameCount
            handle.indexDamaged = false
        }
    }

    /// Writes the index from a private view of the store (its own open of the index and the frames after it),
    /// on a utility queue; at most one at a time per repository object.
    func startIndexInBackground() {
        let started = maintenance.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            state.group.enter()
            return true
        }
        guard started else { return }
        let path = path
        let indexPath = indexPath
        let fileSystem = fileSystem
        let maintenance = maintenance
        DispatchQueue.global(qos: .utility).async {
            var indexed: (UInt64, Int)?
            if case .log(let handle)? = try? StoreHandle.open(path, fileSystem: fileSystem, counters: StoreCounters(),
                                                              unpublished: .never),
               handle.isChained, (try? fileSystem.status(path))??.inode == handle.inode,
               (try? IndexFile.write(handle.table, of: handle.state, to: indexPath, fileSystem: fileSystem)) != nil {
                indexed = (handle.generation, handle.state.frameCount)
            }
            maintenance.withLock { state in
                if let indexed { state.lastIndexed = indexed }
                state.running = false
                state.group.leave()
            }
        }
    }

    /// Waits until index work started in the background by this object is done.
    func waitForMaintenance() {
        let group = maintenance.withLock { $0.group }
        group.wait()
    }
}

/// Index work in the background (see ``ArchiveRepository/startIndexInBackground()``).
struct MaintenanceState {
    var running = false
    /// The generation and frame count of the last index written in the background.
    var lastIndexed: (generation: UInt64, frames: Int)?
    let group = DispatchGroup()

    /// The frames the last background index of the log of `generation` covered (0 for another log).
    func indexed(generation: UInt64) -> Int {
        guard let lastIndexed, lastIndexed.generation == generation else { return 0 }
        return lastIndexed.frames
    }
}

