import ArchiveStore
import FormCache
import Foundation
import Testing
import TestSupport

/// FormCache on the record store: its import, export and purge as the repository does them, and its store file
/// as Foundation reads it (moved here from ArchiveStoreTests, which no longer depends on FormCache).
@Suite("FormCache on the record store")
struct FormCacheStoreTests {
    private struct FixedClock: StoreClock {
        let date: Date
        func now() -> Date { date }
    }

    /// A legacy import whose archive holds the same id twice: the second copy is skipped, but
    /// `skippedIDs` (documented to list ids skipped because "an earlier object in the archive" had them)
    /// does not name it, because the skipped list is computed as "ids not added".
    @Test func importReportsAnIdRepeatedInsideTheArchiveAsSkipped() throws {
        let directory = try TemporaryDirectory()
        let cache = FormCache(directory: directory.file("cache"))
        let record = FormRecord(id: "id0", name: "name0", fields: ["k": "v0"], registeredAt: Date(timeIntervalSince1970: 1_000),
                                expiresAt: Date(timeIntervalSince1970: 4_000_000_000))
        let bytes = try RepositoryFile<FormRecord>.encode([record, record], path: "dup")
        try directory.write(bytes, to: "dup.archive")
        let result = try cache.importArchive(file: directory.file("dup.archive"))
        #expect(result.imported.map(\.id) == ["id0"])
        #expect(result.skippedIDs == ["id0"], "skipped: \(result.skippedIDs)")
    }

    @Test func formCacheImportExportAndPurgeReportThroughTheRepository() throws {
        let directory = try TemporaryDirectory()
        let source = FormCache(directory: directory.file("source"))
        for i in 0..<30 { try source.add(name: "form-\(i)", fields: ["i": "\(i)"], timeToLive: i < 10 ? .seconds(1) : .days(1)) }
        let exporting = ProgressLog()
        #expect(try source.export(to: directory.file("forms.archive"), progress: exporting.handler) == 30)
        #expect(exporting.completed.last == 30 && exporting.isMonotonic && exporting.totals == [30])

        let target = FormCache(directory: directory.file("target"))
        let importing = ProgressLog()
        let result = try target.importArchive(file: directory.file("forms.archive"), progress: importing.handler)
        #expect(result.imported.count == 30)
        #expect(importing.completed == Array(1...30))

        let purging = ProgressLog()
        #expect(try target.purge(all: true, progress: purging.handler).count == 30)
        #expect(purging.completed == Array(1...30))
    }

    @Test func foundationReadsTheExportedArchive() throws {
        let directory = try TemporaryDirectory()
        let clock = FixedClock(date: Date(timeIntervalSince1970: 1_800_000_000))
        let cache = FormCache(directory: directory.path, clock: clock)
        var added: [FormRecord] = []
        for i in 0..<12 {
            added.append(try cache.add(name: "form \(i)", fields: ["email": "u\(i)@example.com", "n": "\(i)"]))
        }
        try cache.repository.exportArchive(to: directory.file("export.archive"))
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("export.archive")))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FoundationStoreFile.self, forClassName: "ArchiveRepositoryFile")
        unarchiver.setClass(FoundationFormRecord.self, forClassName: "FormRecord")
        let root = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FoundationStoreFile)
        #expect(root.version == 1)
        #expect(root.records.map(\.id) == added.map(\.id))
        #expect(root.records.map(\.name) == added.map(\.name))
        #expect(root.records.map(\.fields) == added.map(\.fields))
        #expect(root.records.map(\.expiresAt) == added.map(\.expiresAt))
    }
}

/// Foundation's view of the store file, for the compatibility test.
final class FoundationStoreFile: NSObject, NSCoding {
    let version: Int
    let records: [FoundationFormRecord]
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {
        version = coder.decodeInteger(forKey: "version")
        records = coder.decodeObject(forKey: "records") as? [FoundationFormRecord] ?? []
    }
}

final class FoundationFormRecord: NSObject, NSCoding {
    let id: String
    let name: String
    let fields: [String: String]
    let expiresAt: Date
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {
        guard let id = coder.decodeObject(forKey: "id") as? String, let name = coder.decodeObject(forKey: "name") as? String,
              let fields = coder.decodeObject(forKey: "fields") as? [String: String],
              let expiresAt = coder.decodeObject(forKey: "expiresAt") as? Date
        else { return nil }
        (self.id, self.name, self.fields, self.expiresAt) = (id, name, fields, expiresAt)
    }
}
