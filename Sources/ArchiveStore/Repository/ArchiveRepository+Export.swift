import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The store as one keyed archive (export), and a damaged store moved aside.
extension ArchiveRepository {
    /// Writes every record as one ordinary keyed archive to `destination` (replaced atomically, mode 0600):
    /// root object `ArchiveRepositoryFile` with keys `version` and `records` (an NSArray of the records), as
    /// stores were kept before the record log. Apple's `NSKeyedUnarchiver` reads it; so does
    /// ``records(inArchive:source:)``, so that ``add(contentsOf:skippingExisting:progress:skipped:)`` can take it back.
    /// `progress` counts the records read, of the store's count.
    public func exportArchive(to destination: String, progress: ProgressHandler? = nil) throws(StoreError) {
        let total = progress == nil ? nil : try count()
        var records: [Record] = []
        try forEach { record throws(StoreError) in
            records.append(record)
            progress?(records.count, total)
        }
        let bytes = try RepositoryFile.encode(records, path: destination)
        try AtomicReplace.replace(destination, with: bytes, fileSystem: fileSystem)
    }

    /// The records of an archive that ``exportArchive(to:progress:)`` wrote (or a store file from before the record
    /// log). Throws ``StoreError/Code/corrupt`` for anything else.
    public static func records(inArchive bytes: [UInt8], source: String) throws(StoreError) -> [Record] {
        try RepositoryFile<Record>.decode(bytes, path: source).records
    }

    // MARK: Corrupt stores

    /// Renames an unreadable store (damaged, or written at a newer format version) to `<path>.<suffix>` (and
    /// removes its index) so that a fresh one can be started, and returns the new path. Throws ``StoreError/Code/invalidArgument`` if the store can be read
    /// in full (nothing is moved), and ``StoreError/Code/notFound`` if there is no store.
    public func moveAside(suffix: String) throws(StoreError) -> String {
        guard try fileSystem.linkStatus(path) != nil else {
            throw StoreError(.notFound, "there is no store file to move aside", path: path)
        }
        let moved = try locked(createsDirectory: false) { () throws(StoreError) -> String in
            do throws(StoreError) {
                // Every frame read, commits past the newest slot and damage hiding some included.
                switch try StoreHandle.open(path, fileSystem: fileSystem, counters: counters, unpublished: .held) {
                case .absent:
                    throw StoreError(.notFound, "there is no store file to move aside", path: path)
                case .singleArchive(let bytes):
                    _ = try RepositoryFile<Record>.decode(bytes, path: path)
                case .log(let handle):
                    try checkVersion(handle.state.recordVersion)
                    let version = handle.state.recordVersion
                    try handle.forEachFrame(handle.table.liveEntries) { frame throws(StoreError) -> Bool in
                        _ = try decode(frame, version: version)
                        return true
                    }
                }
            } catch where [.corrupt, .unsupportedVersion, .damagedCommit].contains(error.code) {
                let destination = path + "." + suffix
                guard try fileSystem.linkStatus(destination) == nil else {
                    throw StoreError(.io, "cannot move the store aside: the destination exists", path: destination)
                }
                // The file is kept as it is (no retired mark written into it): readers elsewhere notice the
                // move by the store's identity.
                reader.withLock { $0.handle = nil }
                try fileSystem.rename(path, destination)
                _ = try? fileSystem.unlink(indexPath)
                try AtomicReplace.syncDirectory(of: path, fileSystem: fileSystem)
                return destination
            }
            throw StoreError(.invalidArgument, "the store file is readable; nothing was moved", path: path)
        }
        guard let moved else { throw StoreError(.notFound, "there is no store file to move aside", path: path) }
        return moved
    }
}
