import Foundation
import Testing
import TestSupport
@testable import ArchiveStore
import ArchivePlatform

/// Every single fault (EIO, ENOSPC, a short write) at every file-system call of each kind of change to a
/// record-log store: the store reads back with every record acknowledged before, and the change is either
/// all there (it returned, or said its durability is unknown) or not there at all.
@Suite("Record log: faults")
struct RecordLogFaultTests {
    enum Operation: String, CaseIterable {
        case addToAbsentStore, add, addMigratingASingleArchive, update, remove, purge, addMergingTheIndex,
             removeCompactingTheLog, importSkippingExisting, transaction, importWritingAhead, addExtendingTheLog
    }

    /// What `importWritingAhead` adds: enough records to be written ahead of their commit in several pieces.
    static let importBatch = sampleRecords(100..<130)

    /// In a directory of its own, which the store's first write creates.
    static let storeName = "data/Forms.archive"

    static let new = SampleRecord(id: "new", name: "new", fields: ["f": "1"], registeredAt: Date(timeIntervalSince1970: 1_000),
                                expiresAt: Date(timeIntervalSince1970: 9_000))

    static func tuning(_ operation: Operation) -> StoreTuning {
        var tuning = StoreTuning()
        tuning.maintainsInBackground = false   // the index written inside the operation, where its calls are counted
        if operation == .addMergingTheIndex { tuning.mergeFrames = 3 }
        if operation == .removeCompactingTheLog { tuning.compactionFloor = 0 }
        if operation == .importWritingAhead { tuning.writeAheadBytes = 1_024 }
        return tuning
    }

    /// The store before the operation, written without faults into `directory`.
    static func setUp(_ operation: Operation, in directory: TemporaryDirectory) throws -> [SampleRecord] {
        try setUp(operation, in: directory.path)
    }

