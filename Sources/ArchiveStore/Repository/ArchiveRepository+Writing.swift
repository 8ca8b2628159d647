import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The changes: each takes the writer lock, commits once and releases the lock before it returns.
extension ArchiveRepository {
    /// Adds `record`; throws ``StoreError/Code/duplicateID`` if its id is taken.
    public func add(_ record: Record) throws(StoreError) {
        let payload = try archived(record)
        try withWriter(createsStore: true) { snapshot throws(StoreError) in
            let key = Self.key(record.id)
            guard try snapshot.locate(key) == nil else { throw RepositoryFile<Record>.duplicateID(record.id, path: path) }
            try snapshot.commit([.put(key: key, expiry: Self.expiry(record), payload: payload, replacing: nil)])
        }
    }

    /// Adds every record of `records` in one commit, and returns those added. With `skippingExisting`, a
    /// record whose id is taken (in the store, or earlier in `records`) is left out; without it, such a record
    /// throws ``StoreError/Code/duplicateID`` and nothing is added. `progress` counts the records archived, of
    /// `records.count`.
    @discardableResult
    public func add(contentsOf records: [Record], skippingExisting: Bool,
                    progress: ProgressHandler? = nil) throws(StoreError) -> [Record] {
        var frames: [(Record, [UInt8])] = []
        frames.reserveCapacity(records.count)
        for record in records {
            frames.append((record, try archived(record)))
            progress?(frames.count, records.count)
        }
        guard !frames.isEmpty else { return [] }
        return try withWriter(createsStore: true) { snapshot throws(StoreError) -> [Record] in
            var taken: Set<[UInt8]> = []
            var added: [Record] = []
            var changes: [StoreSnapshot.Change] = []
            for (record, payload) in frames {
                let key = Self.key(record.id)
                guard try snapshot.locate(key) == nil, taken.insert(key).inserted else {
                    if skippingExisting { continue }
                    throw RepositoryFile<Record>.duplicateID(record.id, path: path)
                }
                changes.append(.put(key: key, expiry: Self.expiry(record), payload: payload, replacing: nil))
                added.append(record)
            }
            try snapshot.commit(changes)
            return added
        } ?? []
    }

    /// Replaces the record with `record`'s id; throws ``StoreError/Code/notFound`` if there is none.
    public func update(_ record: Record) throws(StoreError) {
        let payload = try archived(record)
        let found = try withWriter(createsStore: false) { snapshot throws(StoreError) -> Bool in
            let key = Self.key(record.id)
            guard let old = try snapshot.locate(key) else { return false }
            try snapshot.commit([.put(key: key, expiry: Self.expiry(record), payload: payload, replacing: old)])
            return true
        }
        guard found == true else {
            throw StoreError(.notFound, "no record has this id", path: path, recordID: "\(record.id)")
        }
    }

    /// Changes the record with `id` in place, under the store's lock (no other change can come between the
    /// read and the write), and returns it as stored; `nil` (nothing written) when there is none or `change`
    /// returns `false`. The id may not change. `change` must not call this repository (it holds its lock).
    @discardableResult
    public func update(_ id: Record.ID, _ change: (inout Record) throws(StoreError) -> Bool) throws(StoreError) -> Record? {
        try withWriter(createsStore: false) { snapshot throws(StoreError) -> Record? in
            let key = Self.key(id)
            guard let old = try snapshot.locate(key) else { return nil }
            var record = try decode(try snapshot.frame(at: old), snapshot)
            guard try change(&record) else { return nil }
            guard Self.key(record.id) == key else {
                throw StoreError(.invalidArgument, "an update may not change the record's id", path: path, recordID: "\(id)")
            }
            try snapshot.commit([.put(key: key, expiry: Self.expiry(record), payload: try archived(record), replacing: old)])
            return record
        } ?? nil
    }

    /// Replaces the record with `record`'s id, or adds `record` if there is none.
    public func upsert(_ record: Record) throws(StoreError) {
        let payload = try archived(record)
        try withWriter(createsStore: true) { snapshot throws(StoreError) in
            let key = Self.key(record.id)
            try snapshot.commit([.put(key: key, expiry: Self.expiry(record), payload: payload, replacing: try snapshot.locate(key))])
        }
    }

