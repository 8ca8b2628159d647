import Foundation
import Testing
import TestSupport
@testable import ArchiveStore
import FormCache

@Suite("Atomic file replacement and locking")
struct AtomicFileTests {
    // The only test that changes the (process-wide) umask; 0 loosens, so it cannot break parallel tests.
    @Test func replaceCreatesFileWithMode0600WhateverTheUmask() throws {
        let directory = try TemporaryDirectory()
        let previous = umask(0)
        defer { umask(previous) }
        try AtomicFile.replace(directory.file("store"), with: [1, 2, 3])
        #expect(try directory.read("store") == [1, 2, 3])
        #expect(try directory.mode("store") == 0o600)
        #expect(try directory.entries() == ["store"])
    }

    @Test func replaceSwapsContentsAndLeavesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write([9, 9, 9, 9], to: "store")
        try AtomicFile.replace(directory.file("store"), with: [7])
        #expect(try directory.read("store") == [7])
        #expect(try directory.entries() == ["store"])
    }

    @Test(arguments: [WriteFault.writeFails(afterBytes: 2), .syncFails, .renameFails])
    func failedWriteLeavesOldFileIntactAndRemovesTemporary(fault: WriteFault) throws {
        let directory = try TemporaryDirectory()
        try directory.write([1, 2, 3, 4], to: "store")
        let error = #expect(throws: StoreError.self) {
            try AtomicFile.replace(directory.file("store"), with: [5, 6, 7, 8, 9], fault: fault)
        }
        // Each fault is a failed system call before the rename: io, with its errno (ENOSPC for the write).
        #expect(error?.code == .io)
        #expect(error?.errno == (fault == .writeFails(afterBytes: 2) ? ENOSPC : EIO))
        #expect(try directory.read("store") == [1, 2, 3, 4])
        #expect(try directory.entries() == ["store"])
    }

    @Test func readRefusesSymbolicLink() throws {
        let directory = try TemporaryDirectory()
        try directory.write([1], to: "target")
        try FileManager.default.createSymbolicLink(atPath: directory.file("store"), withDestinationPath: directory.file("target"))
        let error = #expect(throws: StoreError.self) { try AtomicFile.read(directory.file("store")) }
        #expect(error?.code == .symbolicLink)
    }

    @Test func readOfMissingFileIsNil() throws {
        let directory = try TemporaryDirectory()
        #expect(try AtomicFile.read(directory.file("absent")) == nil)
    }

    @Test func secondLockTimesOutWithLockedCode() throws {
        let directory = try TemporaryDirectory()
        let lock = directory.file("store.lock")
        try FileLock.holding(lock, timeout: .seconds(1)) { () throws(StoreError) in
            let error = #expect(throws: StoreError.self) {
                try FileLock.holding(lock, timeout: .milliseconds(20)) { () throws(StoreError) in }
            }
            #expect(error?.code == .locked)
        }
        var ran = false
        try FileLock.holding(lock, timeout: .milliseconds(20)) { () throws(StoreError) in ran = true }
        #expect(ran)
        #expect(try directory.mode("store.lock") == 0o600)
    }

    @Test func lockRefusesSymbolicLink() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: directory.file("store.lock"), withDestinationPath: directory.file("elsewhere"))
        let error = #expect(throws: StoreError.self) {
            try FileLock.holding(directory.file("store.lock"), timeout: .milliseconds(20)) { () throws(StoreError) in }
        }
        #expect(error?.code == .symbolicLink)
        #expect(!FileManager.default.fileExists(atPath: directory.file("elsewhere")))
    }

    @Test func makeDirectoriesCreatesMissingParentsWithMode0700() throws {
        let directory = try TemporaryDirectory()
        try SystemCalls.makeDirectories(directory.file("a/b/c"))
        #expect(try directory.mode("a") == 0o700)
        #expect(try directory.mode("a/b/c") == 0o700)
    }
}

@Suite("Data directory, time to live")
struct SettingsTests {
    @Test func appHomeWinsOverEverything() throws {
        let env = ["FORMCACHE_HOME": "/tmp/fc", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]
        #expect(try DataDirectory.resolve(application: "formcache", environment: env) == "/tmp/fc")
    }

    @Test func xdgDataHomeComesNext() throws {
        let env = ["FORMCACHE_HOME": "", "XDG_DATA_HOME": "/xdg/", "HOME": "/home/u"]
        #if os(macOS)
        #expect(try DataDirectory.resolve(application: "formcache", environment: env) == "/home/u/Library/Application Support/formcache")
        #else
        #expect(try DataDirectory.resolve(application: "formcache", environment: env) == "/xdg/formcache")
        #endif
    }

    @Test func relativeXDGDataHomeIsIgnored() throws {
        let env = ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]
        #if !os(macOS)
        #expect(try DataDirectory.resolve(application: "formcache", environment: env) == "/home/u/.local/share/formcache")
        #endif
    }

    @Test func homeFallbackUsesLocalShare() throws {
        #if !os(macOS)
        #expect(try DataDirectory.resolve(application: "formcache", environment: ["HOME": "/home/u"]) == "/home/u/.local/share/formcache")
        #endif
    }

    @Test(arguments: [("45s", Int64(45)), ("90m", 5_400), ("12h", 43_200), ("30d", 2_592_000), ("007s", 7)])
    func parsesTimeToLive(text: String, seconds: Int64) throws {
        #expect(try TimeToLive(parsing: text).seconds == seconds)
    }

    @Test(arguments: ["", "s", "10", "0s", "-5m", "5 m", "5w", "1.5h", "99999999999999999999d", "40000d", "５s"])
    func rejectsMalformedTimeToLive(text: String) {
        let error = #expect(throws: StoreError.self) { try TimeToLive(parsing: text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func timeToLiveDescriptionIsShortestExactForm() throws {
        #expect(TimeToLive.defaultValue.description == "30d")
        #expect(try TimeToLive(parsing: "120m").description == "2h")
        #expect(try TimeToLive(parsing: "61s").description == "61s")
    }
}
