import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// A collection of records kept in one keyed-archive file, safe to use from many threads and many processes.
///
/// Any ``ArchiveRecord`` (a `KeyedArchivable` type with an `id`) gets the whole API; operations that only make
/// sense for one record type are extensions constrained to it, with no new repository code:
///
/// ```swift
/// let repository = ArchiveRepository<Workout>(path: directory + "/Workouts.archive")
/// try repository.add(Workout(id: "w1", count: 12))
/// try repository.write { transaction in
///     try transaction.update(Workout(id: "w1", count: 13))
///     try transaction.add(Workout(id: "w2", count: 8))
/// }
/// ```
///
/// **The store** is a record log (`RecordLog` in the sources): each record is framed as its own keyed archive
/// and appended, with a checksum, after the others; a removal appends a small delete frame. A commit is its
/// frames, the last one flagged, synced once: every frame carries the chain of the checksums before it, so
/// that after a crash the last whole commit is found by following the chain, and a slot at the start of the
/// file (written after the sync, without one of its own) tells readers in other processes that the store
/// changed. An id index beside the log (`<path>.index`) lets a new repository object open the store without
/// reading the whole log; it is written again from time to time, away from the callers' path, and the log is
/// rewritten without its dead frames when they outweigh the live ones.
///
/// **An open handle.** The object keeps the store open and its live records' locations in memory. Before each
/// call it reads the commit slots once and applies what other processes committed since; `get` then reads one
/// frame. ``close()`` lets the file go; the next call opens it again. Every record stays an ordinary keyed
/// archive: ``exportArchive(to:progress:)`` writes them as one archive that Apple's `NSKeyedUnarchiver` reads.
///
/// **Writers** take an in-process mutex and an exclusive `flock` on `<path>.lock` for one commit (a single
/// change, a ``write(_:)`` transaction, an import) and release both before returning. Readers take no lock and
/// see whole commits. A file that cannot be read (a damaged frame, header or archive) is reported as
/// ``StoreError/Code/corrupt`` and never overwritten; ``moveAside(suffix:)`` renames it out of the way on
/// request.
///
/// A store file written before the record log (one keyed archive holding every record), or a log of an older
/// format, is read as it is and rewritten as a current log on the first change.
///
/// Plays the part of a Core Data persistent store (or a Realm) or an `NSKeyedArchiver.archiveRootObject(_:toFile:)`
/// cache.
public final class ArchiveRepository<Record: ArchiveRecord>: Sendable {
    /// The store file.
    public let path: String
    /// The options the repository was created with.
    public let options: RepositoryOptions
    /// The options' file system, giving what it creates the options' protection class and backup exclusion.
    let fileSystem: FileSystem
    /// The writers of this object, one at a time, and their lock file.
    let writers = Locked(WriterState())
    /// The open store, brought up to date by each call.
    let reader = Locked(ReaderState())
    /// Index writing that runs away from the callers (see ``StoreTuning/maintainsInBackground``).
    let maintenance = Locked(MaintenanceState())
    /// Set when a rewrite put a new store file at the path but the sync of the directory after its rename
    /// failed: the name may not survive a power cut, so no commit is acknowledged until a sync succeeds.
    let directoryUnsynced = Locked(false)
    let counters = StoreCounters()
    /// The classes a record decodes with (built once: a registry is a dictionary of names).
    let registry: ClassRegistry
    /// Whether the record type declares property indexes (`Record.indexes` is not empty), read once: the
    /// declarations are made again, with the runtime's generic metadata, at each read of `Record.indexes`.
    let hasIndexes: Bool
    /// Whether records may be ``ExpiringRecord``s, decided once for a value type (asking each record costs a
    /// conformance lookup in the runtime); always for a class, whose subclasses may conform.
    let expires: Bool
    /// The same, for records archived at an older version, read through the record's migration.
    let migrationRegistry: ClassRegistry
    /// Decoding state kept between records (see `KeyedUnarchiver.Scratch`), one per decode at a time.
    let scratches = Locked<[KeyedUnarchiver.Scratch]>([])
    /// Archivers kept between records (`KeyedArchiver.reusable()`), one per archive at a time.
    let archivers = Locked<[KeyedArchiver]>([])
    /// What is wrong with the record type's index declarations, if anything (queries then throw it).
    let indexDeclarationProblem: StoreError?
    /// Records decoded lately, by frame offset (see ``DecodedRecords``).
    let decodedRecords: Locked<DecodedRecords<Record>>
    /// Whether ``decodedRecords`` keeps any record (a capacity above 0, a value type).
    let keepsDecodedRecords: Bool
    /// The observers of ``changes()``.
    let changeObservers = Locked<[UInt64: ChangeObserver]>([:])
    /// The thread that waits for other processes' commits while there are observers.
    let watcher = Locked(ChangeWatcher())