    /// Removes and returns the record with `id`, or returns `nil` (and writes nothing) if there is none.
    @discardableResult
    public func remove(_ id: Record.ID) throws(StoreError) -> Record? {
        try withWriter(createsStore: false) { snapshot throws(StoreError) -> Record? in
            let key = Self.key(id)
            guard let location = try snapshot.locate(key) else { return nil }
            let record = try decode(try snapshot.frame(at: location), snapshot)
            try snapshot.commit([.delete(key: key, replacing: location)])
            return record
        } ?? nil
    }

    /// Removes and returns every record for which `shouldBeRemoved` is true, in one commit (writes nothing if
    /// none is). Every record is decoded; ``removeExpired(at:progress:)`` decodes only the records it removes.
    /// `progress` counts the records read, of the store's count.
    @discardableResult
    public func removeAll(progress: ProgressHandler? = nil,
                          where shouldBeRemoved: (Record) -> Bool) throws(StoreError) -> [Record] {
        try withWriter(createsStore: false) { snapshot throws(StoreError) -> [Record] in
            var removed: [Record] = []
            var changes: [StoreSnapshot.Change] = []
            var read = 0
            try snapshot.forEachLiveFrame { frame throws(StoreError) in
                let record = try decode(frame, snapshot)
                read += 1
                progress?(read, snapshot.state.liveCount)
                guard shouldBeRemoved(record) else { return }
                removed.append(record)
                changes.append(.delete(key: frame.key, replacing: FrameLocation(
                    kind: .put, offset: frame.offset, ordinal: frame.ordinal, length: frame.header.length,
                    expiryBits: frame.header.expiryBits)))
            }
            try snapshot.commit(changes)
            return removed
        } ?? []
    }

    /// Removes and returns the records whose ``ArchiveRecord/expiryDate`` is at or before `date`, in one
    /// commit. They are found from the index alone and only they are decoded, so the cost follows the number
    /// removed, not the size of the store. `progress` counts the expired records read, of those found.
    @discardableResult
    public func removeExpired(at date: Date, progress: ProgressHandler? = nil) throws(StoreError) -> [Record] {
        try withWriter(createsStore: false) { snapshot throws(StoreError) -> [Record] in
            let expired = try expiredRecords(in: snapshot, at: date, progress: progress)
            try snapshot.commit(expired.map { .delete(key: $0.key, replacing: $0.location) })
            return expired.map(\.record)
        } ?? []
    }

    /// A read-modify-write of the whole store: `body` gets every record under both locks and returns whether
    /// it changed them; the store is rewritten (to a temporary file renamed into place) only if it did.
    /// Throwing from `body` writes nothing. When the store's directory does not exist, `body` first runs on no
    /// records to see whether it writes at all (so that a change that writes nothing creates nothing), then
    /// again under the locks: derive everything from the records it is given. Costs time in proportion to the
    /// store; prefer the calls above.
    public func modify(_ body: (inout [Record]) throws(StoreError) -> Bool) throws(StoreError) {
        if try fileSystem.linkStatus(PathName.directory(of: path)) == nil {
            // Nothing is stored yet: see whether `body` writes at all before creating anything. It runs again
            // under the locks below, on what is stored by then.
            var records: [Record] = []
            guard try body(&records) else { return }
        }
        try locked(createsDirectory: true) { () throws(StoreError) in
            var records: [Record] = []
            var durabilityDoubt: StoreError?
            if let snapshot = try openForWriting(createsStore: false, durabilityDoubt: &durabilityDoubt) {
                try snapshot.forEachLiveFrame { frame throws(StoreError) in records.append(try decode(frame, snapshot)) }
            }
            if try body(&records) { try install(records) }
            if let durabilityDoubt { throw durabilityDoubt }
        }
    }

    /// A new log holding `records` (at the current version), renamed over the store. Duplicate ids keep the
    /// first record.
    func install(_ records: [Record]) throws(StoreError) {
        var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: Record.archiveFormatVersion)
        do throws(StoreError) {
            var seen: Set<[UInt8]> = []
            for record in records {
                let key = Self.key(record.id)
                guard seen.insert(key).inserted else { continue }
                try builder.add(key: key, expiry: Self.expiry(record), payload: try archived(record))
            }
        } catch {
            builder.abandon()
            throw error
        }
        try builder.install()
    }
}
