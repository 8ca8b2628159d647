import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

/// A hook run before a file-system call (installed and removed by the test).
final class CallHook: @unchecked Sendable { // Sendable: state behind a lock.
    private let lock = NSLock()
    private var body: ((FileSystem.Call, String) -> Void)?

    func set(_ body: ((FileSystem.Call, String) -> Void)?) { lock.withLock { self.body = body } }

    /// Runs the hook once at most: it is removed before it runs.
    var fileSystem: FileSystem {
        FileSystem { [self] call, path in
            let body = lock.withLock { () -> ((FileSystem.Call, String) -> Void)? in
                guard let body = self.body else { return nil }
                return body
            }
            body?(call, path)
            return nil
        }
    }
}

/// A value set from inside a hook or another thread.
final class Shared<T>: @unchecked Sendable { // Sendable: state behind a lock.
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

private func fileSize(_ path: String) -> Int {
    var info = stat()
    guard lstat(path, &info) == 0 else { return -1 }
    return Int(info.st_size)
}

/// Creates a sparse file of `size` bytes (no blocks used).
private func makeSparseFile(_ path: String, size: Int) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return ftruncate(fd, off_t(size)) == 0
}

/// A fixed scratch path for exit tests (their child process may die before cleaning up).
private func scratchDirectory(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "/cache-child-" + name
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("ArchiveCache: instances sharing a directory, hostile and huge files")
struct CacheDirectorySharingTests {
    // MARK: 1. Wrong (stale) values

    /// `set` appends its journal record before it renames the new file into place. A memory-layer read in
    /// another instance that runs between the two consumes the record (nothing to invalidate yet), reads the
    /// old file, and caches it; the rename then produces no further journal change, so the old value is
    /// served from memory indefinitely.
    @Test func readRacingAnotherInstancesSetDoesNotPinTheOldValueInMemory() throws {
        let fixture = try CacheFixture()
        let hook = CallHook()
        let writer = try fixture.bytesCache(fixture.options(), fileSystem: hook.fileSystem)
        let reader = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        try writer.set(payload("k", 1), forKey: "k")
        let readDuringSet = Shared<[UInt8]?>(nil)
        let readError = Shared<StoreError?>(nil)
        hook.set { call, _ in
            guard call == .rename else { return }
            hook.set(nil)
            do throws(StoreError) { readDuringSet.value = try reader.value(forKey: "k") } catch { readError.value = error }
        }
        try writer.set(payload("k", 2), forKey: "k")
        #expect(readError.value == nil)
        #expect(readDuringSet.value == payload("k", 1))   // a read concurrent with the set: the old value is fine
        // The set has returned: every later read must see the new value.
        #expect(try reader.value(forKey: "k") == payload("k", 2))
        #expect(try reader.value(forKey: "k") == payload("k", 2))
    }

    /// A journal lost while a process has the cache open: the process keeps appending to (and watching) the
    /// unlinked file, while every process opened afterwards uses a new journal. The old process's memory
    /// layer never hears of the new processes' changes.
    @Test func lostJournalWhileOpenDoesNotLeaveStaleValuesInMemory() throws {
        let fixture = try CacheFixture()
        let a = try fixture.bytesCache(fixture.options(memory: 1 << 20))
        try a.set([1], forKey: "k")
        #expect(try a.value(forKey: "k") == [1])
        try FileManager.default.removeItem(atPath: fixture.path + "/cache.journal")
        let b = try fixture.bytesCache(fixture.options())
        try b.set([2], forKey: "k")
        #expect(try b.value(forKey: "k") == [2])
        #expect(try a.value(forKey: "k") == [2])
    }

    /// Same lost journal: the old process's index misses what the new processes write, so its eviction
    /// undercounts and the count limit no longer holds after its `set`.
    @Test func lostJournalWhileOpenDoesNotBreakTheCountLimit() throws {
        let fixture = try CacheFixture()
        let a = try fixture.bytesCache(fixture.options(countLimit: 3))
        try a.set([0], forKey: "a0")
        try FileManager.default.removeItem(atPath: fixture.path + "/cache.journal")
        let b = try fixture.bytesCache(fixture.options(countLimit: 3))
        for i in 0..<3 { try b.set([UInt8(i)], forKey: "b\(i)") }
        #expect(fixture.entryFiles().count == 3)
        try a.set([9], forKey: "a1")
        #expect(fixture.entryFiles().count <= 3 + 1, "\(fixture.entryFiles().count) entry files, count limit 3")
        #expect(fixture.entryFiles().count <= 3)
    }

    // MARK: 2. Unbounded journal

    /// A cache without limits never loads its index, and `compactIfDue` only compacts a loaded index: its
    /// journal grows by 56 bytes per `set` (and per batch of uses) forever.
    @Test func journalOfACacheWithoutLimitsIsCompacted() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options())
        for i in 0..<17_000 { try cache.set(payload("k", i, size: 8), forKey: "k") }
        let journal = fileSize(fixture.path + "/cache.journal")
        // A limited cache compacts once the journal holds more than max(16,384, entries) records.
        #expect(journal <= (16_384 + 2) * CacheJournalRecord.size, "journal: \(journal) bytes for 1 entry")
    }

    // MARK: 3. Traps from hostile bytes

    /// A snapshot (valid checks) whose merged length exceeds `Int.max`, on a journal of its base generation:
    /// compaction's "crashed between rename and reset" path converts it with `Int(_:)` and traps.
    @Test func snapshotWithAHugeMergedLengthDoesNotTrap() async {
        let path = scratchDirectory("merged-length")
        defer { try? FileManager.default.removeItem(atPath: path) }
        await #expect(processExitsWith: .success) {
            let directory = NSTemporaryDirectory() + "/cache-child-merged-length/cache"
            var options = CacheOptions()
            options.countLimit = 100
            let first = try ArchiveCache<[UInt8]>(directory: directory, options: options)
            try first.set([1], forKey: "a")   // journal generation 0, no snapshot yet
            let hostile = CacheIndexSnapshot(generation: 7, baseGeneration: 0, mergedLength: .max, entries: [])
            try Data(hostile.serialized()).write(to: URL(fileURLWithPath: directory + "/cache.index"))
            let second = try ArchiveCache<[UInt8]>(directory: directory, options: options)
            try second.set([2], forKey: "b")   // loads the index: disagreement -> compaction
            guard try second.value(forKey: "a") == [1], try second.value(forKey: "b") == [2] else { exit(3) }
        }
    }

    /// An entry file of 1 TiB (sparse): reading it allocates its whole size at once and the process dies.
    @Test func hugeEntryFileIsAMissNotACrash() async {
        let path = scratchDirectory("huge-entry")
        defer { try? FileManager.default.removeItem(atPath: path) }
        await #expect(processExitsWith: .success) {
            let directory = NSTemporaryDirectory() + "/cache-child-huge-entry/cache"
            let cache = try ArchiveCache<[UInt8]>(directory: directory, options: CacheOptions())
            try cache.set([1], forKey: "k")
            let hex = StableHash("k".utf8).hex
            guard makeSparseFile(directory + "/" + hex.prefix(2) + "/" + hex + ".archive", size: 1 << 40) else { exit(4) }
            guard try cache.value(forKey: "k") == nil else { exit(3) }
        }
    }

    /// A 1 TiB (sparse) `cache.index`: loading the index reads it whole.
    @Test func hugeIndexFileDoesNotCrashASet() async {
        let path = scratchDirectory("huge-index")
        defer { try? FileManager.default.removeItem(atPath: path) }
        await #expect(processExitsWith: .success) {
            let directory = NSTemporaryDirectory() + "/cache-child-huge-index/cache"
            var options = CacheOptions()
            options.countLimit = 100
            do {
                let cache = try ArchiveCache<[UInt8]>(directory: directory, options: options)
                try cache.set([1], forKey: "k")
                try cache.compactIndex()
            }
            guard makeSparseFile(directory + "/cache.index", size: 1 << 40) else { exit(4) }
            let cache = try ArchiveCache<[UInt8]>(directory: directory, options: options)
            // Throwing would be acceptable here; dying is not.
            _ = try? cache.set([2], forKey: "j")
        }
    }

    /// A 1 TiB (sparse) `cache.journal`: loading the index reads the journal whole.
    @Test func hugeJournalFileDoesNotCrashASet() async {
        let path = scratchDirectory("huge-journal")
        defer { try? FileManager.default.removeItem(atPath: path) }
        await #expect(processExitsWith: .success) {
            let directory = NSTemporaryDirectory() + "/cache-child-huge-journal/cache"
            var options = CacheOptions()
            options.countLimit = 100
            do {
                let cache = try ArchiveCache<[UInt8]>(directory: directory, options: options)
                try cache.set([1], forKey: "k")
            }
            // Keep the header, extend to 1 TiB (a hole reads as zero bytes: damaged records).
            let fd = open(directory + "/cache.journal", O_WRONLY)
            guard fd >= 0, ftruncate(fd, off_t(1 << 40)) == 0 else { exit(4) }
            close(fd)
            let cache = try ArchiveCache<[UInt8]>(directory: directory, options: options)
            _ = try? cache.set([2], forKey: "j")
        }
    }

    // MARK: 4. Hostile directory contents

    /// A FIFO or a directory at an entry path is a miss (see `fifoAtAnEntryPathIsAMissWithoutBlockingAndIsKept`);
    /// a symbolic link makes `value(forKey:)` and `removeValue(forKey:)` throw `.io` (ELOOP from O_NOFOLLOW).
    @Test func symbolicLinkAtAnEntryPathIsAMiss() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache()
        try cache.set([1], forKey: "k")
        let path = fixture.entryPath("k")
        try FileManager.default.removeItem(atPath: path)
        try Data("elsewhere".utf8).write(to: URL(fileURLWithPath: fixture.directory.path + "/target"))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: fixture.directory.path + "/target")
        let read = Result { () throws(StoreError) in try cache.value(forKey: "k") }
        #expect(throws: Never.self) { try read.get() }
        let removal = Result { () throws(StoreError) in try cache.removeValue(forKey: "k") }
        #expect(throws: Never.self) { try removal.get() }
        #expect(try String(contentsOfFile: fixture.directory.path + "/target", encoding: .utf8) == "elsewhere")
    }

    /// `removeStaleTemporaryFiles` deletes any `staging/*.tmp` longer than 9 bytes whose first 8 bytes name no
    /// owner file, and any unlocked `????????.owner`: files the cache did not write.
    @Test func stagingFilesTheCacheDidNotWriteAreKept() throws {
        let fixture = try CacheFixture()
        _ = try fixture.bytesCache()
        let staging = fixture.path + "/staging/"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: staging + "my-notes.tmp"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: staging + "projects.owner"))
        _ = try fixture.bytesCache()
        #expect(FileManager.default.fileExists(atPath: staging + "my-notes.tmp"))
        #expect(FileManager.default.fileExists(atPath: staging + "projects.owner"))
    }

    // MARK: 5. Readers blocking on writers

    /// "Never blocks on a writer": a read that meets an expired entry removes it under the exclusive lock
    /// file, so it waits for whatever another process holds the lock for.
    @Test func readOfAnExpiredEntryDoesNotWaitForAnotherInstancesWrite() throws {
        let fixture = try CacheFixture()
        let reader = try fixture.bytesCache(fixture.options())
        try reader.set([1], forKey: "old", timeToLive: .seconds(1))
        fixture.clock.advance(5)
        let hook = CallHook()
        let writer = try fixture.bytesCache(fixture.options(), fileSystem: hook.fileSystem)
        let inLock = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        hook.set { call, _ in
            guard call == .rename else { return }
            hook.set(nil)
            inLock.signal()
            release.wait()
        }
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? writer.set([2], forKey: "w")
            writerDone.signal()
        }
        inLock.wait()   // the writer holds cache.lock exclusively now
        let readDone = DispatchSemaphore(value: 0)
        let result = Shared<[UInt8]??>(nil)
        Thread.detachNewThread {
            result.value = .some(try? reader.value(forKey: "old"))
            readDone.signal()
        }
        let finished = readDone.wait(timeout: .now() + 3) == .success
        release.signal()
        writerDone.wait()
        if !finished { readDone.wait() }
        #expect(finished, "value(forKey:) waited for another instance's write")
        #expect(result.value == .some(nil))
    }

    /// The same with uses: the 4,096th distinct entry read writes the buffered uses to the journal under the
    /// lock file held shared, which waits for another process's exclusive hold.
    @Test func readThatFlushesUsesDoesNotWaitForAnotherInstancesWrite() throws {
        let fixture = try CacheFixture()
        let reader = try fixture.bytesCache(fixture.options())
        for i in 0..<4_096 { try reader.set([UInt8(truncatingIfNeeded: i)], forKey: "k\(i)") }
        let hook = CallHook()
        let writer = try fixture.bytesCache(fixture.options(), fileSystem: hook.fileSystem)
        let inLock = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        hook.set { call, _ in
            guard call == .rename else { return }
            hook.set(nil)
            inLock.signal()
            release.wait()
        }
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? writer.set([2], forKey: "w")
            writerDone.signal()
        }
        inLock.wait()
        let readDone = DispatchSemaphore(value: 0)
        let reads = Shared(0)
        Thread.detachNewThread {
            for i in 0..<4_096 where (try? reader.value(forKey: "k\(i)")) != nil { reads.value += 1 }
            readDone.signal()
        }
        let finished = readDone.wait(timeout: .now() + 20) == .success
        release.signal()
        writerDone.wait()
        if !finished { readDone.wait() }
        #expect(finished, "value(forKey:) waited for another instance's write after \(reads.value) reads")
        #expect(reads.value == 4_096)
    }
}

