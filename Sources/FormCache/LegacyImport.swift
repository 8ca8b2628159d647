#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import ArchiveStore

/// The iOS cache manager's model: `FormModel` (or `Model.FormModel`) with keys `id` (NSString),
/// `registerDatetime` (NSDate) and `name` (NSString).
struct LegacyFormModel: KeyedArchivable {
    static var archivedClassName: String { "FormModel" }

    var id: String
    var registerDatetime: Date
    var name: String

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(registerDatetime, forKey: "registerDatetime")
        coder.encode(name, forKey: "name")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        registerDatetime = try coder.decode(Date.self, forKey: "registerDatetime")
        name = try coder.decode(String.self, forKey: "name")
    }
}

/// What ``FormCache/importLegacy(file:)`` did.
public struct LegacyImportResult: Sendable, Hashable {
    /// The records added, in archive order.
    public var imported: [FormRecord]
    /// Ids present in the archive that were skipped because the store (or an earlier object in the archive)
    /// already had them.
    public var skippedIDs: [String]
}

extension FormCache {
    /// Imports a keyed archive of `FormModel` objects (one object or an array), as the iOS app's cache
    /// manager wrote with `NSKeyedArchiver`. Each becomes a record with no fields, registered at its
    /// `registerDatetime` and expiring `TimeToLive.defaultValue` after it. Ids already in the store are
    /// skipped, so importing twice adds nothing. Throws `StoreError.Code.invalidArchive` for a file that is
    /// not such an archive and `StoreError.Code.io` for one that cannot be read. `path` may name a pipe or a
    /// FIFO (`/dev/stdin`, `<(...)`): it is read to its end.
    public func importLegacy(file path: String) throws(StoreError) -> LegacyImportResult {
        try importLegacy(archive: try readImport(path), source: path)
    }

    /// Imports the legacy archive `bytes`; `source` names it in errors. See ``importLegacy(file:)``.
    public func importLegacy(archive bytes: [UInt8], source: String) throws(StoreError) -> LegacyImportResult {
        let records = try Self.legacyModels(in: bytes, source: source).map { model in
            FormRecord(id: model.id, name: model.name, registeredAt: model.registerDatetime, timeToLive: .defaultValue)
        }
        return try importRecords(records)
    }

    /// Imports a keyed archive of either kind: one that ``export(to:progress:)`` wrote (root `ArchiveRepositoryFile`,
    /// records kept as they are, with their own expiry), or a legacy one of `FormModel` objects (see
    /// ``importLegacy(file:)``). Ids already in the store are skipped. All added records are one commit.
    /// `path` may name a pipe or a FIFO, read to its end as `cat` reads it. `progress` counts the exported
    /// records archived for the store, of those in the file.
    public func importArchive(file path: String, progress: ProgressHandler? = nil) throws(StoreError) -> LegacyImportResult {
        let bytes = try readImport(path)
        if let records = try? ArchiveRepository<FormRecord>.records(inArchive: bytes, source: path) {
            return try importRecords(records, progress: progress)
        }
        return try importLegacy(archive: bytes, source: path)
    }

    /// The largest archive imported: 1 GiB.
    static let largestImport = 1 << 30

    /// The bytes of the file to import, through the store's file system.
    private func readImport(_ path: String) throws(StoreError) -> [UInt8] {
        try repository.options.fileSystem.readInput(path, limit: Self.largestImport)
    }

    /// Adds the records whose ids are free, in one commit.
    private func importRecords(_ records: [FormRecord], progress: ProgressHandler? = nil) throws(StoreError) -> LegacyImportResult {
        var skipped: [FormRecord] = []
        try repository.add(contentsOf: records, skippingExisting: true, progress: progress, skipped: { skipped.append($0) })
        // The skipped records come in the order of `records`: every other record was added. (Two equal records
        // are interchangeable, so matching by value is exact.)
        var imported: [FormRecord] = []
        imported.reserveCapacity(records.count - skipped.count)
        var next = 0
        for record in records {
            if next < skipped.count, skipped[next] == record {
                next += 1
            } else {
                imported.append(record)
            }
        }
        return LegacyImportResult(imported: imported, skippedIDs: skipped.map(\.id))
    }

    static func legacyModels(in bytes: [UInt8], source: String) throws(StoreError) -> [LegacyFormModel] {
        let root: Any?
        do {
            root = try KeyedUnarchiver.unarchivedObject(
                ofType: Any.self, from: bytes, registry: ClassRegistry([LegacyFormModel.self]))
        } catch {
            throw StoreError(.invalidArchive, "not a keyed archive of FormModel objects: \(error)", path: source)
        }
        if let model = root as? LegacyFormModel { return [model] }
        guard let array = root as? [Any] else {
            throw StoreError(.invalidArchive, "the root object is neither a FormModel nor an array of them", path: source)
        }
        var models: [LegacyFormModel] = []
        for (index, element) in array.enumerated() {
            guard let model = element as? LegacyFormModel else {
                throw StoreError(.invalidArchive, "array element \(index) is not a FormModel", path: source)
            }
            models.append(model)
        }
        return models
    }
}
