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
/// extension ArchiveRepository where Record == Workout {
///     func maximumCount() throws(StoreError) -> Int? { try all().map(\.count).max() }
/// }
/// ```
///
/// The store is a record log (`RecordLog` in the sources): each record is framed as its own keyed archive and appended,
/// with a checksum, after the others; a removal appends a small delete frame. An id index beside it
/// (`<path>.index`) says where each live record is, so `get`, `add`, `update` and `remove` read a few small
/// ranges and append one frame, whatever the number of records. The index is merged with the newest frames
/// every thousand writes or so, and the log is rewritten without its dead frames when they outweigh the live
/// ones.
///
/// Every change is made while holding an in-process mutex and an exclusive `flock` on `<path>.lock`: the
/// frames are written past the committed end and synced, then one of the log's two commit slots is written
/// and synced. A reader takes no lock and sees the last commit, never part of a change; a crash at any point
/// leaves the last commit. Whole rewrites (the first write, migration, compaction, ``modify(_:)``) go to a
/// temporary file renamed into place. A file that cannot be read (a damaged frame, header or archive) is
/// reported as ``StoreError/Code/corrupt`` and never overwritten; ``moveAside(suffix:)`` renames it out of the
/// way on request.
///
/// A store file written before the record log (one keyed archive holding every record) is read as it is and
/// becomes a record log on the first change. ``exportArchive(to:progress:)`` writes that single archive back, for
/// Apple's `NSKeyedUnarchiver` or any other reader, and ``add(contentsOf:skippingExisting:progress:)`` reads records
/// back in.
///
/// Plays the part of a Core Data persistent store or an `NSKeyedArchiver.archiveRootObject(_:toFile:)` cache.
public final class ArchiveRepository<Record: ArchiveRecord>: Sendable {
    /// The store file.
    public let path: String
    /// The options the repository was created with.
    public let options: RepositoryOptions
    /// The writers of this object, one at a time; `true` once the store's file attributes were checked.
    let writers = Locked(false)
    /// The options' file system, giving what it creates the options' protection class and backup exclusion.
    let fileSystem: FileSystem

    /// A repository kept in the store file at `path` (created, with its directory, on the first write).
    public init(path: String, options: RepositoryOptions = RepositoryOptions()) {
        self.path = path
        self.options = options
        fileSystem = options.fileSystem.creating(NewItemAttributes(protection: options.fileProtection,
                                                                   excludedFromBackup: options.excludedFromBackup))
    }

    /// The platform's data directory for an application or store named `name`: `~/Library/Application
    /// Support/<name>` on Apple platforms (in an app, its container's), and elsewhere `$XDG_DATA_HOME/<name>`
    /// when that variable is an absolute path, else `~/.local/share/<name>`. Nothing is created; the first write
    /// creates it (mode 0700).
    ///
    /// ```swift
    /// let directory = try ArchiveRepository<Workout>.standardDirectory(named: "com.example.workouts")
    /// let repository = ArchiveRepository<Workout>(path: directory + "/Workouts.archive")
    /// ```
    ///
    /// - Throws: ``StoreError/Code/noDataDirectory`` where there is no home directory (no `HOME` and no
    ///   password-database entry); ``StoreError/Code/invalidArgument`` for an empty name.
    ///
    /// Mirrors `FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)`.
    public static func standardDirectory(named name: String, environment: [String: String]? = nil) throws(StoreError) -> String {
        try UserDirectories.requireName(name, kind: "data")
        return try UserDirectories.data(application: name, environment: environment ?? UserDirectories.processEnvironment)
    }

    /// The data directory named `name` that an app shares with its extensions (or its other apps):
    /// `<container>/Library/Application Support/<name>` in the shared container of the app group `appGroup`.
    /// Nothing is created.
    ///
    /// Every change takes the store's lock for that one change and releases it before returning, never across
    /// an `await`: the system ends an app that is suspended while it holds a file lock in a shared container
    /// (`0xdead10cc`), so begin a background task around changes an app may be suspended in the middle of.
    ///
    /// - Throws: ``StoreError/Code/noDataDirectory`` when the app is not entitled to the group (its App Groups
    ///   entitlement does not list it), and on platforms without app groups (Linux);
    ///   ``StoreError/Code/invalidArgument`` for an empty name or group.
    ///
    /// Mirrors `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, then `Library/Application Support`.
    public static func standardDirectory(named name: String, appGroup: String) throws(StoreError) -> String {
        try standardDirectory(named: name, appGroup: appGroup, containerLookup: AppGroupContainer.path(forGroup:))
    }

