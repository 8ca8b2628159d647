import KeyedArchive

/// The root object of a repository's archive: `ArchiveRepositoryFile {version, records}`.
package struct RepositoryFile<Record: ArchiveRecord>: KeyedArchivable {
    package static var archivedClassName: String { "ArchiveRepositoryFile" }

    var version: Int
    var records: [Record]

    init(records: [Record]) {
        version = Record.archiveFormatVersion
        self.records = records
    }

    package func encode(with coder: KeyedArchiver) {
        coder.encode(version, forKey: "version")
        coder.encode(records, forKey: "records")
    }

    package init(coder: KeyedUnarchiver) throws {
        version = try coder.decode(Int.self, forKey: "version")
        let current = Record.archiveFormatVersion
        if version > current {
            throw StoreError(
                .unsupportedVersion,
                "store format version \(version) is newer than this build's \(current); use a newer formcache")
        }
        records = version == current
            ? try coder.decode([Record].self, forKey: "records")
            : try Record.migrateRecords(fromVersion: version, coder: coder)
    }

    package static var registry: ClassRegistry {
        ClassRegistry([RepositoryFile<Record>.self, Record.self] + Record.nestedArchivableTypes)
    }

    /// The archive bytes for `records` at the current version, read back before they are returned: a record
    /// that archives to something the unarchiver refuses (a date of infinity, say) is refused here, so the
    /// repository never writes a file it cannot read.
    /// - Throws: ``StoreError/Code/invalidArgument`` when the records cannot be archived or would not read back.
    package static func encode(_ records: [Record], path: String) throws(StoreError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try KeyedArchiver.archivedData(withRootObject: RepositoryFile(records: records))
        } catch {
            throw StoreError(.invalidArgument, "cannot archive the records: \(error)", path: path)
        }
        do throws(StoreError) {
            let (decoded, _) = try decode(bytes, path: path)
            guard decoded.map(\.id) == records.map(\.id) else {
                throw StoreError(.invalidArgument, "the archived records read back with other ids", path: path)
            }
        } catch {
            throw StoreError(.invalidArgument, "the records would not read back, so nothing was written: \(error.reason)", path: path)
        }
        return bytes
    }

    /// The records and version in `bytes`. Anything unreadable is ``StoreError/Code/corrupt``.
    package static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> (records: [Record], version: Int) {
        do {
            // Read as before secure coding became the one-call default, as the quick paths (withUnarchiver)
            // read: record types and their migrations may decode values without naming their types, and a
            // store that opened yesterday must open today.
            guard let file = try KeyedUnarchiver.unarchivedObject(ofType: RepositoryFile<Record>.self, from: bytes, registry: registry,
                                                                  requiresSecureCoding: false)
            else { throw StoreError(.corrupt, "the archive's root object is nil", path: path) }
            return (file.records, file.version)
        } catch let error as StoreError {
            var error = error
            error.path = path
            throw error
        } catch {
            throw StoreError(.corrupt, "cannot read the store (\(bytes.count) bytes): \(error)", path: path)
        }
    }

    /// The error of an `add` whose id is taken.
    static func duplicateID(_ id: Record.ID, path: String) -> StoreError {
        StoreError(.duplicateID, "a record with this id already exists", path: path, recordID: "\(id)")
    }

    // MARK: Reading and adding without decoding every record

    /// Runs `body` with an unarchiver positioned on the root object and the records' UIDs, when `bytes` is a
    /// store at the current format version; `nil` otherwise (another version, or not a store file).
    static func withRecords<R>(_ bytes: [UInt8], _ body: (KeyedUnarchiver, [Int]) throws -> R) throws -> R? {
        try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry) { coder in
            guard let root = try coder.objectUID(forKey: "root") else { return nil }
            return try coder.visitObject(root, key: "root") { () throws -> R? in
                guard coder.currentClassChain.first == archivedClassName,
                      try coder.decode(Int.self, forKey: "version") == Record.archiveFormatVersion
                else { return nil }
                return try body(coder, try coder.elementUIDs(forKey: "records"))
            }
        }
    }

    /// Where the record with an id is, found by reading each record's id alone.
    enum Search {
        /// The UID of the first record with the id.
        case found(Int)
        /// No record has the id.
        case absent
        /// The record type does not read ids alone (``ArchiveRecord/decodeID(from:)`` returned `nil`).
        case unsupported
    }

    /// Looks for the record with `id` among `uids`, reading ids alone, first to last.
    static func search(_ id: Record.ID, in uids: [Int], _ coder: KeyedUnarchiver) throws -> Search {
        for uid in uids {
            let candidate = try coder.visitObject(uid, key: "records", as: Record.self) { try Record.decodeID(from: coder) }
            guard let candidate else { return .unsupported }
            if candidate == id { return .found(uid) }
        }
        return .absent
    }

    /// What a lookup that decodes one record found.
    enum Lookup {
        /// The record with the id, or `nil` when no record has it.
        case found(Record?)
        /// The quick lookup does not apply (no ``ArchiveRecord/decodeID(from:)``, another format version,
        /// XML, anything unexpected): decode the whole file instead, which also reports any damage.
        case needsFullDecode
    }

    /// Finds the record with `id` by reading ids alone and decoding only that record.
    static func find(_ id: Record.ID, in bytes: [UInt8]) -> Lookup {
        let lookup = try? withRecords(bytes) { coder, uids -> Lookup in
            switch try search(id, in: uids, coder) {
            case .found(let uid): return .found(try coder.decodeObject(Record.self, uid: uid, key: "records"))
            case .absent: return .found(nil)
            case .unsupported: return .needsFullDecode
            }
        }
        return (lookup ?? nil) ?? .needsFullDecode
    }

    /// `bytes` with `record` appended at the end of the records, every stored object kept byte for byte
    /// (``KeyedArchiveAppender``), or `nil` when the quick path does not apply and the file must be written in
    /// full. The result is read back before it is returned: its records must be the old ones, in order, then
    /// one that decodes to a record with `record`'s id.
    /// - Throws: ``StoreError/Code/duplicateID`` when a record has `record`'s id.
    package static func appending(_ record: Record, to bytes: [UInt8], path: String) throws(StoreError) -> [UInt8]? {
        let scan = try? withRecords(bytes) { coder, uids in (uids, try search(record.id, in: uids, coder)) }
        guard let (uids, search) = scan ?? nil else { return nil }
        switch search {
        case .unsupported: return nil
        case .found: throw duplicateID(record.id, path: path)
        case .absent: break
        }
        guard let (appended, uid) = (try? KeyedArchiveAppender.appending(record, toArrayAt: ["root", "records"], in: bytes)) ?? nil
        else { return nil }
        let readBack = try? withRecords(appended) { coder, newUIDs in
            guard newUIDs.count == uids.count + 1, newUIDs.last == uid, newUIDs.dropLast().elementsEqual(uids) else {
                return false
            }
            return try coder.decodeObject(Record.self, uid: uid, key: "records").id == record.id
        }
        return readBack == true ? appended : nil
    }
}
