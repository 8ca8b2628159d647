import Dispatch

/// Keeping the property indexes (``ArchiveRecord/indexes``) with the open store: built on first use, then
/// brought along by every commit the handle applies, and written beside the store from time to time.
extension ArchiveRepository {
    /// The record type's index definitions.
    static var indexDefinitions: [PropertyIndexes.Definition] {
        Record.indexes.map { PropertyIndexes.Definition(name: $0.name, valueType: $0.valueType) }
    }

    /// The record's values for each declared index; `nil` when none is declared.
    func indexValues(of record: Record) -> [IndexValue]? {
        guard hasIndexes else { return nil }
        return Record.indexes.map { $0.value(record) }
    }

    /// The file of the index named `name` (`<path>.index-<name>`).
    package func propertyIndexPath(_ name: String) -> String { PropertyIndexFile.path(of: path, index: name) }

    /// What is wrong with the record type's index declarations (a name that cannot name a file, or named
    /// twice); `nil` when nothing is. Checked once, when the repository is made.
    static func indexDeclarationProblem(path: String) -> StoreError? {
        var seen: Set<String> = []
        for index in Record.indexes {
            guard RecordIndex<Record>.isValidName(index.name) else {
                return StoreError(.invalidArgument, "the index name \"\(index.name)\" must be 1 to 64 letters, digits, '-' or '_'", path: path)
            }
            guard seen.insert(index.name).inserted else {
                return StoreError(.invalidArgument, "two indexes are named \"\(index.name)\"", path: path)
            }
        }
        return nil
    }

    /// Refuses index declarations that cannot name files, or name one twice.
    func checkIndexDeclarations() throws(StoreError) {
        if let indexDeclarationProblem { throw indexDeclarationProblem }
    }

    // MARK: Following commits

    /// After the handle is brought up to date or commits (the caller holds the reader lock): what its commits
    /// changed reaches the property indexes that follow it and the observers of ``changes()``.
    func followTable(_ state: inout ReaderState, _ handle: StoreHandle) {
        let observing = changeObservers.withLock { !$0.isEmpty }
        guard hasIndexes || observing else {
            // Nobody follows the table any more (the last observer left): the journal stops growing.
            handle.stopJournal()
            return
        }
        var event: RepositoryChange?
        if handle.journal == nil {
            // A handle opened since (the store opened again, or rewritten): what changed is not known.
            if state.followedOnce { event = .reload }
            state.followedOnce = true
            handle.startJournal()
            // Indexes that describe this log exactly where the handle stands describe its table: they follow it.
            if var indexes = state.indexes, indexes.handle == nil || indexes.handle !== handle, indexes.generation == handle.generation,
               indexes.committed == handle.state.committed, indexes.frameCount == handle.state.frameCount,
               indexes.chain == handle.state.chain, indexes.count == handle.table.count {
                indexes.handle = handle
                indexes.isPersistable = handle.isChained
                state.indexes = indexes
            }
        } else {
            let changes = handle.takeJournal()
            if !changes.isEmpty {
                event = RepositoryChange(changes)
                if var indexes = state.indexes, indexes.handle === handle {
                    state.indexes = nil
                    if apply(changes, to: &indexes, handle) {
                        state.indexes = indexes
                        persistIfBehind(&state)
                    }
                }
            }
        }
        if let event { deliver(event) }
    }

    /// Applies a journal to indexes that followed `handle` up to it; `false` (the indexes to be built again)
    /// when a frame cannot be read.
    private func apply(_ changes: [TableChange], to indexes: inout PropertyIndexes, _ handle: StoreHandle) -> Bool {
        for change in changes {
            if let removed = change.removed { indexes.remove(offset: removed) }
            guard let added = change.added else { continue }
            var values = change.values
            if values == nil {
                guard let frame = try? handle.frame(added), let record = try? decode(frame, version: handle.state.recordVersion)
                else { return false }
                values = indexValues(of: record)
            }
            indexes.insert(offset: added.offset, length: added.length, values: values ?? [])
        }
        indexes.committed = handle.state.committed
        indexes.frameCount = handle.state.frameCount
        indexes.chain = handle.state.chain
        return true
    }

    // MARK: Building