    /// ``standardDirectory(named:appGroup:)`` with the container found by `containerLookup` (tests).
    package static func standardDirectory(named name: String, appGroup: String,
                                          containerLookup: (String) -> String?) throws(StoreError) -> String {
        try UserDirectories.requireName(name, kind: "data")
        return try UserDirectories.groupData(application: name, group: appGroup, containerLookup: containerLookup)
    }

    /// The lock file next to the store (`<path>.lock`).
    public var lockPath: String { path + ".lock" }

    /// The id index next to the store (`<path>.index`), derived from the store and rebuilt when missing.
    public var indexPath: String { path + ".index" }


    // MARK: Reading

    /// Every record, in the order of their last write (an update moves a record to the end).
    public func all() throws(StoreError) -> [Record] {
        var records: [Record] = []
        try forEach { record throws(StoreError) in records.append(record) }
        return records
    }

    /// Calls `body` with every record, in the order of their last write, holding one record in memory at a
    /// time. Every frame of the store is checked on the way; damage stops the walk with
    /// ``StoreError/Code/corrupt``. Stop early by throwing.
    public func forEach(_ body: (Record) throws(StoreError) -> Void) throws(StoreError) {
        switch try StoreFile.open(path, fileSystem: fileSystem, writable: false, tuning: options.tuning) {
        case .absent:
            return
        case .singleArchive(let bytes):
            for record in try RepositoryFile<Record>.decode(bytes, path: path).records { try body(record) }
        case .log(let snapshot):
            try checkVersion(snapshot)
            try snapshot.forEachLiveFrame { frame throws(StoreError) in try body(try decode(frame, snapshot)) }
        }
    }

    /// The record with `id`, or `nil`. Reads the index and one frame.
    public func get(_ id: Record.ID) throws(StoreError) -> Record? {
        switch try StoreFile.open(path, fileSystem: fileSystem, writable: false, tuning: options.tuning) {
        case .absent:
            return nil
        case .singleArchive(let bytes):
            let key = Self.key(id)
            return try RepositoryFile<Record>.decode(bytes, path: path).records.first { Self.key($0.id) == key }
        case .log(let snapshot):
            try checkVersion(snapshot)
            guard let location = try snapshot.locate(Self.key(id)) else { return nil }
            return try decode(try snapshot.frame(at: location), snapshot)
        }
    }

    /// The number of records, read from the store's last commit.
    public func count() throws(StoreError) -> Int {
        switch try StoreFile.open(path, fileSystem: fileSystem, writable: false, tuning: options.tuning) {
        case .absent: return 0
        case .singleArchive(let bytes): return try RepositoryFile<Record>.decode(bytes, path: path).records.count
        case .log(let snapshot):
            try checkVersion(snapshot)
            return snapshot.state.liveCount
        }
    }

    /// The records for which `isIncluded` is true, in the order of ``all()``.
    public func filter(_ isIncluded: (Record) -> Bool) throws(StoreError) -> [Record] {
        var records: [Record] = []
        try forEach { record throws(StoreError) in if isIncluded(record) { records.append(record) } }
        return records
    }

    /// The first record, in the order of ``all()``, for which `predicate` is true.
    public func first(where predicate: (Record) -> Bool) throws(StoreError) -> Record? {
        var found: Record?
        do {
            try forEach { record throws(StoreError) in
                if predicate(record) {
                    found = record
                    throw StoreError(.notFound, "stop")
                }
            }
        } catch where found != nil {
            return found
        }
        return found
    }

    /// The number of records for which `predicate` is true.
    public func count(where predicate: (Record) -> Bool) throws(StoreError) -> Int {
        var count = 0
        try forEach { record throws(StoreError) in if predicate(record) { count += 1 } }
        return count
    }

