import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

/// A power cut at any point of any repository operation, in every state the crash model allows (see
/// ``CrashModel``): every state opens; nothing acknowledged is lost, nothing removed comes back, nothing never
/// written appears (the store is the one before or the one after, whole); and the next write works.
@Suite("Repository: power cuts")
struct RepositoryCrashTests {
    enum Operation: String, CaseIterable {
        case addToAbsentStore, add, update, remove, purge, importSkippingExisting, export, addMergingTheIndex,
             removeCompactingTheLog, addMigratingASingleArchive, recover, transaction, importWritingAhead, addExtendingTheLog
    }

    static let storeName = RecordLogFaultTests.storeName
    static let exportName = "data/export.archive"

    static func repository(_ root: String, _ operation: Operation, _ fileSystem: FileSystem = .kernel) -> ArchiveRepository<SampleRecord> {
        var options = RepositoryOptions()
        if let faulted = RecordLogFaultTests.Operation(rawValue: operation.rawValue) { options.tuning = RecordLogFaultTests.tuning(faulted) }
        options.fileSystem = fileSystem
        return ArchiveRepository<SampleRecord>(path: root + "/" + storeName, options: options)
    }

    /// A store whose damage hides commits: its slots are those of its second add (as after a power cut that
    /// lost the later slot writes), and the frame of its third add is damaged while the fourth add's commit
    /// follows it through the chain.
    static func damagedStore(in root: String) throws -> [SampleRecord] {
        let repository = Self.repository(root, .recover)
        let records = sampleRecords(0..<4)
        let path = root + "/" + storeName
        try repository.add(records[0])
        try repository.add(records[1])
        let prologue = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))[0..<RecordLog.firstFrame]
        // Where the third add's frame goes: the committed length (the file runs on, zeros written ahead).
        let third = try RecordLog.prologue(Array(prologue), path: path).state.committed
        try repository.add(records[2])
        try repository.add(records[3])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.replaceSubrange(0..<RecordLog.firstFrame, with: prologue)
        bytes[third + 60] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return [records[0], records[1], records[3]]
    }

    @Test(arguments: Operation.allCases)
    func everyCrashStateOpensWithTheStoreBeforeOrAfterAndTakesTheNextWrite(operation: Operation) throws {
        var before: [SampleRecord] = []
        var after: [SampleRecord] = []
        let report = try CrashSweep.run(operation.rawValue, setUp: { root in
            switch operation {
            case .export:
                before = try RecordLogFaultTests.setUp(.add, in: root)
                after = before
            case .recover:
                after = try Self.damagedStore(in: root)
                before = after
            default:
                let faulted = try #require(RecordLogFaultTests.Operation(rawValue: operation.rawValue))
                before = try RecordLogFaultTests.setUp(faulted, in: root)
                after = RecordLogFaultTests.expected(faulted, after: before)
            }
        }, operate: { root, fileSystem in
            let repository = Self.repository(root, operation, fileSystem)
            switch operation {
            case .export: try repository.exportArchive(to: root + "/" + Self.exportName)
            case .recover: try repository.recoverDamagedCommit()
            default: try RecordLogFaultTests.perform(try #require(RecordLogFaultTests.Operation(rawValue: operation.rawValue)), on: repository)
            }
        }, check: { root, acknowledged in
            try Self.check(root, operation, before: before, after: after, acknowledged: acknowledged)
        })
        #expect(report.failures == [], "\(report)")
        #expect(report.points > 3 && report.states >= report.points, "\(report)")
    }

    /// What is wrong with one crash state.
    static func check(_ root: String, _ operation: Operation, before: [SampleRecord], after: [SampleRecord],
                      acknowledged: Bool) throws -> [String] {
        var problems: [String] = []
        let repository = Self.repository(root, operation)
        let records: [SampleRecord]
        do {
            records = try repository.records()
        } catch where operation == .recover && !acknowledged && error.code == .damagedCommit {
            // Still the damaged store: the recovery had not taken effect. It must work now.
            try repository.recoverDamagedCommit()
            records = try repository.records()
        } catch {
            return ["the store does not open: \(error)"]
        }
        if acknowledged {
            if records != after { problems.append("acknowledged, but the store holds \(records.map(\.id)), not \(after.map(\.id))") }
        } else if records != before && records != after {
            problems.append("the store holds \(records.map(\.id)): neither the one before nor the one after")
        }
        for record in before + after where try repository.get(record.id) != records.first(where: { $0.id == record.id }) {
            problems.append("get \(record.id) disagrees with all()")
        }
        if try repository.count() != records.count { problems.append("count disagrees with all()") }
        if operation == .export {
            let export = root + "/" + exportName
            if let bytes = FileManager.default.contents(atPath: export) {
                let exported = try ArchiveRepository<SampleRecord>.records(inArchive: [UInt8](bytes), source: export)
                if exported != before { problems.append("the export holds \(exported.map(\.id))") }
            } else if acknowledged {
                problems.append("acknowledged, but there is no export")
            }
        }
        try repository.add(FullDiskAndDirectoryDurabilityTests.next)
        if try repository.records().map(\.id) != records.map(\.id) + ["next"] { problems.append("the next write did not read back") }
        return problems
    }
}