    /// The store before the operation, written without faults below `root`.
    static func setUp(_ operation: Operation, in root: String) throws -> [SampleRecord] {
        var options = RepositoryOptions()
        options.tuning = tuning(operation)
        let repository = ArchiveRepository<SampleRecord>(path: root + "/" + storeName, options: options)
        switch operation {
        case .addToAbsentStore:
            return []
        case .addMigratingASingleArchive:
            let records = sampleRecords(0..<5)
            try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: false)
            try Data(try RepositoryFile<SampleRecord>.encode(records, path: "x")).write(to: URL(fileURLWithPath: root + "/" + storeName))
            return records
        case .purge:
            let records = sampleRecords(0..<3, expiringAt: 1_500) + sampleRecords(3..<6, expiringAt: 2_500)
            for record in records.shuffled() { try repository.add(record) }
            return try repository.records()
        case .removeCompactingTheLog:
            for record in sampleRecords(0..<4) { try repository.add(record) }
            try repository.remove("id0")
            return try repository.records()
        case .addExtendingTheLog:
            // One commit written whole: the file ends at it, so the next commit writes zeros ahead of itself.
            try repository.add(contentsOf: sampleRecords(0..<5))
            return try repository.records()
        default:
            for record in sampleRecords(0..<5) { try repository.add(record) }
            return try repository.records()
        }
    }

    /// Runs the operation.
    static func perform(_ operation: Operation, on repository: ArchiveRepository<SampleRecord>) throws(StoreError) {
        switch operation {
        case .addToAbsentStore, .add, .addMigratingASingleArchive, .addMergingTheIndex, .addExtendingTheLog:
            try repository.add(new)
        case .update:
            var record = sampleRecords(2..<3)[0]
            record.name = "updated"
            try repository.update(record)
        case .remove:
            _ = try repository.remove("id3")
        case .removeCompactingTheLog:
            _ = try repository.remove("id2")
        case .purge:
            _ = try repository.removeExpired(at: Date(timeIntervalSince1970: 2_000))
        case .importSkippingExisting:
            _ = try repository.add(contentsOf: [new, sampleRecords(1..<2)[0]], skippingExisting: true)
        case .importWritingAhead:
            _ = try repository.add(contentsOf: importBatch)
        case .transaction:
            do {
                try repository.write { transaction in
                    try transaction.add(new)
                    var record = sampleRecords(2..<3)[0]
                    record.name = "updated"
                    try transaction.update(record)
                    _ = try transaction.remove("id3")
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.invalidArgument, "the transaction threw \(error)")
            }
        }
    }

    /// The records after the operation succeeded, from those before.
    static func expected(_ operation: Operation, after before: [SampleRecord]) -> [SampleRecord] {
        switch operation {
        case .addToAbsentStore, .add, .addMigratingASingleArchive, .addMergingTheIndex, .importSkippingExisting, .addExtendingTheLog:
            return before + [new]
        case .update:
            var record = sampleRecords(2..<3)[0]
            record.name = "updated"
            return before.filter { $0.id != "id2" } + [record]
        case .remove:
            return before.filter { $0.id != "id3" }
        case .removeCompactingTheLog:
            return before.filter { $0.id != "id2" }
        case .importWritingAhead:
            return before + importBatch
        case .transaction:
            var record = sampleRecords(2..<3)[0]
            record.name = "updated"
            return before.filter { $0.id != "id2" && $0.id != "id3" } + [new, record]
        case .purge:
            return before.filter { $0.expiresAt > Date(timeIntervalSince1970: 2_000) }
        }
    }

    @Test(arguments: Operation.allCases)
    func everySingleFaultLeavesEveryAcknowledgedRecordReadable(operation: Operation) throws {
        let template = try TemporaryDirectory()
        let before = try Self.setUp(operation, in: template)
        let after = Self.expected(operation, after: before)
        let counter = FaultCounter()
        var injected = 0
        var outcomes: Set<String> = []
        var kinds: Set<FileSystem.Call> = []
        // The last: the disk fills at the first write from the call on (a short write, then ENOSPC on every write).
        for (fault, fillsDisk) in [(FileSystem.Fault.error(EIO), false), (.error(ENOSPC), false), (.shortWrite(7), false),
                                   (.shortWrite(7), true)] {
            var call = 1
            while true {
                let directory = try TemporaryDirectory()
                for name in try template.entries() {
                    try FileManager.default.copyItem(atPath: template.file(name), toPath: directory.file(name))
                }
                var options = RepositoryOptions()
                options.tuning = Self.tuning(operation)
                options.fileSystem = counter.fileSystem
                let repository = ArchiveRepository<SampleRecord>(path: directory.file(Self.storeName), options: options)
                counter.arm(failAt: call, with: fault, fillsDisk: fillsDisk)
                var succeeded: Bool
                do {
                    try Self.perform(operation, on: repository)
                    succeeded = true
                } catch where error.code == .durabilityUnknown {
                    succeeded = true
                } catch {
                    #expect(error.code == .io, "\(operation) \(fault) call \(call): \(error)")
                    succeeded = false
                }
                let failed = counter.failed
                counter.arm(failAt: nil)
                guard let failed else { break }   // the operation makes fewer calls: every one was tried
                injected += 1
                kinds.insert(failed.call)
                outcomes.insert(succeeded ? "done" : "not done")
                let context = "\(operation), \(fault)\(fillsDisk ? " filling the disk" : "") at call \(call) (\(failed.call) of \(failed.path))"
                let plain = ArchiveRepository<SampleRecord>(path: directory.file(Self.storeName))
                let records = try plain.records()
                #expect(records == (succeeded ? after : before), "\(context)")
                for record in after + before {
                    #expect(try plain.get(record.id) == records.first { $0.id == record.id }, "\(context)")
                }
                #expect(try plain.count() == records.count, "\(context)")
                // Nothing left behind, and the store takes the next write.
                try plain.add(SampleRecord(id: "next", name: "next", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                                         expiresAt: Date(timeIntervalSince1970: 9_999)))
                #expect(try leftovers(in: directory) == [], "\(context)")
                #expect(try plain.records().map(\.id) == records.map(\.id) + ["next"], "\(context)")
                call += 1
            }
        }
        #expect(injected > 10)
        #expect(outcomes.contains("not done"))
        // The faults reach every kind of call the operation makes, the lock and the cleanup included.
        var reached: Set<FileSystem.Call> = [.open, .read, .write, .sync, .status, .lock, .list]
        switch operation {
        case .addToAbsentStore:
            // A new log, written whole and renamed into place: nothing to read.
            reached.remove(.read)
            reached.formUnion([.makeDirectory, .rename, .setPermissions])
        case .addMigratingASingleArchive, .addMergingTheIndex, .removeCompactingTheLog: reached.formUnion([.rename, .setPermissions])
        default: break
        }
        #expect(kinds.isSuperset(of: reached), "\(operation): reached \(kinds.map(\.rawValue).sorted())")
    }

    /// A crash, as near as one process can play it: from call N on, every call of the seam fails (the disk is
    /// gone), so nothing after the Nth call reaches the files. The files left must read as the store before or
    /// the store after, never anything else, and the next writer must carry on from them.
    @Test(arguments: Operation.allCases)
    func aCrashAtAnyCallLeavesTheOldStoreOrTheNewOne(operation: Operation) throws {
        let template = try TemporaryDirectory()
        let before = try Self.setUp(operation, in: template)
        let after = Self.expected(operation, after: before)
        var call = 1
        var seen: Set<Bool> = []
        while true {
            let directory = try TemporaryDirectory()
            for name in try template.entries() {
                try FileManager.default.copyItem(atPath: template.file(name), toPath: directory.file(name))
            }
            let calls = Locked(0)
            let crashAt = call
            var options = RepositoryOptions()
            options.tuning = Self.tuning(operation)
            options.fileSystem = FileSystem { _, _ in calls.withLock { count in
                count += 1
                return count >= crashAt ? .error(EIO) : nil
            } }
            let repository = ArchiveRepository<SampleRecord>(path: directory.file(Self.storeName), options: options)
            var completed = true
            do { try Self.perform(operation, on: repository) } catch { completed = false }
            if completed && calls.withLock({ $0 }) < call { break }   // no call failed: every crash point was tried
            let plain = ArchiveRepository<SampleRecord>(path: directory.file(Self.storeName))
            let records = try plain.records()
            #expect(records == before || records == after, "\(operation), crash at call \(call)")
            if completed { #expect(records == after, "\(operation), crash at call \(call) after it returned") }
            seen.insert(records == after)
            try plain.add(SampleRecord(id: "next", name: "next", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                                     expiresAt: Date(timeIntervalSince1970: 9_999)))
            #expect(try plain.records().map(\.id) == records.map(\.id) + ["next"], "\(operation), crash at call \(call)")
            #expect(try leftovers(in: directory) == [], "\(operation), crash at call \(call): the next writer swept them")
            call += 1
        }
        #expect(seen == [false, true])
    }
}

/// Temporary files left in the store's directory.
private func leftovers(in directory: TemporaryDirectory) throws -> [String] {
    guard FileManager.default.fileExists(atPath: directory.file("data")) else { return [] }
    return try FileManager.default.contentsOfDirectory(atPath: directory.file("data")).filter { $0.contains(".tmp-") }
}