    /// The records whose ``ArchiveRecord/expiryDate`` is at or before `date`, found from the index alone
    /// (only they are decoded), in the order of ``all()``.
    public func expired(at date: Date) throws(StoreError) -> [Record] {
        switch try StoreFile.open(path, fileSystem: fileSystem, writable: false, tuning: options.tuning) {
        case .absent:
            return []
        case .singleArchive(let bytes):
            return try RepositoryFile<Record>.decode(bytes, path: path).records.filter { Self.isExpired($0, at: date) }
        case .log(let snapshot):
            try checkVersion(snapshot)
            return try expiredRecords(in: snapshot, at: date).map(\.record)
        }
    }

    // MARK: The writer

    /// Runs `body` on the store opened for writing, under both locks, then merges the index or compacts the
    /// log if due. Returns `nil`, having written nothing, when there is no store and `createsStore` is false.
    /// A store from before the record log, or at an older record version, is first rewritten as a record log
    /// at the current version.
    func withWriter<Result>(
        createsStore: Bool, _ body: (StoreSnapshot) throws(StoreError) -> Result
    ) throws(StoreError) -> Result? {
        try locked(createsDirectory: createsStore) { () throws(StoreError) -> Result? in
            var durabilityDoubt: StoreError?
            guard let snapshot = try openForWriting(createsStore: createsStore, durabilityDoubt: &durabilityDoubt) else {
                return nil
            }
            let result = try body(snapshot)
            if snapshot.needsCompaction {
                try? snapshot.compact()
            } else {
                snapshot.maintainIndex()
            }
            if let durabilityDoubt { throw durabilityDoubt }
            return result
        } ?? nil
    }