    /// Makes the property indexes describe `handle`'s table (the caller holds the reader lock, the handle just
    /// brought up to date): kept as they are when they follow it; else moved to a rewritten log, or read from
    /// their files, and brought to the table; else built by decoding every record (`progress` counts them).
    func currentIndexes(_ state: inout ReaderState, _ handle: StoreHandle, progress: ProgressHandler?) throws(StoreError) -> PropertyIndexes {
        try checkIndexDeclarations()
        if let indexes = state.indexes, indexes.handle === handle, indexes.committed == handle.state.committed { return indexes }
        let version = handle.state.recordVersion
        var candidate = state.indexes
        if let remap = state.remap, remap.generation == handle.generation, let old = candidate, old.generation == remap.fromGeneration,
           old.committed == remap.fromCommitted {
            candidate = old.remapped(remap.moved, generation: remap.generation, committed: remap.committed, frameCount: remap.frames,
                                     chain: remap.chain)
        }
        state.remap = nil
        state.indexes = nil
        if candidate?.generation != handle.generation {
            candidate = loadIndexFiles(handle)
        } else if let old = candidate, old.handle !== handle,
                  !describesPrefix(covered: old.committed, frames: old.frameCount, chain: old.chain, of: handle) {
            // Indexes of another handle on this log that this one does not continue (the log found damaged or
            // rewound since, other frames written where theirs were): their rows may name other records.
            candidate = nil
        }
        if !state.undeclaredRemoved {
            state.undeclaredRemoved = true
            removeUndeclaredIndexFiles()
        }
        if var indexes = candidate, indexes.committed <= handle.state.committed, indexes.frameCount <= handle.state.frameCount,
           let added = indexes.reconcile(with: handle.table) {
            var i = 0
            try forEachRecord(of: handle, added, version: version) { record throws(StoreError) -> Bool in
                indexes.insert(offset: added[i].offset, length: added[i].length, values: indexValues(of: record) ?? [])
                i += 1
                return true
            }
            indexes.committed = handle.state.committed
            indexes.frameCount = handle.state.frameCount
            indexes.chain = handle.state.chain
            indexes.handle = handle
            indexes.isPersistable = handle.isChained
            handle.startJournal()
            _ = handle.takeJournal()
            state.indexes = indexes
            persistIfBehind(&state)
            return indexes
        }
        // Built from the records.
        let entries = handle.table.liveEntries
        let definitions = Self.indexDefinitions
        var rows: [[IndexRow]] = definitions.map { _ in [] }
        for i in rows.indices { rows[i].reserveCapacity(entries.count) }
        var i = 0
        try forEachRecord(of: handle, entries, version: version) { record throws(StoreError) -> Bool in
            for (n, index) in Record.indexes.enumerated() {
                rows[n].append(IndexRow(value: index.value(record), offset: entries[i].offset, length: entries[i].length))
            }
            i += 1
            progress?(i, entries.count)
            return true
        }
        var built = PropertyIndexes(definitions: definitions, rows: rows.map { SortedRows(sorted: $0.sorted()) },
                                    generation: handle.generation, committed: handle.state.committed,
                                    frameCount: handle.state.frameCount, chain: handle.state.chain)
        built.handle = handle
        built.isPersistable = handle.isChained
        handle.startJournal()
        _ = handle.takeJournal()
        state.indexes = built
        counters.indexBuilds.add(1)
        persistIfBehind(&state, force: true)
        return built
    }

    /// The indexes of a log this object just built (the store's first commit, or an import into no store), from
    /// the values of its records in the order they were added: the first query then reads no record.
    func rememberIndexes(of builder: LogBuilder, values: [[IndexValue]]) {
        let entries = builder.table.liveEntries
        guard !Record.indexes.isEmpty, indexDeclarationProblem == nil, entries.count == values.count else { return }
        let definitions = Self.indexDefinitions
        var rows: [[IndexRow]] = definitions.map { _ in [] }
        for (entry, recordValues) in zip(entries, values) where recordValues.count == rows.count {
            for i in rows.indices { rows[i].append(IndexRow(value: recordValues[i], offset: entry.offset, length: entry.length)) }
        }
        let built = PropertyIndexes(definitions: definitions, rows: rows.map { SortedRows(sorted: $0.sorted()) },
                                    generation: builder.state.generation, committed: builder.state.committed,
                                    frameCount: builder.state.frameCount, chain: builder.state.chain)
        reader.withLock { state in
            state.indexes = built
            state.remap = nil
        }
    }

