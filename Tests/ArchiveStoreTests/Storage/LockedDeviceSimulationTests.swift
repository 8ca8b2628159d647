import Foundation
import Testing
import TestSupport
import ArchiveStore

/// `LockedDeviceSimulation` through the public API only, as an app's tests use it: each engine refuses its files
/// by their protection class while the simulated device is locked, reports it as on a device, and has lost
/// nothing once it is unlocked.
@Suite("Locked-device simulation")
struct LockedDeviceSimulationTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory(prefix: "locked") }

    func repository(_ protection: FileProtection?, _ device: LockedDeviceSimulation) -> ArchiveRepository<Note> {
        var options = RepositoryOptions()
        options.fileProtection = protection
        options.lockedDeviceSimulation = device
        return ArchiveRepository<Note>(path: directory.file("notes.archive"), options: options)
    }

    /// The code of the `StoreError` that `body` throws; `nil` when it returns.
    func code(_ body: () throws -> Void) -> StoreError.Code? {
        do {
            try body()
            return nil
        } catch let error as StoreError {
            return error.code
        } catch {
            Issue.record("not a StoreError: \(error)")
            return nil
        }
    }

    @Test func aCompleteStoreIsRefusedWhileLockedAndWholeAfterwards() throws {
        let device = LockedDeviceSimulation()
        let notes = repository(.complete, device)
        try notes.add(Note(id: "a", text: "before"))
        device.isLocked = true
        #expect(code { try notes.add(Note(id: "b", text: "locked")) } == .protectedDataUnavailable)
        #expect(code { _ = try notes.get("a") } == .protectedDataUnavailable)
        #expect(code { _ = try notes.count() } == .protectedDataUnavailable)
        // A second repository object (another part of the app, an extension) is refused as well.
        #expect(code { _ = try repository(.complete, device).get("a") } == .protectedDataUnavailable)
        device.isLocked = false
        #expect(try notes.get("a") == Note(id: "a", text: "before"))
        #expect(try notes.get("b") == nil)
        try notes.add(Note(id: "b", text: "after"))
        #expect(try repository(.complete, LockedDeviceSimulation()).records().map(\.id) == ["a", "b"])
    }

    @Test func theDefaultClassWorksWhileLockedButNotBeforeTheFirstUnlock() throws {
        let device = LockedDeviceSimulation()
        let notes = repository(.completeUntilFirstUserAuthentication, device)
        try notes.add(Note(id: "a", text: "one"))
        device.isLocked = true
        try notes.add(Note(id: "b", text: "while locked"))
        #expect(try notes.count() == 2)
        device.hasBeenUnlockedSinceStart = false
        #expect(device.isLocked)
        #expect(code { _ = try repository(nil, device).get("a") } == .protectedDataUnavailable)
        #expect(code { try notes.add(Note(id: "c", text: "refused")) } == .protectedDataUnavailable)
        device.isLocked = false
        #expect(device.hasBeenUnlockedSinceStart)
        #expect(try notes.records().map(\.id) == ["a", "b"])
    }

    @Test func completeUnlessOpenKeepsTheOpenStoreAndRefusesOpeningIt() throws {
        let device = LockedDeviceSimulation()
        let notes = repository(.completeUnlessOpen, device)
        try notes.add(Note(id: "a", text: "open"))
        #expect(try notes.get("a")?.text == "open")   // the reader's handle opened while unlocked
        device.isLocked = true
        // The repository keeps that handle open: reading goes on.
        #expect(try notes.get("a")?.text == "open")
        // So does writing: the writer's files (the store, its lock file) were opened by the first add.
        try notes.add(Note(id: "b", text: "while locked"))
        // Another repository object must open the file: refused while locked.
        #expect(code { _ = try repository(.completeUnlessOpen, device).get("a") } == .protectedDataUnavailable)
        device.isLocked = false
        #expect(try repository(.completeUnlessOpen, device).records().map(\.id) == ["a", "b"])
    }

    @Test func noProtectionIsNeverRefused() throws {
        let device = LockedDeviceSimulation(locked: true, hasBeenUnlockedSinceStart: false)
        let notes = repository(FileProtection.none, device)
        try notes.add(Note(id: "a", text: "always"))
        #expect(try notes.get("a")?.text == "always")
    }

    @Test func aCacheMissesWhileLockedAndItsSetThrows() throws {
        let device = LockedDeviceSimulation()
        var options = CacheOptions()
        options.fileProtection = .complete
        options.lockedDeviceSimulation = device
        let cache = try ArchiveCache<String>(directory: directory.file("cache"), options: options)
        try cache.set("kept", forKey: "k")
        device.isLocked = true
        #expect(try cache.value(forKey: "k") == nil)
        #expect(code { try cache.set("new", forKey: "n") } == .protectedDataUnavailable)
        // Opening a cache needs its files: refused too.
        #expect(code { _ = try ArchiveCache<String>(directory: directory.file("cache"), options: options) } == .protectedDataUnavailable)
        device.isLocked = false
        #expect(try cache.value(forKey: "k") == "kept")
        #expect(try cache.value(forKey: "n") == nil)
    }

    @Test func withoutASimulationNothingIsRefusedOnLinux() throws {
        var options = RepositoryOptions()
        options.fileProtection = .complete
        let notes = ArchiveRepository<Note>(path: directory.file("plain.archive"), options: options)
        try notes.add(Note(id: "a", text: "x"))
        #expect(try notes.get("a")?.text == "x")
    }
}
