import ArchivePlatform
import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

@Suite("Storage floor: atomic replace")
struct AtomicReplaceTests {
    // The only test that changes the (process-wide) umask; 0 loosens, so it cannot break parallel tests.
    @Test func replaceCreatesFileWithMode0600WhateverTheUmask() throws {
        let directory = try TemporaryDirectory()
        let previous = umask(0)
        defer { umask(previous) }
        try AtomicReplace.replace(directory.file("store"), with: [1, 2, 3], fileSystem: .kernel)
        #expect(try directory.read("store") == [1, 2, 3])
        #expect(try directory.mode("store") == 0o600)
        #expect(try directory.entries() == ["store"])
    }

    @Test func replaceSwapsContentsAndLeavesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write([9, 9, 9, 9], to: "store")
        try AtomicReplace.replace(directory.file("store"), with: [7], fileSystem: .kernel)
        #expect(try directory.read("store") == [7])
        #expect(try directory.entries() == ["store"])
    }

    /// A failure before the rename (a short write, a failed sync, a failed rename) leaves the old file as it
    /// was and no temporary file; the error is the failed call's, with its errno.
    @Test(arguments: [(FileSystem.Call.write, ENOSPC), (.sync, EIO), (.rename, EIO), (.setPermissions, EPERM), (.open, EACCES)])
    func aFailureBeforeTheRenameLeavesTheOldFileAndNoTemporary(call: FileSystem.Call, errno: Int32) throws {
        let directory = try TemporaryDirectory()
        try directory.write([1, 2, 3, 4], to: "store")
        let fileSystem = call == .write
            ? FileSystem { kind, _ in kind == .write ? .shortWrite(2) : nil }
            : failing(call, errno: errno)
        let error = #expect(throws: StoreError.self) {
            try AtomicReplace.replace(directory.file("store"), with: [5, 6, 7, 8, 9], durability: .synchronous, fileSystem: fileSystem)
        }
        #expect(error?.code == .io)
        #expect(error?.errno == errno)
        #expect(try directory.read("store") == [1, 2, 3, 4])
        #expect(try directory.entries() == ["store"])
    }

    /// The rename happened, the sync of the directory did not: the outcome is "durability unknown", with the
    /// new contents in place (never reported as a failure that left the old file).
    @Test func aFailedDirectorySyncAfterTheRenameIsDurabilityUnknownWithTheNewFileInPlace() throws {
        let directory = try TemporaryDirectory()
        try directory.write([1], to: "store")
        let fileSystem = FileSystem { call, path in call == .sync && path == directory.path ? .error(EIO) : nil }
        let error = #expect(throws: StoreError.self) {
            try AtomicReplace.replace(directory.file("store"), with: [2, 2], durability: .synchronous, fileSystem: fileSystem)
        }
        #expect(error?.code == .durabilityUnknown)
        #expect(error?.errno == EIO)
        #expect(try directory.read("store") == [2, 2])
        #expect(try directory.entries() == ["store"])
    }

    /// `.relaxed` makes no sync at all; `.synchronous` syncs the file before its rename and the directory after.
    @Test func durabilityDecidesTheSyncs() throws {
        let directory = try TemporaryDirectory()
        let relaxed = CallLog()
        try AtomicReplace.replace(directory.file("a"), with: [1], durability: .relaxed, fileSystem: relaxed.fileSystem)
        #expect(!relaxed.kinds.contains(.sync))
        let synchronous = CallLog()
        try AtomicReplace.replace(directory.file("b"), with: [1], durability: .synchronous, fileSystem: synchronous.fileSystem)
        let order = synchronous.lines.filter { $0.hasPrefix("sync") || $0.hasPrefix("rename") }
        #expect(order.count == 3)
        #expect(order.first?.hasPrefix("sync " + directory.file(".b.tmp-")) == true)
        #expect(order.dropFirst().first == "rename " + directory.file("b"))
        #expect(order.last == "sync " + directory.path)
    }

    /// Temporary files of a writer that died are removed by the next writer's sweep; other files stay.
    @Test func theSweepRemovesOnlyStaleTemporariesOfTheGivenFiles() throws {
        let directory = try TemporaryDirectory()
        for name in [".store.tmp-1-2", ".store.index.tmp-3-4", ".other.tmp-5-6", "store", "notes"] {
            try directory.write([0], to: name)
        }
        try FileManager.default.createDirectory(atPath: directory.file(".store.tmp-dir"), withIntermediateDirectories: false)
        AtomicReplace.sweepStaleTemporaries(of: [directory.file("store"), directory.file("store.index")], fileSystem: .kernel)
        #expect(try directory.entries() == [".other.tmp-5-6", ".store.tmp-dir", "notes", "store"])
    }

    /// The cleanup after a failure goes through the seam too: when it fails as well, the temporary file stays,
    /// and the next writer's sweep (under the lock) removes it.
    @Test func aFailedCleanupLeavesTheTemporaryForTheNextSweep() throws {
        let directory = try TemporaryDirectory()
        try directory.write([1], to: "store")
        let fileSystem = FileSystem { call, _ in
            switch call {
            case .write: return .shortWrite(1)
            case .unlink: return .error(EIO)
            default: return nil
            }
        }
        let error = #expect(throws: StoreError.self) {
            try AtomicReplace.replace(directory.file("store"), with: [2, 2, 2], fileSystem: fileSystem)
        }
        #expect(error?.errno == ENOSPC)
        let left = try directory.entries().filter { $0.hasPrefix(".store.tmp-") }
        #expect(left.count == 1)
        AtomicReplace.sweepStaleTemporaries(of: [directory.file("store")], fileSystem: .kernel)
        #expect(try directory.entries() == ["store"])
        #expect(try directory.read("store") == [1])
    }

    /// A sweep whose calls fail leaves everything, and does not throw (the next writer tries again).
    @Test func aFailingSweepLeavesFilesForTheNextOne() throws {
        let directory = try TemporaryDirectory()
        try directory.write([0], to: ".store.tmp-1-2")
        AtomicReplace.sweepStaleTemporaries(of: [directory.file("store")], fileSystem: failing(.unlink))
        #expect(try directory.entries() == [".store.tmp-1-2"])
        AtomicReplace.sweepStaleTemporaries(of: [directory.file("store")], fileSystem: failing(.list))
        #expect(try directory.entries() == [".store.tmp-1-2"])
        AtomicReplace.sweepStaleTemporaries(of: [directory.file("store")], fileSystem: .kernel)
        #expect(try directory.entries() == [])
    }
}