    /// What the writers of this object keep between commits.
    struct WriterState {
        /// The lock file, open; `nil` until the first change.
        var lock: WriterLock?
        /// Whether the store's file attributes were checked and dead writers' temporary files swept.
        var firstWriteDone = false
    }

    /// The handle readers and writers share.
    struct ReaderState {
        var handle: StoreHandle?
        /// When a reader last checked that the file at the path is the handle's (monotonic nanoseconds).
        var identityChecked: UInt64 = 0
        /// The property indexes, once a query built them (see ``currentIndexes(_:_:progress:)``).
        var indexes: PropertyIndexes?
        /// Where this object's last compaction moved the frames, for the indexes to follow.
        var remap: PendingRemap?
        /// Whether a handle's changes were followed before (a new handle is then a reload for observers).
        var followedOnce = false
        /// Whether the files of indexes no longer declared were looked for.
        var undeclaredRemoved = false
    }

    /// How often a reader checks that the file at the path is still the open one: a store replaced from
    /// outside (another file moved or copied over it, the store moved away) is noticed within this many
    /// nanoseconds. The repository's own rewrites mark the file they replace, so readers notice those at once;
    /// writers check before every commit.
    static var identityInterval: UInt64 { 50_000_000 }

    /// A repository kept in the store file at `path` (created, with its directory, on the first write).
    public init(path: String, options: RepositoryOptions = RepositoryOptions()) {
        self.path = path
        self.options = options
        fileSystem = options.fileSystem
            .simulating(options.lockedDeviceSimulation, protection: options.fileProtection)
            .creating(NewItemAttributes(protection: options.fileProtection, excludedFromBackup: options.excludedFromBackup))
        registry = RepositoryFile<Record>.registry
        migrationRegistry = MigratedRecord<Record>.registry
        let decoded = DecodedRecords<Record>(capacity: options.decodedRecordCacheCapacity,
                                             byteBudget: options.tuning.decodedRecordBytes)
        keepsDecodedRecords = decoded.capacity > 0
        decodedRecords = Locked(decoded)
        indexDeclarationProblem = Self.indexDeclarationProblem(path: path)
        hasIndexes = !Record.indexes.isEmpty
        expires = Record.self is any ExpiringRecord.Type || Record.self is AnyClass
    }

