#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArchiveStore

/// Form records kept in the user's data directory with an expiry: the library behind the `formcache` command.
///
/// ```swift
/// let cache = try FormCache(environment: ProcessInfo.processInfo.environment)
/// let record = try cache.add(name: "signup", fields: ["email": "a@b.c"], timeToLive: TimeToLive(parsing: "12h"))
/// let again = try cache.get(record.id)
/// ```
///
/// The store is `FormCache.cache` in the data directory (see ``init(environment:clock:options:)``), a log of keyed-archive
/// records with an index beside it (see `ArchiveRepository`); ``export(to:progress:)`` writes every record as one
/// ordinary keyed archive and ``importArchive(file:progress:)`` reads one back.
/// Expiry is checked on every read: an expired record is never returned (except by
/// `list(includeExpired: true)`), even before ``purge(all:dryRun:progress:)`` removes it. Expiry is judged by the
/// injected `StoreClock` against each record's fixed ``FormRecord/expiresAt``, so a clock that steps back
/// never expires a record early.
///
/// Plays the part of the iOS app's `NSKeyedArchiver`-based cache manager.
public final class FormCache: Sendable {
    /// The store file's name inside the data directory.
    package static let fileName = "FormCache.cache"

    /// The data directory.
    public let directory: String
    /// The clock that decides expiry and registration times.
    package let clock: any StoreClock
    /// The underlying repository.
    package let repository: ArchiveRepository<FormRecord>

    /// A cache in `directory` (created with mode 0700 on the first write).
    public init(directory: String, clock: any StoreClock = SystemClock(), options: RepositoryOptions = RepositoryOptions()) {
        self.directory = directory
        self.clock = clock
        repository = ArchiveRepository(path: PathName.join(directory, Self.fileName), options: options)
    }

    /// A cache in the data directory that `environment` designates, the `formcache` command's: the first that
    /// applies of
    ///
    /// 1. `$FORMCACHE_HOME`, used as given;
    /// 2. on Apple platforms, `~/Library/Application Support/formcache` (in an iOS, tvOS, watchOS or visionOS
    ///    app, the app container's);
    /// 3. elsewhere, `$XDG_DATA_HOME/formcache` when `XDG_DATA_HOME` is an absolute path (the XDG spec ignores
    ///    relative ones), else `~/.local/share/formcache`;
    ///
    /// where `~` is `$HOME` or, if that is unset, the home directory in the password database. Nothing is
    /// created here; the store creates the directory (mode 0700) on its first write.
    ///
    /// ```swift
    /// let cache = try FormCache(environment: ProcessInfo.processInfo.environment)
    /// print(cache.directory)
    /// ```
    ///
    /// - Throws: `StoreError.Code.noDataDirectory` without `$HOME` or a password-database entry (a service with
    ///   no home, Android, WASI), asking for `$FORMCACHE_HOME`.
    ///
    /// Corresponds to `FileManager.url(for: .applicationSupportDirectory, in: .userDomainMask, ...)`.
    public convenience init(
        environment: [String: String], clock: any StoreClock = SystemClock(), options: RepositoryOptions = RepositoryOptions()
    ) throws(StoreError) {
        self.init(
            directory: try DataDirectory.resolve(application: "formcache", environment: environment),
            clock: clock, options: options)
    }

    /// A cache that an app shares with its extensions: in `Library/Application Support/formcache` of the shared
    /// container of the app group `appGroup` (`<container>/Library/Application Support/formcache`).
    ///
    /// ```swift
    /// let forms = try FormCache(appGroup: "group.com.example.forms")
    /// ```
    ///
    /// - Throws: `StoreError.Code.noDataDirectory` when the app is not entitled to the group, and where there
    ///   are no app groups (Linux).
    public convenience init(
        appGroup: String, clock: any StoreClock = SystemClock(), options: RepositoryOptions = RepositoryOptions()
    ) throws(StoreError) {
        self.init(directory: try DataDirectory.resolve(application: "formcache", appGroup: appGroup), clock: clock, options: options)
    }

    /// A cache in the data directory at `directory`, a file URL (created with mode 0700 on the first write): the
    /// same cache as ``init(directory:clock:options:)-(String,_,_)`` with its path. The directory holds the
    /// cache's store file, `FormCache.cache`, with its index and lock files.
    ///
    /// - Throws: `StoreError.Code.invalidArgument` when `directory` is not a file URL.
    public convenience init(directory: URL, clock: any StoreClock = SystemClock(),
                            options: RepositoryOptions = RepositoryOptions()) throws(StoreError) {
        self.init(directory: try FileURL.path(of: directory), clock: clock, options: options)
    }

    /// The store file.
    public var path: String { repository.path }

    /// The data directory, as a file URL.
    public var directoryURL: URL { FileURL.directory(directory) }

    /// Adds a record registered now and returns it. Throws `StoreError.Code.duplicateID` if `id` is taken
    /// (by a live or an expired record), and `StoreError.Code.durabilityUnknown` with the new record's id in
    /// `StoreError.recordID` when the record is stored but the directory fsync after the rename failed.
    @discardableResult
    public func add(
        name: String, fields: [String: String] = [:], id: String? = nil, timeToLive: TimeToLive = .defaultValue
    ) throws(StoreError) -> FormRecord {
        let record = FormRecord(
            id: id ?? UUID().uuidString, name: name, fields: fields, registeredAt: clock.now(), timeToLive: timeToLive)
        do throws(StoreError) {
            try repository.add(record)
        } catch where error.code == .durabilityUnknown {
            var error = error
            error.recordID = record.id   // stored: the caller can print the id rather than add it again
            throw error
        }
        return record
    }

