import KeyedArchive

/// The root object of one keyed archive holding every record of a repository: `ArchiveRepositoryFile
/// {version, records}`. Stores were kept this way before the record log (they are still read, and migrated on
/// the first change); ``ArchiveRepository/exportArchive(to:progress:)`` writes it, for Apple's `NSKeyedUnarchiver`.
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
                "store format version \(version) is newer than this build's \(current); open it with a newer version of the program that wrote it")
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
}
