import KeyedArchive

/// The root object of a repository's archive: `ArchiveRepositoryFile {version, records}`.
struct RepositoryFile<Record: ArchiveRecord>: KeyedArchivable {
    static var archivedClassName: String { "ArchiveRepositoryFile" }

    var version: Int
    var records: [Record]

    init(records: [Record]) {
        version = Record.archiveFormatVersion
        self.records = records
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(version, forKey: "version")
        coder.encode(records, forKey: "records")
    }

    init(coder: KeyedUnarchiver) throws {
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

    static var registry: ClassRegistry {
        ClassRegistry([RepositoryFile<Record>.self, Record.self] + Record.nestedArchivableTypes)
    }

    /// The archive bytes for `records` at the current version.
    static func encode(_ records: [Record], path: String) throws(StoreError) -> [UInt8] {
        do {
            return try KeyedArchiver.archivedData(withRootObject: RepositoryFile(records: records))
        } catch {
            throw StoreError(.invalidArgument, "cannot archive the records: \(error)", path: path)
        }
    }

    /// The records and version in `bytes`. Anything unreadable is ``StoreError/Code/corrupt``.
    static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> (records: [Record], version: Int) {
        do {
            guard let file = try KeyedUnarchiver.unarchivedObject(ofType: RepositoryFile<Record>.self, from: bytes, registry: registry)
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
}