@Suite("ArchiveCache: pooled files, expiry and trimming at scale")
struct CachePoolAndScaleTests {
    /// A retired entry file goes to the writer's pool and is later rewritten in place as a temporary file,
    /// although a reader may still have it open. A reader that opened the old entry reads whatever the
    /// writer put into that inode since: here a write cut short by a full disk (one failing syscall) leaves
    /// the first half of a new value over the second half of the old one, and the reader returns a value
    /// that was never set.
    @Test func readerOfAPooledFileNeverSeesATornValue() throws {
        let fixture = try CacheFixture()
        let failTemporaryWriteAt = Shared<Int?>(nil)
        let writerFS = FileSystem { call, path in
            guard call == .write, path.contains("/staging/"), let n = failTemporaryWriteAt.value else { return nil }
            failTemporaryWriteAt.value = nil
            return .shortWrite(n)
        }
        let writer = try fixture.bytesCache(fixture.options(), fileSystem: writerFS)
        let hook = CallHook()
        let reader = try fixture.bytesCache(fixture.options(), fileSystem: hook.fileSystem)
        let a = [UInt8](repeating: 0xAA, count: 64), b = [UInt8](repeating: 0xBB, count: 64), c = [UInt8](repeating: 0xCC, count: 64)
        try writer.set(a, forKey: "k")
        // Where the value's bytes lie in an entry file (the clock stands still: all else is equal).
        let created = fixture.clock.now()
        let old = try CacheEntryCoding.encode(CacheEntryFile(key: "k", value: a, created: created, expires: nil))
        let new = try CacheEntryCoding.encode(CacheEntryFile(key: "k", value: c, created: created, expires: nil))
        #expect(old.count == new.count)
        let first = try #require(old.indices.first { old[$0] != new[$0] })
        let entry = fixture.entryPath("k")
        let hookError = Shared<String?>(nil)
        hook.set { call, path in
            guard call == .read, path == entry else { return }
            hook.set(nil)
            // The reader has opened and measured the entry file (value a); now, before it reads:
            do throws(StoreError) {
                try writer.set(b, forKey: "k")              // a's file is retired to the pool
                failTemporaryWriteAt.value = first + 32
                try writer.set(c, forKey: "k")              // reuses a's file in place; the disk fills up
                hookError.value = "the faulted set succeeded"
            } catch {
                if error.code != .io { hookError.value = "\(error)" }
            }
        }
        let read = try reader.value(forKey: "k")
        #expect(hookError.value == nil)
        #expect(read == nil || read == a || read == b, "read \(read.map { $0.map { String($0, radix: 16) }.joined(separator: " ") } ?? "nil")")
        #expect(try reader.value(forKey: "k") == b)
    }

