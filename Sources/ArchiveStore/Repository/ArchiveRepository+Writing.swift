#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The single changes: each is a transaction of one change (see ``write(_:)``): it takes the writer lock,
/// commits once with one sync and releases the lock before it returns.
extension ArchiveRepository {
    /// Adds `record`; throws ``StoreError/Code/duplicateID`` if its id is taken.
    public func add(_ record: Record) throws(StoreError) {
        let payload = try archived(record)
        _ = try transact(createsStore: true) { transaction throws(StoreError) in
            try transaction.stagePut(record, payload: payload, requires: .absent, keepsRecord: hasIndexes)
        }
    }

    /// Replaces the record with `record`'s id; throws ``StoreError/Code/notFound`` if there is none.
    public func update(_ record: Record) throws(StoreError) {
        let payload = try archived(record)
        var found = false
        _ = try transact(createsStore: false) { transaction throws(StoreError) in
            guard try transaction.contains(record.id) else { return }
            try transaction.stagePut(record, payload: payload, requires: .present, keepsRecord: hasIndexes)
            found = true
        }
        guard found else {
            throw StoreError(.notFound, "no record has this id", path: path, recordID: "\(record.id)")
        }
    }

    /// Changes the record with `id` in place, under the store's lock (no other change can come between the
    /// read and the write), and returns it as stored; `nil` (nothing written) when there is none or `change`
    /// returns `false`. The id may not change. `change` must not call this repository (it holds its lock).
    /// Unlike ``write(_:)``, creates nothing when there is no store (FormCache's `update`); users write
    /// `write { transaction in ... }`.
    @discardableResult
    package func update(_ id: Record.ID, _ change: (inout Record) throws(StoreError) -> Bool) throws(StoreError) -> Record? {
        try withTransaction(createsStore: false) { transaction throws(StoreError) -> Record? in
            guard var record = try transaction.get(id) else { return nil }
            guard try change(&record) else { return nil }
            guard Self.key(record.id) == Self.key(id) else {
                throw StoreError(.invalidArgument, "an update may not change the record's id", path: path, recordID: "\(id)")
            }
            try transaction.update(record)
            return record
        } ?? nil
    }

    /// Replaces the record with `record`'s id, or adds `record` if there is none.
    public func upsert(_ record: Record) throws(StoreError) {
        let payload = try archived(record)
        _ = try transact(createsStore: true) { transaction throws(StoreError) in
            try transaction.stagePut(record, payload: payload, requires: .either, keepsRecord: hasIndexes)
        }
    }

    /// Removes and returns the record with `id`, or returns `nil` (and writes nothing) if there is none.
    @discardableResult
    public func remove(_ id: Record.ID) throws(StoreError) -> Record? {
        try withTransaction(createsStore: false) { transaction throws(StoreError) -> Record? in
            try transaction.remove(id)
        } ?? nil
    }

    /// Removes and returns every record for which `shouldBeRemoved` is true, in one commit (writes nothing if
    /// none is). Every record is decoded; ``removeExpired(at:progress:)`` decodes only the records it removes.
    /// `progress` counts the records read, of the store's count.
    @discardableResult
    public func removeAll(progress: ProgressHandler? = nil,
                          where shouldBeRemoved: (Record) -> Bool) throws(StoreError) -> [Record] {
        try removeLive(where: nil, progress: progress, shouldBeRemoved)
    }

    /// Removes, in one commit, the live records whose entries pass `candidate` and which `shouldBeRemoved`
    /// accepts, and returns them in log order.
    private func removeLive(where candidate: ((LiveEntry) -> Bool)?, progress: ProgressHandler?,
                            _ shouldBeRemoved: (Record) -> Bool) throws(StoreError) -> [Record] {
        try withTransaction(createsStore: false) { transaction throws(StoreError) -> [Record] in
            guard let handle = transaction.handle else { return [] }
            let (entries, version) = reader.withLock { _ in
                (handle.table.liveEntries.filter { candidate?($0) ?? true }, handle.state.recordVersion)
            }
            var removed: [Record] = []
            var read = 0
            try handle.forEachFrame(entries) { frame throws(StoreError) -> Bool in
                let record = try decode(frame, version: version)
                read += 1
                progress?(read, entries.count)
                guard shouldBeRemoved(record) else { return true }
                try transaction.stageRemoval(of: record.id)
                removed.append(record)
                return true
            }
            return removed
        } ?? []
    }

    /// A read-modify-write of the whole store: `body` gets every record under the store's lock and returns
    /// whether it changed them; the store is rewritten (to a temporary file renamed into place) only if it did.
    /// Throwing from `body` writes nothing. When the store's directory does not exist, `body` first runs on no
    /// records to see whether it writes at all (so that a change that writes nothing creates nothing), then
    /// again under the lock: derive everything from the records it is given. Costs time in proportion to the
    /// store; prefer ``write(_:)``, whose cost follows what it changes.
    public func modify(_ body: (inout [Record]) throws(StoreError) -> Bool) throws(StoreError) {
        if try fileSystem.linkStatus(PathName.directory(of: path)) == nil {
            // Nothing is stored yet: see whether `body` writes at all before creating anything. It runs again
            // under the lock below, on what is stored by then.
            var records: [Record] = []
            guard try body(&records) else { return }
        }
        try locked(createsDirectory: true) { () throws(StoreError) in
            var durabilityDoubt: StoreError?
            var records: [Record] = []
            let handle = try writableHandle(durabilityDoubt: &durabilityDoubt)
            if let handle {
                let (entries, version) = reader.withLock { _ in (handle.table.liveEntries, handle.state.recordVersion) }
                try handle.forEachFrame(entries) { frame throws(StoreError) -> Bool in
                    records.append(try decode(frame, version: version))
                    return true
                }
            }
            if try body(&records) { try install(records, replacing: handle) }
            if let durabilityDoubt { throw durabilityDoubt }
        }
    }
}

extension ArchiveRepository where Record: ExpiringRecord {
    /// Removes and returns the records whose ``ExpiringRecord/expiryDate`` is at or before `date`, in one
    /// commit. They are found from the table of live records alone and only they are decoded, so the cost
    /// follows the number removed, not the size of the store. `progress` counts the expired records read, of
    /// those found.
    @discardableResult
    public func removeExpired(at date: Date, progress: ProgressHandler? = nil) throws(StoreError) -> [Record] {
        let limit = date.timeIntervalSince1970
        return try removeLive(where: { $0.expiry.map { $0 <= limit } ?? false }, progress: progress) { _ in true }
    }
}
