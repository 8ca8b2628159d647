import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// The disk fills at every write, in turn, of a run of commits and queries on a store with property indexes
/// (their files written along the way): every change acknowledged is kept and every change refused is absent,
/// and queries, through the full disk and afterwards, return exactly what a full scan does. An index file cut
/// short is derived data: it costs a rebuild, never a wrong answer or a failed commit.
@Suite("Repository: a full disk with property indexes")
struct IndexDiskFullTests {
    @Test func aDiskThatFillsAtAnyWriteNeverCostsAnAnswer() throws {
        var fullAt = 1
        var filledIndexFile = false
        while true {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.file("data/Forms.archive")
            let setUp = ArchiveRepository<IndexedSample>(path: path)
            try setUp.add(contentsOf: sampleRecords(0..<12).map(IndexedSample.init))
            try setUp.prepareIndexes()
            setUp.close()
            var model = sampleRecords(0..<12)

            let disk = FillingDisk()
            var options = RepositoryOptions()
            options.fileSystem = disk.fileSystem
            options.tuning.maintainsInBackground = false
            options.tuning.mergeFrames = 2   // index files written often
            disk.arm(fullAt: fullAt)
            let full = ArchiveRepository<IndexedSample>(path: path, options: options)
            _ = try? full.prepareIndexes()
            for i in 0..<4 {
                var record = sampleRecords((20 + i)..<(21 + i))[0]
                record.name = "added \(i)"
                do {
                    try full.add(IndexedSample(record))
                    model.append(record)
                } catch {
                    #expect(error.code == .io, "at write \(fullAt): \(error)")
                }
                do {
                    _ = try full.remove("id\(i)")
                    model.removeAll { $0.id == "id\(i)" }
                } catch {
                    #expect(error.code == .io, "at write \(fullAt): \(error)")
                }
                if let found = try? full.ids(matching: RecordQuery().sorted(by: \.name)) {
                    #expect(found == Self.byName(model), "at write \(fullAt), through the full disk")
                }
            }
            full.close()
            if disk.filled?.contains(".index-") == true { filledIndexFile = true }
            let plain = ArchiveRepository<IndexedSample>(path: path)
            #expect(try plain.records().map(\.record) == model, "at write \(fullAt)")
            #expect(try plain.ids(matching: RecordQuery().sorted(by: \.name)) == Self.byName(model), "at write \(fullAt)")
            #expect(try plain.max(of: \.registeredAt) == model.map(\.registeredAt).max(), "at write \(fullAt)")
            if disk.filled == nil { break }   // every write of the run was tried
            fullAt += 1
        }
        #expect(fullAt > 10)
        #expect(filledIndexFile, "some run filled the disk while an index file was written")
    }

    static func byName(_ records: [SampleRecord]) -> [String] {
        records.enumerated().sorted { a, b in
            a.element.name != b.element.name ? a.element.name.utf8.lexicographicallyPrecedes(b.element.name.utf8) : a.offset < b.offset
        }.map(\.element.id)
    }
}
