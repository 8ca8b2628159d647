// Mirrors Sources/ArchiveStore/ArchiveStore.docc/StoringDataInAnApp.md (see ArticleCode in TestSupport)
import ArchiveStore
import Foundation
import Testing
import TestSupport
#if canImport(UIKit)
import UIKit
#endif

@Suite("Article: Storing data in an app on Apple platforms")
struct StoringDataInAnAppArticleTests {
    struct Entry: ArchiveRecord, Codable, Equatable {
        let id: String
        var text: String
    }

    let temporary: TemporaryDirectory
    var directory: URL { URL(fileURLWithPath: temporary.path, isDirectory: true) }
    let download = Data(#"[{"id": "monday", "text": "ran 5 km"}, {"id": "tuesday", "text": "rested"}]"#.utf8)

    init() throws { temporary = try TemporaryDirectory(prefix: "app article") }

    @Test func aCompleteJournalKeptInBackups() throws {
        // snippet
        var options = RepositoryOptions()
        options.fileProtection = .complete   // no background work reads the journal
        options.excludedFromBackup = false   // the user's data: keep it in backups (the default)
        let journal = try ArchiveRepository<Entry>(url: directory.appendingPathComponent("Journal.archive"),
                                                   options: options)
        // end snippet
        try journal.add(Entry(id: "a", text: "one"))
        #expect(journal.path == temporary.file("Journal.archive"))
        #expect(try journal.count() == 1)
    }

    // snippet
    /// Stores a downloaded batch; `false` when the device is locked (keep the batch for the next launch).
    func store(_ download: Data, in journal: ArchiveRepository<Entry>) throws -> Bool {
        do {
            let entries = try JSONDecoder().decode([Entry].self, from: download)
            try journal.write { transaction in
                for entry in entries { try transaction.upsert(entry) }
            }
            return true
        } catch let error as StoreError where error.code == .protectedDataUnavailable {
            return false
        }
    }
    // end snippet

    @Test func aBlockOfStoreCallsOnly() throws {
        let device = LockedDeviceSimulation(locked: true)
        var options = RepositoryOptions()
        options.fileProtection = .complete
        options.lockedDeviceSimulation = device
        let journal = try ArchiveRepository<Entry>(url: directory.appendingPathComponent("Journal.archive"), options: options)
        let entry = Entry(id: "wednesday", text: "swam")
        var pending: [Entry] = []
        // snippet
        do {
            try journal.upsert(entry)
        } catch {
            guard StoreError.Code.protectedDataUnavailable ~= error else { throw error }
            pending.append(entry)   // locked: retry after the next unlock
        }
        // end snippet
        #expect(pending.map(\.id) == ["wednesday"])
        device.isLocked = false
        #expect(try journal.count() == 0)
    }

    @Test func theLockedPathInTests() throws {
        // snippet
        let device = LockedDeviceSimulation()
        var options = RepositoryOptions()
        options.fileProtection = .complete
        options.lockedDeviceSimulation = device
        let journal = try ArchiveRepository<Entry>(url: directory.appendingPathComponent("Journal.archive"),
                                                   options: options)

        device.isLocked = true
        let stored = try store(download, in: journal)          // false: refused, nothing written
        device.isLocked = false
        let storedAfterUnlock = try store(download, in: journal) // true
        // end snippet
        #expect(stored == false)
        #expect(storedAfterUnlock == true)
        #expect(try journal.records().map(\.id) == ["monday", "tuesday"])
        // Other errors are not swallowed: a batch that is not JSON throws the decoder's error.
        #expect(throws: DecodingError.self) { _ = try store(Data("not json".utf8), in: journal) }
    }

    @Test func anAppGroupTheAppIsNotEntitledToIsNoDataDirectory() throws {
        let error = #expect(throws: StoreError.self) {
            // snippet
            let group = "group.com.example.journal"
            let shared = try ArchiveRepository<Entry>.standardDirectoryURL(named: "journal", appGroup: group)
            let journal = try ArchiveRepository<Entry>(url: shared.appendingPathComponent("Journal.archive"))
            let thumbnails = try ArchiveCache<[UInt8]>(directory: ArchiveCache<[UInt8]>.standardDirectoryURL(named: "thumbnails", appGroup: group))
            // end snippet
            _ = (journal, thumbnails)
        }
        // No entitlement here (a test process on macOS, Linux): the error an app without the group gets.
        #expect(error?.code == .noDataDirectory)
    }

    // snippet
    #if canImport(UIKit)
    @MainActor
    func saveBeforeSuspension(_ entry: Entry, in journal: ArchiveRepository<Entry>) {
        let task = UIApplication.shared.beginBackgroundTask(withName: "save entry")
        defer { UIApplication.shared.endBackgroundTask(task) }
        do {
            try journal.upsert(entry)
        } catch {
            print("not saved: \(error)")
        }
    }
    #endif
    // end snippet
}
