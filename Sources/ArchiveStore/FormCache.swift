import FoundationEssentials

/// Form records kept in the user's data directory with an expiry: the library behind the `formcache` command.
///
/// ```swift
/// let cache = try FormCache(environment: ProcessInfo.processInfo.environment)
/// let record = try cache.add(name: "signup", fields: ["email": "a@b.c"], timeToLive: TimeToLive(parsing: "12h"))
/// let again = try cache.get(record.id)
/// ```
///
/// The store is `FormCache.cache` in the data directory (see ``DataDirectory``), an ordinary keyed archive.
/// Expiry is checked on every read: an expired record is never returned (except by
/// `list(includeExpired: true)`), even before ``purge(all:dryRun:)`` removes it. Expiry is judged by the
/// injected ``StoreClock`` against each record's fixed ``FormRecord/expiresAt``, so a clock that steps back
/// never expires a record early.
///
/// Plays the part of the iOS app's `NSKeyedArchiver`-based cache manager.
public final class FormCache: Sendable {
    /// The store file's name inside the data directory.
    public static let fileName = "FormCache.cache"

    /// The data directory.
    public let directory: String
    /// The clock that decides expiry and registration times.
    public let clock: any StoreClock
    /// The underlying repository.
    public let repository: ArchiveRepository<FormRecord>

    /// A cache in `directory` (created with mode 0700 on the first write).
    public init(directory: String, clock: any StoreClock = SystemClock(), options: RepositoryOptions = RepositoryOptions()) {
        self.directory = directory
        self.clock = clock
        repository = ArchiveRepository(path: PathName.join(directory, Self.fileName), options: options)
    }

    /// A cache in the data directory that `environment` designates (see ``DataDirectory``).
    public convenience init(
        environment: [String: String], clock: any StoreClock = SystemClock(), options: RepositoryOptions = RepositoryOptions()
    ) throws(StoreError) {
        self.init(
            directory: try DataDirectory.resolve(application: "formcache", environment: environment),
            clock: clock, options: options)
    }

    /// The store file.
    public var path: String { repository.path }

    /// Adds a record registered now and returns it. Throws ``StoreError/Code/duplicateID`` if `id` is taken
    /// (by a live or an expired record), and ``StoreError/Code/durabilityUnknown`` with the new record's id in
    /// ``StoreError/recordID`` when the record is stored but the directory fsync after the rename failed.
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

    /// The live record with `id`. Throws ``StoreError/Code/notFound`` if there is none or it has expired.
    public func get(_ id: String) throws(StoreError) -> FormRecord {
        guard let record = try repository.get(id) else {
            throw StoreError(.notFound, "no record has this id", path: path, recordID: id)
        }
        guard !record.isExpired(at: clock.now()) else {
            throw StoreError(.notFound, "the record expired at \(ISO8601Text.format(record.expiresAt))", path: path, recordID: id)
        }
        return record
    }

    /// The live records (and the expired ones too if `includeExpired`), in insertion order.
    public func list(includeExpired: Bool = false) throws(StoreError) -> [FormRecord] {
        if includeExpired { return try repository.all() }
        let now = clock.now()
        return try repository.filter { !$0.isExpired(at: now) }
    }

    /// Removes the record with `id`, live or expired, and returns it. Throws ``StoreError/Code/notFound`` if
    /// there is none.
    @discardableResult
    public func remove(_ id: String) throws(StoreError) -> FormRecord {
        guard let removed = try repository.remove(id) else {
            throw StoreError(.notFound, "no record has this id", path: path, recordID: id)
        }
        return removed
    }

    /// Removes the expired records (every record with `all`) and returns them; with `dryRun` only returns
    /// what would be removed.
    @discardableResult
    public func purge(all: Bool = false, dryRun: Bool = false) throws(StoreError) -> [FormRecord] {
        let now = clock.now()
        let isPurged: (FormRecord) -> Bool = { all || $0.isExpired(at: now) }
        if dryRun { return try repository.filter(isPurged) }
        return try repository.removeAll(where: isPurged)
    }

    /// Renames an unreadable store to `FormCache.cache.corrupt-<UTC time>` and returns the new path.
    /// See ``ArchiveRepository/moveAside(suffix:)``.
    public func moveAside() throws(StoreError) -> String {
        let stamp = ISO8601Text.format(clock.now()).filter { $0 != ":" && $0 != "-" }
        return try repository.moveAside(suffix: "corrupt-" + stamp)
    }
}
