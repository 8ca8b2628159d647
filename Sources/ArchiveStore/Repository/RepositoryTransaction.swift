/// The changes of one ``ArchiveRepository/write(_:)``: adds, updates, upserts and removes of any records, made
/// all together in one commit when the closure returns, or not at all when it throws. Reads inside see the
/// transaction's own changes; no other writer, in this process or another, commits meanwhile (the writer lock
/// is held), while readers go on seeing the store as it was until the commit.
///
/// ```swift
/// try workouts.write { transaction in
///     guard var plan = try transaction.get("plan") else { return }
///     plan.count += 1
///     try transaction.update(plan)
///     try transaction.remove("draft")
/// }
/// ```
///
/// Valid only inside its closure: a call after it returns throws ``StoreError/Code/invalidArgument``. The
/// closure must not call the repository itself (it holds the writer lock), only the transaction.
///
/// Mirrors GRDB's `Database` inside `DatabaseQueue.write`, Realm's `realm.write { }` and a Core Data context's
/// changes up to `save()`.
public final class RepositoryTransaction<Record: ArchiveRecord> {
    let repository: ArchiveRepository<Record>
    /// The store as it was at the start; `nil` when there is none yet (the commit creates it).
    let handle: StoreHandle?
    private var isOpen = true
    /// The change staged for each key, as a position in `changes`; filled from the second change on (a
    /// transaction of one change, every single-record call, compares its one key instead of hashing it).
    private var positions: [[UInt8]: Int] = [:]
    /// The staged changes in the order of their last staging (``StagedChange/isSuperseded``: staged again
    /// later); not optional, so that a transaction whose changes are all current commits this array itself.
    private var changes: [StagedChange] = []
    /// How many of `changes` are superseded.
    private var supersededCount = 0
    /// The records put, in the order they were staged (``StagedChange/record`` is a position here).
    private var records: [Record] = []
    /// The table index of each key's record in the store, as looked up once (`nil` inside: none), but for the
    /// last key looked up, which is in `lastExisting` only.
    private var existing: [[UInt8]: Int?] = [:]
    /// The last key looked up, and its answer: a one-record change asks three times for one key, and hashes it
    /// into `existing` never (only when another key is looked up after it).
    private var lastExisting: (key: [UInt8], index: Int?)?
    /// Records added less records removed.
    private var countChange = 0

    init(repository: ArchiveRepository<Record>, handle: StoreHandle?) {
        self.repository = repository
        self.handle = handle
    }

    func end() { isOpen = false }

    /// The staged changes, in order.
    var stagedChanges: [StagedChange] {
        supersededCount == 0 ? changes : changes.filter { !$0.isSuperseded }
    }

    /// The record a staged put puts, when it was kept (see ``stagePut(_:payload:requires:keepsRecord:)``).
    func record(of change: StagedChange) -> Record? {
        change.isDelete || change.record < 0 ? nil : records[change.record]
    }

    private func checkOpen() throws(StoreError) {
        guard isOpen else {
            throw StoreError(.invalidArgument, "the transaction is over: use it only inside its write closure", path: repository.path)
        }
    }

    /// The table index of `key`'s record in the store (as it was when the transaction began), looked up once.
    private func existingIndex(_ key: [UInt8]) throws(StoreError) -> Int? {
        if let last = lastExisting {
            if sameBytes(last.key, key) { return last.index }
            existing[last.key] = .some(last.index)
        }
        let index: Int?
        if let known = existing[key] {
            index = known
        } else if let handle {
            index = try repository.reader.withLock { _ throws(StoreError) in try handle.locate(key, hash: handle.keyHash(key)) }
        } else {
            index = nil
        }
        lastExisting = (key, index)
        return index
    }

    /// The position in `changes` of the change staged for `key`, if any (no lookup before the first, one
    /// comparison while there is one).
    private func stagedPosition(_ key: [UInt8]) -> Int? {
        switch changes.count {
        case 0: return nil
        case 1: return sameBytes(changes[0].key, key) ? 0 : nil
        default: return positions[key]
        }
    }

    private func hash(_ key: [UInt8]) -> UInt64 { handle?.keyHash(key) ?? 0 }

    // MARK: Reading

    /// The record with `id` as the transaction leaves it, or `nil`.
    public func get(_ id: Record.ID) throws(StoreError) -> Record? {
        try checkOpen()
        let key = repository.recordKey(id)
        if let position = stagedPosition(key) { return record(of: changes[position]) }
        guard let index = try existingIndex(key), let handle else { return nil }
        let (frame, version) = try repository.reader.withLock { _ throws(StoreError) in
            (try handle.frame(handle.table.entries[index]), handle.state.recordVersion)
        }
        return try repository.decode(frame, version: version)
    }

    /// Whether a record has `id`, as the transaction leaves the store, without decoding it.
    public func contains(_ id: Record.ID) throws(StoreError) -> Bool {
        try checkOpen()
        return try exists(repository.recordKey(id))
    }

    private func exists(_ key: [UInt8]) throws(StoreError) -> Bool {
        if let position = stagedPosition(key) { return !changes[position].isDelete }
        return try existingIndex(key) != nil
    }

    /// The number of records, as the transaction leaves the store.
    public func count() throws(StoreError) -> Int {
        try checkOpen()
        let stored = handle.map { handle in repository.reader.withLock { _ in handle.table.count } } ?? 0
        return stored + countChange
    }

    // MARK: Changing