    /// The platform's data directory for an application or store named `name`: `~/Library/Application
    /// Support/<name>` on Apple platforms (in an app, its container's), and elsewhere `$XDG_DATA_HOME/<name>`
    /// when that variable is an absolute path, else `~/.local/share/<name>`. Nothing is created; the first write
    /// creates it (mode 0700).
    ///
    /// With `appGroup`, the directory that an app shares with its extensions (or its other apps) instead:
    /// `<container>/Library/Application Support/<name>` in the shared container of that app group. Every
    /// change takes the store's lock for that one change and releases it before returning, never across an
    /// `await`: the system ends an app that is suspended while it holds a file lock in a shared container
    /// (`0xdead10cc`), so begin a background task around changes an app may be suspended in the middle of.
    ///
    /// ```swift
    /// let directory = try ArchiveRepository<Workout>.standardDirectory(named: "com.example.workouts")
    /// let repository = ArchiveRepository<Workout>(path: directory + "/Workouts.archive")
    /// let shared = try ArchiveRepository<Workout>.standardDirectory(named: "workouts", appGroup: "group.com.example.app")
    /// ```
    ///
    /// - Throws: ``StoreError/Code/noDataDirectory`` where there is no home directory (no `HOME` and no
    ///   password-database entry), or, with `appGroup`, when the app is not entitled to the group (its App
    ///   Groups entitlement does not list it) and on platforms without app groups (Linux);
    ///   ``StoreError/Code/invalidArgument`` for an empty name or group.
    ///
    /// Mirrors `FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)`, and
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` then `Library/Application Support`.
    public static func standardDirectory(named name: String, appGroup: String? = nil) throws(StoreError) -> String {
        try UserDirectories.standard(.data, named: name, appGroup: appGroup)
    }

    /// The lock file next to the store (`<path>.lock`).
    package var lockPath: String { path + ".lock" }

    /// The id index next to the store (`<path>.index`), derived from the store and rebuilt when missing.
    package var indexPath: String { path + ".index" }

    /// What this object has done to the store so far (commits, syncs, bytes written, refreshes).
    public var statistics: RepositoryStatistics { counters.statistics }

    /// Lets the store file go: background index work this object started is waited for and the file closed.
    /// The next call opens it again. Mirrors `sqlite3_close` (GRDB's `DatabaseQueue.close()`); a repository
    /// needs no closing before it is released.
    public func close() {
        finishMaintenance()
        reader.withLock { state in
            state.handle = nil
            state.indexes = nil
            state.remap = nil
        }
        writers.withLock { $0.lock = nil }
    }

    /// Background work finished before the object goes: a short-lived process (a command-line tool) leaves
    /// its index files written.
    deinit { finishMaintenance() }

    /// Brings the property indexes' files up to date (the next open starts from them) and waits for the
    /// background index work this object started.
    func finishMaintenance() {
        reader.withLock { state in
            if let indexes = state.indexes, indexes.persistedFrames != indexes.frameCount { persistIfBehind(&state, force: true) }
        }
        waitForMaintenance()
    }

    // MARK: The open store

    /// The store as readers see it.
    enum CurrentStore {
        case absent
        case singleArchive([UInt8])
        case log(StoreHandle)
    }

    /// Runs `body` on the store opened, or brought up to date with one read of its commit slots, holding the
    /// handle's lock (keep it short: decode outside).
    func withStore<Result>(_ body: (CurrentStore) throws(StoreError) -> Result) throws(StoreError) -> Result {
        try withStoreState { _, store throws(StoreError) in try body(store) }
    }

    /// ``withStore(_:)`` with the reader state (the property indexes), the handle's journal taken first (see
    /// ``followTable(_:_:)``).
    func withStoreState<Result>(_ body: (inout ReaderState, CurrentStore) throws(StoreError) -> Result) throws(StoreError) -> Result {
        try reader.withLock { (state: inout ReaderState) throws(StoreError) -> Result in
            do throws(StoreError) {
                for _ in 0..<4 {
                    if let handle = state.handle {
                        let now = Kernel.monotonicNanoseconds()
                        var same = true
                        if now &- state.identityChecked >= Self.identityInterval {
                            same = try fileSystem.identity(path)?.inode == handle.inode
                            state.identityChecked = now
                        }
                        if same, try handle.refresh(unpublished: readerUnpublished) == .current {
                            followTable(&state, handle)
                            return try body(&state, .log(handle))
                        }
                        state.handle = nil
                    }
                    switch try StoreHandle.open(path, fileSystem: fileSystem, counters: counters, unpublished: readerUnpublished) {
                    case .absent:
                        return try body(&state, .absent)
                    case .singleArchive(let bytes):
                        return try body(&state, .singleArchive(bytes))
                    case .log(let handle):
                        if handle.state.isRetired, try fileSystem.identity(path)?.inode != handle.inode { continue }
                        state.handle = handle
                        state.identityChecked = Kernel.monotonicNanoseconds()
                        followTable(&state, handle)
                        return try body(&state, .log(handle))
                    }
                }
            } catch {
                state.handle = nil
                throw error
            }
            throw StoreError(.io, "the store keeps being replaced while it is opened", path: path)
        }
    }

    /// How a reader takes commits no slot publishes yet: holding the writer lock if it is free now (no writer is
    /// in the middle of a commit then), never waiting for it.
    var readerUnpublished: StoreHandle.Unpublished { .whenLockIsFree(lockPath: lockPath, fileSystem: fileSystem) }

    // MARK: Reading

    /// Every record, in the order of their last write (an update moves a record to the end): what
    /// ``records(matching:)`` returns for a query with no condition, order or window.
    func allRecords() throws(StoreError) -> [Record] {
        var records: [Record] = []
        try forEachLive(where: nil) { record throws(StoreError) -> Bool in
            records.append(record)
            return true
        }
        return records
    }

    /// Calls `body` with every record, in the order of their last write, on the calling thread. Records are
    /// read and decoded a batch of a few hundred at a time (a large store's batches decoded across the
    /// processor's cores), so memory holds one batch, not the store. Every frame read is checked; damage stops
    /// the walk with ``StoreError/Code/corrupt``, and an error `body` throws stops it and is rethrown.
    /// ``records(matching:)`` with a limit and no order stops once it has its records.
    public func forEach(_ body: (Record) throws(StoreError) -> Void) throws(StoreError) {
        try forEachLive(where: nil) { record throws(StoreError) -> Bool in
            try body(record)
            return true
        }
    }

    /// The live records of the store, from the commit read when the call began, for which `included` (given the
    /// frame's expiry) is true, decoded one at a time. `body` returns whether to go on: `false` ends the walk.
    func forEachLive(where included: ((LiveEntry) -> Bool)?, _ body: (Record) throws(StoreError) -> Bool) throws(StoreError) {
        let source = try withStore { store throws(StoreError) -> LiveSource in
            switch store {
            case .absent: return .records([])
            case .singleArchive(let bytes): return .records(try RepositoryFile<Record>.decode(bytes, path: path).records)
            case .log(let handle):
                try checkVersion(handle.state.recordVersion)
                var entries = handle.table.liveEntries
                if let included { entries.removeAll { !included($0) } }
                return .frames(handle, entries, handle.state.recordVersion)
            }
        }
        switch source {
        case .records(let records):
            for record in records {
                if let included,
                   !included(LiveEntry(hash: 0, offset: 0, length: 1, expiryBits: (expiry(record) ?? .nan).bitPattern)) {
                    continue
                }
                guard try body(record) else { return }
            }
        case .frames(let handle, let entries, let version):
            try forEachRecord(of: handle, entries, version: version, body)
        }
    }

    private enum LiveSource {
        case records([Record])
        case frames(StoreHandle, [LiveEntry], Int)
    }

    /// The record with `id`, or `nil`. Reads one frame.
    public func get(_ id: Record.ID) throws(StoreError) -> Record? {
        let key = Self.key(id)
        if let record = try find(key, takingKept: true) { return record }
        return nil
    }

    /// The record filed under `key`. With `takingKept`, a record kept in ``decodedRecords`` under the offset of
    /// the key's live frame is taken before the frame is read (a record kept is the frame decoded, checked).
    private func find(_ key: [UInt8], takingKept: Bool) throws(StoreError) -> Record? {
        let found = try withStore { store throws(StoreError) -> FoundRecord in
            switch store {
            case .absent:
                return .none
            case .singleArchive(let bytes):
                return .singleArchive(bytes)
            case .log(let handle):
                try checkVersion(handle.state.recordVersion)
                let (generation, serial) = (handle.generation, handle.serial)
                var keptOffset = -1
                let takesKept = takingKept && keepsDecodedRecords
                let frame = try handle.liveFrame(for: key) { offset in
                    guard takesKept,
                          decodedRecords.withLock({ $0.keeps(offset, key: key, generation: generation, handle: serial) }) else {
                        return false
                    }
                    keptOffset = offset
                    return true
                }
                guard let frame else {
                    return keptOffset >= 0 ? .kept(keptOffset, generation, serial) : .none
                }
                return .frame(frame, handle.state.recordVersion, generation, serial)
            }
        }
        switch found {
        case .none: return nil
        case .singleArchive(let bytes):
            return try RepositoryFile<Record>.decode(bytes, path: path).records.first { Self.key($0.id) == key }
        case .frame(let frame, let version, let generation, let serial):
            return try decodeKept(frame, version: version, generation: generation, handle: serial)
        case .kept(let offset, let generation, let serial):
            if let record = decodedRecords.withLock({ $0.record(at: offset, generation: generation, handle: serial) }) { return record }
            // Dropped by another thread meanwhile: read.
            return try find(key, takingKept: false)
        }
    }

    /// The record of `frame`, from ``decodedRecords`` when it was decoded lately, else decoded and kept.
    func decodeKept(_ frame: LogFrame, version: Int, generation: UInt64, handle serial: UInt64) throws(StoreError) -> Record {
        if let kept = decodedRecords.withLock({ $0.record(at: frame.offset, generation: generation, handle: serial) }) { return kept }
        let record = try decode(frame, version: version)
        decodedRecords.withLock {
            $0.keep(record, at: frame.offset, key: frame.key, length: frame.header.length, generation: generation, handle: serial)
        }
        return record
    }

    /// Whether a record has `id`, without decoding it.
    public func contains(_ id: Record.ID) throws(StoreError) -> Bool {
        let key = Self.key(id)
        return try withStore { store throws(StoreError) -> Bool in
            switch store {
            case .absent: return false
            case .singleArchive(let bytes): return try RepositoryFile<Record>.decode(bytes, path: path).records.contains { Self.key($0.id) == key }
            case .log(let handle): return try handle.entry(for: key) != nil
            }
        }
    }

    /// The number of records: kept with the open store, so a count costs one read of the commit slots.
    func liveCount() throws(StoreError) -> Int {
        try withStore { store throws(StoreError) -> Int in
            switch store {
            case .absent: return 0
            case .singleArchive(let bytes): return try RepositoryFile<Record>.decode(bytes, path: path).records.count
            case .log(let handle):
                try checkVersion(handle.state.recordVersion)
                return handle.table.count
            }
        }
    }

    // MARK: Records and frames

    /// ``key(_:)`` through the instance, whose class the runtime already has: a call naming the generic type
    /// (`ArchiveRepository<Record>.key`) from another type asks the runtime for its metadata each time.
    func recordKey(_ id: Record.ID) -> [UInt8] { Self.key(id) }

    /// The key a record is filed under: its id's description, UTF-8 (so ids whose descriptions are equal are
    /// one record, and strings are compared by their bytes, as `NSString` compares them).
    static func key(_ id: Record.ID) -> [UInt8] {
        // A string id is its own description: no generic description is made for it.
        if Record.ID.self == String.self {
            // The same type: its bytes read as a String, without the runtime's dynamic cast.
            return withUnsafePointer(to: id) { $0.withMemoryRebound(to: String.self, capacity: 1) { Array($0.pointee.utf8) } }
        }
        return Array(String(describing: id).utf8)
    }

    /// Whether `id` is filed under `key` (``key(_:)`` compared with `key`), without making the key of a
    /// string id: each record decoded is checked against its frame's key.
    static func isKey(_ key: [UInt8], of id: Record.ID) -> Bool {
        if Record.ID.self == String.self {
            return withUnsafePointer(to: id) {
                $0.withMemoryRebound(to: String.self, capacity: 1) { string in
                    let utf8 = string.pointee.utf8
                    // A native string's UTF-8 is contiguous; a bridged one is compared byte by byte.
                    let same = utf8.withContiguousStorageIfAvailable { bytes in key.withUnsafeBufferPointer { sameBytes($0, bytes) } }
                    return same ?? utf8.elementsEqual(key)
                }
            }
        }
        return sameBytes(Self.key(id), key)
    }

    /// The record's expiry as its frame keeps it: seconds since 1970, `nil` for a record that is not an
    /// ``ExpiringRecord`` or has no expiry date.
    func expiry(_ record: Record) -> Double? {
        guard expires else { return nil }
        return (record as? any ExpiringRecord)?.expiryDate?.timeIntervalSince1970
    }

    /// The record's keyed archive. With ``RepositoryOptions/verifiesRecords`` it is read back first, so that a
    /// record whose `init(coder:)` cannot read what its `encode(with:)` wrote is refused before it is stored.
    /// - Throws: ``StoreError/Code/invalidArgument``.
    func archived(_ record: Record) throws(StoreError) -> [UInt8] {
        let bytes: [UInt8]
        let archiver = archivers.withLock { $0.popLast() } ?? KeyedArchiver.reusable()
        do {
            bytes = try KeyedArchiver.archivedData(withRootObject: record, refusingUnreadableValues: true, reusing: archiver)
        } catch {
            throw StoreError(.invalidArgument, "cannot archive the record: \(error)", path: path, recordID: "\(record.id)")
        }
        archivers.withLock { if $0.count < 8 { $0.append(archiver) } }
        guard options.verifiesRecords else { return bytes }
        let readBack: Record?
        do {
            readBack = try KeyedUnarchiver.unarchivedObject(ofType: Record.self, from: bytes, registry: registry,
                                                            requiresSecureCoding: false)
        } catch {
            throw StoreError(.invalidArgument, "the record would not read back, so nothing was written: \(error)", path: path,
                             recordID: "\(record.id)")
        }
        guard let readBack, Self.key(readBack.id) == Self.key(record.id) else {
            throw StoreError(.invalidArgument, "the archived record reads back with another id", path: path, recordID: "\(record.id)")
        }
        return bytes
    }

    /// The record of a put frame of a log at record version `version`, migrated when that is older.
    /// - Throws: ``StoreError/Code/corrupt`` with the frame's offset.
    /// `counted`: whether this decode adds to ``RepositoryStatistics/recordsDecoded`` (a batch decoded across
    /// the cores adds its count once, rather than each lane taking the counter's lock per record).
    func decode(_ frame: LogFrame, version: Int, counted: Bool = true) throws(StoreError) -> Record {
        if counted { counters.decoded.add(1) }
        let record: Record
        do {
            record = version == Record.archiveFormatVersion ? try decodeCurrent(frame) : try decodeMigrated(frame, version: version)
        } catch let error as StoreError {
            var error = error
            error.path = path
            error.offset = frame.offset
            throw error
        } catch {
            throw StoreError(.corrupt, "cannot read a record: \(error)", path: path, offset: frame.offset)
        }
        guard Self.isKey(frame.key, of: record.id) else {
            throw StoreError(.corrupt, "a record frame holds another id than its key", path: path, offset: frame.offset)
        }
        return record
    }

    /// A record archived at the current record version, decoded with a kept scratch (a `$null` root is an error).
    private func decodeCurrent(_ frame: LogFrame) throws -> Record {
        let scratch = scratches.withLock { $0.popLast() } ?? KeyedUnarchiver.Scratch(registry: registry)
        // Given back after a failed decode too: the unarchiver leaves the scratch as a new one starts.
        defer { scratches.withLock { if $0.count < 8 { $0.append(scratch) } } }
        return try KeyedUnarchiver.unarchivedRecord(ofType: Record.self, from: frame.payload, scratch: scratch)
    }

    /// A record archived at an older record version, through its migration.
    private func decodeMigrated(_ frame: LogFrame, version: Int) throws -> Record {
        let migrated = try RecordMigration.$version.withValue(version) {
            try KeyedUnarchiver.unarchivedObject(ofType: MigratedRecord<Record>.self, from: frame.payload,
                                                 registry: migrationRegistry, requiresSecureCoding: false)
        }
        guard let migrated else { throw StoreError(.corrupt, "a record frame holds nil", path: path, offset: frame.offset) }
        return migrated.record
    }

    /// Refuses a log written at a newer record version.
    func checkVersion(_ version: Int) throws(StoreError) {
        if version > Record.archiveFormatVersion {
            throw StoreError(.unsupportedVersion,
                             "store format version \(version) is newer than this build's \(Record.archiveFormatVersion); open it with a newer version of the program that wrote it",
                             path: path)
        }
    }
}

/// A record archived at an older record version, read through ``ArchiveRecord/migrateRecord(fromVersion:coder:)``
/// under the record's own class name: the public unarchiver API, with the version passed as a task-local.
struct MigratedRecord<Record: ArchiveRecord>: KeyedArchivable {
    static var archivedClassName: String { Record.archivedClassName }
    static var archivedSuperclassNames: [String] { Record.archivedSuperclassNames }

    var record: Record

    init(coder: KeyedUnarchiver) throws {
        record = try Record.migrateRecord(fromVersion: RecordMigration.version, coder: coder)
    }

    func encode(with coder: KeyedArchiver) { record.encode(with: coder) }

    static var registry: ClassRegistry { ClassRegistry([MigratedRecord<Record>.self] + Record.nestedArchivableTypes) }
}

/// The record version being migrated, for ``MigratedRecord`` (a generic type cannot hold it).
enum RecordMigration {
    @TaskLocal static var version = 0
}

extension ArchiveRepository where Record: ExpiringRecord {
    /// The records whose ``ExpiringRecord/expiryDate`` is at or before `date`, found from the table alone (only
    /// they are decoded), in the order of ``records(matching:)``.
    public func expired(at date: Date) throws(StoreError) -> [Record] {
        let limit = date.timeIntervalSince1970
        var records: [Record] = []
        try forEachLive(where: { entry in entry.expiry.map { $0 <= limit } ?? false }) { record throws(StoreError) in
            records.append(record)
            return true
        }
        return records
    }
}

/// What ``ArchiveRepository/get(_:)`` found under the store's lock, decoded after it: not nested in the generic
/// class, so that a `get` asks the runtime for no type metadata of it.
private enum FoundRecord {
    case none
    case singleArchive([UInt8])
    case frame(LogFrame, Int, UInt64, UInt64)
    /// A record kept in the decoded-record cache: its frame's offset, the log's generation and the serial of the
    /// handle that read it.
    case kept(Int, UInt64, UInt64)
}
