import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// The long operations tell a progress handler how far they are, in the units they document, ending at their
/// total (what the command-line tools' progress line draws).
@Suite("Progress of long operations")
struct ProgressReportingTests {
    func forms(_ directory: TemporaryDirectory) -> ArchiveRepository<SampleRecord> {
        ArchiveRepository<SampleRecord>(path: directory.file("Forms.archive"))
    }

    @Test func repositoryAddExportRemoveExpiredAndRemoveAllCountRecords() throws {
        let directory = try TemporaryDirectory()
        let repository = forms(directory)
        let adding = ProgressLog()
        try repository.add(contentsOf: sampleRecords(0..<40, expiringAt: 2_000) + sampleRecords(40..<100, expiringAt: 9_000),
                           skippingExisting: false, progress: adding.handler)
        #expect(adding.completed == Array(1...100))
        #expect(adding.totals == [100])

        let exporting = ProgressLog()
        try repository.exportArchive(to: directory.file("export.archive"), progress: exporting.handler)
        #expect(exporting.completed == Array(1...100))
        #expect(exporting.totals == [100])

        let expiring = ProgressLog()
        let removed = try repository.removeExpired(at: Date(timeIntervalSince1970: 3_000), progress: expiring.handler)
        #expect(removed.count == 40)
        #expect(expiring.completed == Array(1...40))
        #expect(expiring.totals == [40])

        let clearing = ProgressLog()
        #expect(try repository.removeAll(progress: clearing.handler) { _ in true }.count == 60)
        #expect(clearing.completed == Array(1...60))
        #expect(clearing.totals == [60])
    }

    @Test func cacheTrimCountsBytesGivenBackUpToWhatWasOver() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20))
        for i in 0..<300 { try cache.set(payload("k\(i)", i, size: 2_000), forKey: "k\(i)") }
        let before = cache.statistics.byteCount
        let limit = 256 << 10
        let trimming = ProgressLog()
        try cache.trim(toByteLimit: limit, progress: trimming.handler)
        #expect(cache.statistics.byteCount <= limit)
        #expect(trimming.totals == [before - limit])
        #expect(trimming.isMonotonic)
        #expect(trimming.completed.last == before - limit)
        #expect(trimming.calls.count >= 2)
    }

    @Test func cacheRemoveExpiredCountsEntriesAndRemoveAllCountsFiles() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(byteLimit: 1 << 20))
        for i in 0..<20 { try cache.set([UInt8(i)], forKey: "short\(i)", timeToLive: .seconds(1)) }
        for i in 0..<5 { try cache.set([UInt8](repeating: 1, count: 70_000), forKey: "large\(i)") }
        fixture.clock.advance(5)
        let expiring = ProgressLog()
        #expect(try cache.removeExpired(progress: expiring.handler) == 20)
        #expect(expiring.completed == Array(1...20))
        #expect(expiring.totals == [20])
        let files = fixture.segmentFiles().count + fixture.largeFiles().count
        let clearing = ProgressLog()
        #expect(try cache.removeAll(progress: clearing.handler) == 5)
        #expect(clearing.completed == Array(1...files))
        #expect(clearing.totals == [files])
        #expect(files >= 6)   // five large entries and a segment at least
    }
}