    /// The live record with `id`. Throws `StoreError.Code.notFound` if there is none or it has expired.
    public func get(_ id: String) throws(StoreError) -> FormRecord {
        guard let record = try repository.get(id) else {
            throw StoreError(.notFound, "no record has this id", path: path, recordID: id)
        }
        guard !record.isExpired(at: clock.now()) else {
            throw StoreError(.notFound, "the record expired at \(ISO8601Text.format(record.expiresAt))", path: path, recordID: id)
        }
        return record
    }

    /// The live records (and the expired ones too if `includeExpired`) that match `query`, in its order and
    /// window; without an order, in the order of their last write. ``FormRecord`` declares indexes on
    /// ``FormRecord/registeredAt``, ``FormRecord/expiresAt`` and ``FormRecord/name``, so a query on them is
    /// answered from the store's indexes and only the records returned are decoded.
    ///
    /// ```swift
    /// let all = try cache.list()
    /// let newest = try cache.list(matching: RecordQuery().sorted(by: \.registeredAt, ascending: false).limit(10))
    /// ```
    public func list(matching query: RecordQuery<FormRecord> = RecordQuery(), includeExpired: Bool = false) throws(StoreError) -> [FormRecord] {
        if query.isEverything {
            var records: [FormRecord] = []
            try forEachRecord(includeExpired: includeExpired) { record throws(StoreError) in records.append(record) }
            return records
        }
        return try repository.records(matching: includeExpired ? query : query.where(\.expiresAt, greaterThan: clock.now()))
    }

    /// Changes to the store as they are committed, by this process or another (see
    /// `ArchiveRepository.changes()`).
    public func changes() -> AsyncStream<RepositoryChange> { repository.changes() }

    /// Calls `body` with each live record (and the expired ones too if `includeExpired`), in the order of
    /// ``list(matching:includeExpired:)``, holding one record in memory at a time.
    public func forEachRecord(includeExpired: Bool = false, _ body: (FormRecord) throws(StoreError) -> Void) throws(StoreError) {
        let now = clock.now()
        try repository.forEach { record throws(StoreError) in
            if includeExpired || !record.isExpired(at: now) { try body(record) }
        }
    }

    /// The number of records, live and expired, from the store's last commit.
    public func count() throws(StoreError) -> Int { try repository.count() }

    /// Changes the live record with `id`: a new `name`, `fields` set (added or replaced), and with
    /// `timeToLive` a new expiry counted from now. Returns the record as stored. Throws
    /// `StoreError.Code.notFound` if there is no live record with `id`.
    @discardableResult
    public func update(
        _ id: String, name: String? = nil, fields: [String: String] = [:], timeToLive: TimeToLive? = nil
    ) throws(StoreError) -> FormRecord {
        let now = clock.now()
        var expired = false
        let updated = try repository.update(id) { record throws(StoreError) -> Bool in
            guard !record.isExpired(at: now) else {
                expired = true
                return false
            }
            if let name { record.name = name }
            record.fields.merge(fields) { _, new in new }
            if let timeToLive { record.expiresAt = now.addingTimeInterval(Double(timeToLive.seconds)) }
            return true
        }
        guard let updated else {
            throw StoreError(.notFound, expired ? "the record has expired" : "no record has this id", path: path, recordID: id)
        }
        return updated
    }

    /// Removes the record with `id`, live or expired, and returns it. Throws `StoreError.Code.notFound` if
    /// there is none.
    @discardableResult
    public func remove(_ id: String) throws(StoreError) -> FormRecord {
        guard let removed = try repository.remove(id) else {
            throw StoreError(.notFound, "no record has this id", path: path, recordID: id)
        }
        return removed
    }

    /// Removes the expired records (every record with `all`) and returns them, in one commit; with `dryRun`
    /// only returns what would be removed. Expired records are found from the store's index, so only they are
    /// decoded. `progress` counts the records read (of those expired, or with `all` of every record) before
    /// the commit.
    @discardableResult
    public func purge(all: Bool = false, dryRun: Bool = false, progress: ProgressHandler? = nil) throws(StoreError) -> [FormRecord] {
        if all { return dryRun ? try repository.records() : try repository.removeAll(progress: progress) { _ in true } }
        let now = clock.now()
        if dryRun { return try repository.records(matching: RecordQuery().where(\.expiresAt, in: ...now)) }
        return try repository.removeExpired(at: now, progress: progress)
    }

    /// Writes every record, live and expired, to `file` as one ordinary keyed archive (see
    /// `ArchiveRepository.exportArchive(to:progress:)`) and returns how many. `progress` counts the records
    /// read, of the store's count.
    @discardableResult
    public func export(to file: String, progress: ProgressHandler? = nil) throws(StoreError) -> Int {
        try repository.exportArchive(to: file, progress: progress)
        return try repository.count()
    }

    /// Keeps the newest commit of a store whose newer commit slot is damaged (see
    /// `ArchiveRepository.recoverDamagedCommit()`); the file as it was stays beside it as
    /// `FormCache.cache.before-recovery`. Returns how many records' changes were recovered.
    @discardableResult
    public func recoverDamagedCommit() throws(StoreError) -> Int {
        try repository.recoverDamagedCommit().recoveredFrames
    }

    /// Renames an unreadable store to `FormCache.cache.corrupt-<UTC time>` and returns the new path (see
    /// `ArchiveRepository.moveAside(suffix:)`), so that a new store can start.
    public func moveAside() throws(StoreError) -> String {
        let stamp = ISO8601Text.format(clock.now()).filter { $0 != ":" && $0 != "-" }
        return try repository.moveAside(suffix: "corrupt-" + stamp)
    }
}