    /// Adds `record`; throws ``StoreError/Code/duplicateID`` if its id is taken.
    public func add(_ record: Record) throws(StoreError) {
        try checkOpen()
        try stagePut(record, payload: try repository.archived(record), requires: .absent)
    }

    /// Replaces the record with `record`'s id; throws ``StoreError/Code/notFound`` if there is none.
    public func update(_ record: Record) throws(StoreError) {
        try checkOpen()
        try stagePut(record, payload: try repository.archived(record), requires: .present)
    }

    /// Replaces the record with `record`'s id, or adds `record` if there is none.
    public func upsert(_ record: Record) throws(StoreError) {
        try checkOpen()
        try stagePut(record, payload: try repository.archived(record), requires: .either)
    }

    /// Removes and returns the record with `id`, or returns `nil` if there is none.
    @discardableResult
    public func remove(_ id: Record.ID) throws(StoreError) -> Record? {
        try checkOpen()
        guard let record = try get(id) else { return nil }
        try stageRemoval(of: id)
        return record
    }

    /// Stages the removal of the record with `id`, which exists (the caller read it).
    func stageRemoval(of id: Record.ID) throws(StoreError) {
        let key = repository.recordKey(id)
        try stage(StagedChange(key: key, hash: hash(key), isDelete: true, record: -1, payload: [],
                               expiryBits: Double.nan.bitPattern, replacing: nil))
    }

    /// Stages a put of `record`, archived as `payload` (the single-record calls archive before they lock).
    /// `keepsRecord` false keeps only the archive: for a single-record call (whose transaction nobody reads)
    /// on a repository without property indexes, the only reader of the record itself (each append to the
    /// generic array asks the runtime for its type).
    func stagePut(_ record: Record, payload: [UInt8], requires requirement: PutRequirement,
                  keepsRecord: Bool = true) throws(StoreError) {
        let key = repository.recordKey(record.id)
        switch requirement {
        case .absent:
            if try exists(key) { throw RepositoryFile<Record>.duplicateID(record.id, path: repository.path) }
        case .present:
            guard try exists(key) else {
                throw StoreError(.notFound, "no record has this id", path: repository.path, recordID: "\(record.id)")
            }
        case .either:
            break
        }
        let expiryBits = (repository.expiry(record) ?? .nan).bitPattern
        var position = -1
        if keepsRecord {
            records.append(record)
            position = records.count - 1
        }
        try stage(StagedChange(key: key, hash: hash(key), isDelete: false, record: position, payload: payload,
                               expiryBits: expiryBits, replacing: nil))
    }

    /// Stages `change` as the key's last, with what it replaces in the store.
    private func stage(_ change: StagedChange) throws(StoreError) {
        var change = change
        let before = try exists(change.key)
        change.replacing = try existingIndex(change.key)
        if let position = stagedPosition(change.key) {
            changes[position].isSuperseded = true
            supersededCount += 1
        }
        if changes.count == 1, !changes[0].isSuperseded { positions[changes[0].key] = 0 }
        if !changes.isEmpty { positions[change.key] = changes.count }
        changes.append(change)
        countChange += (change.isDelete ? 0 : 1) - (before ? 1 : 0)
    }
}

/// One change a ``RepositoryTransaction`` staged. Not nested in the generic class, so that staging and
/// committing it asks the runtime for no generic metadata (the repository's code runs unspecialized for the
/// caller's record type).
struct StagedChange {
    var key: [UInt8]
    var hash: UInt64
    var isDelete: Bool
    /// The position of the record put among the transaction's records (-1 for a removal, or a put whose record
    /// was not kept).
    var record: Int
    var payload: [UInt8]
    var expiryBits: UInt64
    /// The table index of the record it replaces or removes.
    var replacing: Int?
    /// Whether the key was staged again later in the transaction (this change is then not committed).
    var isSuperseded = false
}

/// What a put requires of the record's id.
enum PutRequirement {
    case absent, present, either
}

extension ArchiveRepository {
    /// Runs `body` with a transaction and commits its changes together, in one commit with one sync, when it
    /// returns; nothing is written when it throws (its error is rethrown as it is) or changes nothing. The
    /// store file is created only by a transaction that adds a record; its directory and lock file are made
    /// before `body` runs, as `body` runs holding the lock.
    ///
    /// ```swift
    /// try repository.write { transaction in
    ///     try transaction.add(Workout(id: "w3", count: 5))
    ///     try transaction.remove("w1")
    /// }
    /// ```
    ///
    /// The writer lock is held while `body` runs: keep it short, and never `await` inside (an app suspended while
    /// it holds a file lock in a shared container is ended by the system).
    ///
    /// Mirrors GRDB's `DatabaseQueue.write(_:)` and Realm's `write(_:)`.
    @discardableResult
    public func write<Result>(_ body: (RepositoryTransaction<Record>) throws -> Result) throws -> Result {
        var thrown: (any Error)?
        let result: Result?
        do {
            result = try withTransaction(createsStore: true) { transaction throws(StoreError) -> Result in
                do {
                    return try body(transaction)
                } catch let error as StoreError {
                    throw error
                } catch {
                    thrown = error
                    throw StoreError(.invalidArgument, "the transaction's closure threw", path: path)
                }
            }
        } catch {
            if let thrown { throw thrown }
            throw error
        }
        guard let result else { throw StoreError(.io, "the store's directory could not be created", path: path) }
        return result
    }
}