    /// The indexes as their files describe them, when every declared index has a file of `handle`'s log that
    /// covers a commit of it (the frame after it links to it).
    private func loadIndexFiles(_ handle: StoreHandle) -> PropertyIndexes? {
        let definitions = Self.indexDefinitions
        var rows: [SortedRows] = []
        var point: (covered: Int, frames: Int, chain: UInt32)?
        for definition in definitions {
            guard let contents = PropertyIndexFile.load(propertyIndexPath(definition.name), definition: definition, fileSystem: fileSystem),
                  contents.generation == handle.generation
            else { return nil }
            if let point, point != (contents.covered, contents.frames, contents.chain) { return nil }
            point = (contents.covered, contents.frames, contents.chain)
            rows.append(contents.rows)
        }
        guard let point, describesPrefix(covered: point.covered, frames: point.frames, chain: point.chain, of: handle)
        else { return nil }
        var indexes = PropertyIndexes(definitions: definitions, rows: rows, generation: handle.generation, committed: point.covered,
                                      frameCount: point.frames, chain: point.chain)
        indexes.persistedFrames = point.frames
        return indexes
    }

    /// Whether indexes that cover the log up to `covered` (`frames` frames, the chain `chain` there) describe
    /// a commit of `handle`'s log: the handle's own commit, or one the frame after it links to.
    private func describesPrefix(covered: Int, frames: Int, chain: UInt32, of handle: StoreHandle) -> Bool {
        guard covered >= RecordLog.firstFrame, covered <= handle.state.committed, frames <= handle.state.frameCount
        else { return false }
        if covered == handle.state.committed { return chain == handle.state.chain && frames == handle.state.frameCount }
        guard let prefix = try? fileSystem.read(handle.fd, count: FrameHeader.size, at: covered, path),
              let header = try? FrameHeader(prefix, at: 0, available: handle.state.committed - covered, fileOffset: covered,
                                            path: path, chained: true)
        else { return false }
        return header.link == chain
    }

    /// Writes the index files in the background when they cover a number of frames behind the indexes (or
    /// always, with `force`). Failures are left: the files are derived data.
    func persistIfBehind(_ state: inout ReaderState, force: Bool = false) {
        guard var indexes = state.indexes, indexes.isPersistable, indexDeclarationProblem == nil else { return }
        let behind = indexes.frameCount - indexes.persistedFrames
        guard force || indexes.persistedFrames < 0 || behind >= options.tuning.indexInterval(live: indexes.count) else { return }
        indexes.persistedFrames = indexes.frameCount
        state.indexes = indexes
        let rows = indexes.rows
        let definitions = indexes.definitions
        let (generation, covered, frames, chain) = (indexes.generation, indexes.committed, indexes.frameCount, indexes.chain)
        let paths = definitions.map { propertyIndexPath($0.name) }
        let fileSystem = fileSystem
        let group = maintenance.withLock { state -> DispatchGroup in
            state.group.enter()
            return state.group
        }
        let work: @Sendable () -> Void = {
            for (i, definition) in definitions.enumerated() {
                _ = try? PropertyIndexFile.write(rows[i], definition: definition, generation: generation, covered: covered,
                                                 frames: frames, chain: chain, to: paths[i], fileSystem: fileSystem)
            }
            group.leave()
        }
        if options.tuning.maintainsInBackground {
            DispatchQueue.global(qos: .utility).async(execute: work)
        } else {
            work()
        }
    }

    /// Removes the files of indexes the record type no longer declares (`<path>.index-<name>`).
    func removeUndeclaredIndexFiles() {
        let directory = PathName.directory(of: path)
        let prefix = PathName.lastComponent(of: path) + ".index-"
        let declared = Set(Record.indexes.map(\.name))
        guard let names = try? fileSystem.list(directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let index = String(name.dropFirst(prefix.count))
            guard RecordIndex<Record>.isValidName(index), !declared.contains(index) else { continue }
            _ = try? fileSystem.unlink(directory + "/" + name)
        }
    }

    /// Builds the property indexes now if they are not built (they are otherwise built by the first query that
    /// uses them), calling `progress` with the records read. A store written without them (or before they
    /// were declared) is read once; afterwards every commit keeps them, and their files, written by the time
    /// this returns, let the next process start from them.
    ///
    /// Mirrors Core Data's lightweight migration adding an index, and Realm's migration block.
    public func prepareIndexes(progress: ProgressHandler? = nil) throws(StoreError) {
        guard !Record.indexes.isEmpty else { return }
        try withStoreState { state, store throws(StoreError) in
            if case .log(let handle) = store {
                try checkVersion(handle.state.recordVersion)
                _ = try currentIndexes(&state, handle, progress: progress)
            }
        }
        // Their files written when this returns (the next process starts from them).
        waitForMaintenance()
    }
}

/// A rewrite of the log (compaction) made by this object: where each live frame went, so that the property
/// indexes move with it rather than being built again.
struct PendingRemap {
    var fromGeneration: UInt64
    var fromCommitted: Int
    var generation: UInt64
    var committed: Int
    var frames: Int
    var chain: UInt32
    var moved: [Int: (offset: Int, length: Int)]
}
