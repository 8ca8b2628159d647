import ArchivePlatform
import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

@Suite("Storage floor: writer lock")
struct WriterLockTests {
    @Test func aSecondHolderTimesOutWithTheLockedCode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lock")
        try WriterLock.holding(path, waiting: .atMost(seconds: 1), fileSystem: .kernel) { () throws(StoreError) in
            let error = #expect(throws: StoreError.self) {
                try WriterLock.holding(path, waiting: .atMost(seconds: 0.02), fileSystem: .kernel) { () throws(StoreError) in }
            }
            #expect(error?.code == .locked)
            let other = try WriterLock(path: path, fileSystem: .kernel)
            #expect(try other.acquire(exclusive: true, waiting: .never) == false)
            #expect(try other.acquire(exclusive: false, waiting: .never) == false)
        }
        var ran = false
        try WriterLock.holding(path, waiting: .atMost(seconds: 0.02), fileSystem: .kernel) { () throws(StoreError) in ran = true }
        #expect(ran)
        #expect(try directory.mode("store.lock") == 0o600)
    }

    @Test func sharedHoldersDoNotExcludeEachOtherButExcludeAnExclusiveOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cache.lock")
        let first = try WriterLock(path: path, fileSystem: .kernel)
        let second = try WriterLock(path: path, fileSystem: .kernel)
        #expect(try first.acquire(exclusive: false, waiting: .never))
        #expect(try second.acquire(exclusive: false, waiting: .never))
        let third = try WriterLock(path: path, fileSystem: .kernel)
        #expect(try third.acquire(exclusive: true, waiting: .never) == false)
        first.release()
        second.release()
        #expect(try third.acquire(exclusive: true, waiting: .never))
    }

    /// Each refusal has its own code, and nothing is created or changed at the link's target.
    @Test func linksAndNonRegularFilesAreRefusedEachWithItsCode() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: directory.file("symbolic.lock"), withDestinationPath: directory.file("elsewhere"))
        try directory.write([], to: "target")
        try FileManager.default.linkItem(atPath: directory.file("target"), toPath: directory.file("hard.lock"))
        try FileManager.default.createDirectory(atPath: directory.file("directory.lock"), withIntermediateDirectories: false)
        #expect(mkfifo(directory.file("fifo.lock"), 0o600) == 0)
        let cases: [(String, StoreError.Code)] = [
            ("symbolic.lock", .symbolicLink), ("hard.lock", .hardLink), ("directory.lock", .notRegularFile), ("fifo.lock", .notRegularFile),
        ]
        for (name, code) in cases {
            let error = #expect(throws: StoreError.self) { try WriterLock(path: directory.file(name), fileSystem: .kernel) }
            #expect(error?.code == code, "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("elsewhere")))
    }

    /// A lock file removed while held would exclude nobody who opens the new one: the next acquire takes the
    /// lock on the file at the path now.
    @Test func aLockFileReplacedAtItsPathIsFollowed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cache.lock")
        let mine = try WriterLock(path: path, fileSystem: .kernel)
        try FileManager.default.removeItem(atPath: path)
        let theirs = try WriterLock(path: path, fileSystem: .kernel)   // creates a new file
        #expect(try theirs.acquire(exclusive: true, waiting: .never))
        #expect(try mine.acquire(exclusive: true, waiting: .never) == false)   // the new file, held by theirs
        theirs.release()
        #expect(try mine.acquire(exclusive: true, waiting: .never))
    }

    /// The lock goes through the seam: a fault there is the lock's error, and the body does not run.
    @Test func aFaultOfTheLockCallFailsBeforeTheBodyRuns() throws {
        let directory = try TemporaryDirectory()
        var ran = false
        let error = #expect(throws: StoreError.self) {
            try WriterLock.holding(directory.file("x.lock"), waiting: .forever, fileSystem: failing(.lock)) { () throws(StoreError) in ran = true }
        }
        #expect(error?.code == .io)
        #expect(error?.errno == EIO)
        #expect(!ran)
    }

    /// The check that the lock file is still the one at its path fails after the lock is taken: the caller
    /// never holds the lock, so it is released, and another holder takes it at once.
    @Test func aFailedCheckAfterTheLockIsTakenReleasesIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lock")
        let statuses = Locked(0)
        let failing = FileSystem { call, _ in
            guard call == .status else { return nil }
            return statuses.withLock { count in
                count += 1
                return count == 2 ? .error(EIO) : nil   // 1: the open's fstat; 2: the check after flock
            }
        }
        let lock = try WriterLock(path: path, fileSystem: failing)
        let error = #expect(throws: StoreError.self) { try lock.acquire(exclusive: true, waiting: .never) }
        #expect(error?.errno == EIO)
        let other = try WriterLock(path: path, fileSystem: .kernel)
        #expect(try other.acquire(exclusive: true, waiting: .never) == true)
        other.release()
        withExtendedLifetime(lock) {}
    }
}