    /// Runs `body` holding the in-process mutex and the store's lock file (waiting at most
    /// ``RepositoryOptions/lockTimeout``), after removing temporary files of writers that died. Returns `nil`
    /// without running it when the store's directory does not exist and `createsDirectory` is false.
    func locked<Result>(createsDirectory: Bool, _ body: () throws(StoreError) -> Result) throws(StoreError) -> Result? {
        try writers.withLock { (attributesChecked: inout Bool) throws(StoreError) -> Result? in
            if try fileSystem.linkStatus(PathName.directory(of: path)) == nil {
                guard createsDirectory else { return nil }
                try fileSystem.makeDirectories(PathName.directory(of: path))
            }
            return try WriterLock.holding(lockPath, waiting: .atMost(seconds: options.lockTimeout), fileSystem: fileSystem) { () throws(StoreError) -> Result in
                AtomicReplace.sweepStaleTemporaries(of: [path, indexPath], fileSystem: fileSystem)
                if !attributesChecked {
                    try restoreAttributes()
                    attributesChecked = true
                }
                return try body()
            }
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

    /// The store as a record log at the current version, opened read-write.
    func openForWriting(createsStore: Bool, durabilityDoubt: inout StoreError?) throws(StoreError) -> StoreSnapshot? {
        for _ in 0..<3 {
            let records: [Record]
            switch try StoreFile.open(path, fileSystem: fileSystem, writable: true, tuning: options.tuning) {
            case .absent:
                guard createsStore else { return nil }
                records = []
            case .singleArchive(let bytes):
                records = try RepositoryFile<Record>.decode(bytes, path: path).records
                if Set(records.map { Self.key($0.id) }).count != records.count {
                    // A record log holds one record an id; the store holds some id twice (get returned the first).
                    // The file is kept as it is beside the store, so that no record it held is lost.
                    try AtomicReplace.replace(path + ".before-migration", with: bytes, fileSystem: fileSystem)
                }
            case .log(let snapshot):
                try checkVersion(snapshot)
                if snapshot.state.chain == nil {
                    // A format 1 log: rewritten as format 2, frames copied as they are.
                    do throws(StoreError) {
                        try snapshot.compact()
                    } catch where error.code == .durabilityUnknown {
                        durabilityDoubt = error
                    }
                    continue
                }
                guard snapshot.state.recordVersion != Record.archiveFormatVersion else { return snapshot }
                var migrated: [Record] = []
                try snapshot.forEachLiveFrame { frame throws(StoreError) in migrated.append(try decode(frame, snapshot)) }
                records = migrated
            }
            do throws(StoreError) {
                try install(records)
            } catch where error.code == .durabilityUnknown {
                durabilityDoubt = error
            }
        }
        throw StoreError(.io, "the store changed while it was being rewritten", path: path)
    }

    // MARK: Records and frames

    /// The key a record is filed under: its id's description, UTF-8 (so ids whose descriptions are equal are
    /// one record, and strings are compared by their bytes, as `NSString` compares them).
    static func key(_ id: Record.ID) -> [UInt8] { Array(String(describing: id).utf8) }

    static func expiry(_ record: Record) -> Double? { record.expiryDate?.timeIntervalSince1970 }

    static func isExpired(_ record: Record, at date: Date) -> Bool {
        guard let expiry = record.expiryDate else { return false }
        return expiry <= date
    }

    /// The record's keyed archive, read back before it is returned: a record that archives to something the
    /// unarchiver refuses (a date of infinity, say) is refused here, so the store never holds a record it
    /// cannot read.
    /// - Throws: ``StoreError/Code/invalidArgument``.
    func archived(_ record: Record) throws(StoreError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try KeyedArchiver.archivedData(withRootObject: record)
        } catch {
            throw StoreError(.invalidArgument, "cannot archive the record: \(error)", path: path, recordID: "\(record.id)")
        }
        let readBack: Record?
        do {
            readBack = try KeyedUnarchiver.unarchivedObject(ofType: Record.self, from: bytes, registry: RepositoryFile<Record>.registry,
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

    /// The record of a put frame, migrated when the log is at an older record version.
    /// - Throws: ``StoreError/Code/corrupt`` with the frame's offset.
    func decode(_ frame: LogFrame, _ snapshot: StoreSnapshot) throws(StoreError) -> Record {
        let version = snapshot.state.recordVersion
        let record: Record?
        do {
            if version == Record.archiveFormatVersion {
                record = try KeyedUnarchiver.unarchivedObject(ofType: Record.self, from: frame.payload,
                                                              registry: RepositoryFile<Record>.registry, requiresSecureCoding: false)
            } else {
                record = try RecordMigration.$version.withValue(version) {
                    try KeyedUnarchiver.unarchivedObject(ofType: MigratedRecord<Record>.self, from: frame.payload,
                                                         registry: MigratedRecord<Record>.registry,
                                                         requiresSecureCoding: false)?.record
                }
            }
        } catch let error as StoreError {
            var error = error
            error.path = path
            error.offset = frame.offset
            throw error
        } catch {
            throw StoreError(.corrupt, "cannot read a record: \(error)", path: path, offset: frame.offset)
        }
        guard let record else { throw StoreError(.corrupt, "a record frame holds nil", path: path, offset: frame.offset) }
        guard Self.key(record.id) == frame.key else {
            throw StoreError(.corrupt, "a record frame holds another id than its key", path: path, offset: frame.offset)
        }
        return record
    }

    /// Refuses a log written at a newer record version.
    func checkVersion(_ snapshot: StoreSnapshot) throws(StoreError) {
        let version = snapshot.state.recordVersion
        if version > Record.archiveFormatVersion {
            throw StoreError(.unsupportedVersion,
                             "store format version \(version) is newer than this build's \(Record.archiveFormatVersion); open it with a newer version of the program that wrote it",
                             path: path)
        }
    }

    /// The expired records with their frames, in log order.
    func expiredRecords(in snapshot: StoreSnapshot, at date: Date, progress: ProgressHandler? = nil)
        throws(StoreError) -> [(record: Record, key: [UInt8], location: FrameLocation)]
    {
        let limit = date.timeIntervalSince1970
        var locations: [FrameLocation] = []
        try snapshot.forEachLiveLocation { location throws(StoreError) in
            if let expiry = location.expiry, expiry <= limit { locations.append(location) }
        }
        locations.sort { $0.ordinal < $1.ordinal }
        var result: [(record: Record, key: [UInt8], location: FrameLocation)] = []
        result.reserveCapacity(locations.count)
        for var location in locations {
            if location.length == 0 {
                // From the index, which does not keep lengths: read the frame's header.
                let header = try snapshot.frameHeader(at: location.offset)
                location.length = header.length
            }
            let frame = try snapshot.frame(at: location)
            let record = try decode(frame, snapshot)
            result.append((record, frame.key, location))
            progress?(result.count, locations.count)
        }
        return result
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