    /// `removeExpired` compares expiry and now both rounded *up* to milliseconds, so an entry that is still
    /// live (and that `value(forKey:)` returns) is removed when both fall in the same millisecond.
    @Test func removeExpiredKeepsAnEntryThatHasNotExpired() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.bytesCache(fixture.options(countLimit: 100))
        fixture.clock.advance(0.0004)
        try cache.set([1], forKey: "k", timeToLive: .seconds(1))
        fixture.clock.advance(1 - 0.0002)                          // 0.2 ms before it expires
        #expect(try cache.value(forKey: "k") == [1])
        #expect(try cache.removeExpired() == 0)
        #expect(try cache.value(forKey: "k") == [1])
    }

    /// `evict` binds `while let index = d.index` and then mutates `d.index`: every eviction copies the whole
    /// index (copy on write), so evicting n entries of an index of n costs O(n^2). Trimming 20,000 entries took
    /// about 1.3 s, 80,000 took 25 s (a linear trim: well under 1 s); 1,000,000 would take hours.
    @Test func trimmingManyEntriesIsLinear() throws {
        let fixture = try CacheFixture()
        let options = fixture.options(countLimit: 1_000_000)
        do {
            let cache = try fixture.bytesCache(options)
            try cache.set([1], forKey: "k")
            try cache.compactIndex()
        }
        // An index of 80,000 entries (their files need not exist: eviction only finds them gone).
        var entries: [CacheIndex.Entry] = []
        for i in 0..<80_000 {
            entries.append(CacheIndex.Entry(hash: StableHash(high: UInt64(i) + 1, low: 7), size: 100, tick: UInt64(i), expires: .max))
        }
        let journal = try fixture.directory.read("cache/cache.journal")
        let generation = readLittleEndian(journal, 32, width: 8)
        let snapshot = CacheIndexSnapshot(generation: generation, baseGeneration: generation - 1, mergedLength: 56, entries: entries)
        try fixture.directory.write(snapshot.serialized(), to: "cache/cache.index")
        let cache = try fixture.bytesCache(options)
        #expect(cache.statistics.entryCount == 80_000)
        let start = Date()
        try cache.trim(toByteLimit: 0)
        let seconds = Date().timeIntervalSince(start)
        #expect(cache.statistics.entryCount == 0)
        #expect(seconds < 5, "trim of 80,000 index entries took \(seconds) s")
    }
}
