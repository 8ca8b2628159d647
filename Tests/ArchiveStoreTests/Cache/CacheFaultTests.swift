import Foundation
import KeyedArchive
import Testing
@testable import ArchiveStore

/// Counts the calls that go through a ``FileSystem`` and fails the Nth one (counting from 1).
final class FaultCounter: @unchecked Sendable { // Sendable: state behind a lock.
    private let lock = NSLock()
    private var calls = 0
    private var failAt: Int?
    private var fault: FileSystem.Fault = .error(EIO)
    private var fillsDisk = false
    private(set) var failed: (call: FileSystem.Call, path: String)?

    /// Fails call `failAt` with `fault`; with `fillsDisk`, the disk fills instead: the first write from call
    /// `failAt` on meets `fault` (a short write) and every write after it `ENOSPC`, as on a full disk.
    func arm(failAt: Int?, with fault: FileSystem.Fault = .error(EIO), fillsDisk: Bool = false) {
        lock.withLock {
            calls = 0
            self.failAt = failAt
            self.fault = fault
            self.fillsDisk = fillsDisk
            failed = nil
        }
    }

    var count: Int { lock.withLock { calls } }

    var fileSystem: FileSystem {
        FileSystem { [self] call, path in
            lock.withLock {
                calls += 1
                if fillsDisk {
                    guard let failAt, calls >= failAt, call == .write else { return nil }
                    if failed != nil { return .error(ENOSPC) }
                    failed = (call, path)
                    return fault
                }
                guard calls == failAt else { return nil }
                if case .shortWrite = fault, call != .write { return .error(EIO) }
                failed = (call, path)
                return fault
            }
        }
    }
}

@Suite("ArchiveCache: faults")
struct CacheFaultTests {
    /// The operations a fault is injected into, each after the same setup.
    enum Operation: String, CaseIterable {
        case setNew, setReplace, setEvicting, remove, removeExpired, trim, setSynchronous
    }

    /// For every operation and every system call it makes, fail that call (EIO, ENOSPC, a short write) and
    /// check: the operation throws or succeeds, every entry acknowledged before is still read back exactly,
    /// the key being written reads as its old or its new value, no temporary file is left, and a fresh
    /// cache's count of what the directory takes on disk is what `du` counts.
    @Test(arguments: Operation.allCases)
    func everySingleFaultLeavesEveryAcknowledgedEntryReadable(operation: Operation) throws {
        var callCount = 0
        var kinds: Set<FileSystem.Call> = []
        for (fault, fillsDisk) in [(FileSystem.Fault.error(EIO), false), (.error(ENOSPC), false), (.shortWrite(10), false),
                                   (.shortWrite(10), true)] {
            var n = 0   // 0: a run without a fault, which counts the calls
            repeat {
                let fixture = try CacheFixture()
                let counter = FaultCounter()
                let synchronous = operation == .setSynchronous
                let options = fixture.options(countLimit: operation == .setEvicting ? 5 : 0, ttl: .hours(1),
                                              durability: synchronous ? .synchronous : .relaxed)
                var acknowledged: [String: [UInt8]] = [:]
                do {
                    let setup = try fixture.bytesCache(options)
                    for i in 0..<5 {
                        try setup.set(payload("k\(i)", 0), forKey: "k\(i)", timeToLive: i == 4 ? .seconds(30) : .hours(1))
                        acknowledged["k\(i)"] = payload("k\(i)", 0)
                    }
                }
                let fresh: ArchiveCache<[UInt8]>
                do {   // the faulted cache lives in this scope only
                let cache = try fixture.bytesCache(options, fileSystem: counter.fileSystem)
                _ = cache.statistics   // loads the index outside the counted calls
                counter.arm(failAt: n == 0 ? nil : n, with: fault, fillsDisk: fillsDisk)
                let (changing, failure) = Self.perform(operation, on: cache, clock: fixture.clock)
                if operation == .setEvicting && failure == nil { acknowledged["k0"] = nil }
                let succeeded = failure == nil
                if let failed = counter.failed { kinds.insert(failed.call) }
                if let failure {
                    #expect([StoreError.Code.io, .durabilityUnknown].contains(failure.code), "call \(n): \(failure)")
                }
                if n == 0 {
                    callCount = counter.count
                    #expect(failure == nil, "\(operation) without a fault: \(String(describing: failure))")
                }
                if succeeded, let changing {
                    if let new = changing.new { acknowledged[changing.key] = new } else { acknowledged[changing.key] = nil }
                }
                // The entries as the same cache and as a fresh one (plain kernel calls) see them.
                counter.arm(failAt: nil)
                // A set that meets a full disk evicts the oldest segment and tries once more: those entries are
                // gone (counted as evictions), never wrong.
                let fullDisk = counter.failed != nil && fault != .error(EIO)
                let evictions = cache.statistics.evictions
                var evictedForRoom = 0
                fresh = try fixture.bytesCache(fixture.options(ttl: .hours(1)))
                for (key, value) in acknowledged where !(operation == .removeExpired && key == "k4") {
                    if key == changing?.key && !succeeded { continue }
                    // Evicted: by the trim, or by the set's eviction, which may fail after it freed an entry.
                    if operation == .trim || (operation == .setEvicting && key == "k0"), try fresh.value(forKey: key) == nil { continue }
                    if fullDisk, evictions > 0, try fresh.value(forKey: key) == nil, try cache.value(forKey: key) == nil {
                        evictedForRoom += 1
                        continue
                    }
                    #expect(try fresh.value(forKey: key) == value, "\(operation) fault \(fault) at call \(n): \(key)")
                    #expect(try cache.value(forKey: key) == value, "\(operation) fault \(fault) at call \(n): \(key) (same cache)")
                }
                #expect(evictedForRoom <= evictions, "\(operation) fault \(fault) at call \(n): \(evictedForRoom) missing, \(evictions) evicted")
                if let changing, !succeeded {
                    let seen = try fresh.value(forKey: changing.key)
                    let old = changing.key == "new" ? nil : payload(changing.key, 0)
                    #expect(seen == old || seen == changing.new, "\(operation) at call \(n): \(changing.key) is neither old nor new")
                }
                }
                // A writer's section (the fresh cache's) cuts off what a failed append left and sweeps temporaries.
                try fresh.set([0], forKey: "after")
                #expect(!fixture.files().contains { $0.contains(".tmp-") }, "\(operation) fault at call \(n) left \(fixture.files())")
                #expect(fresh.statistics.byteCount == fixture.diskUsage(), "\(operation) at call \(n): counted against du")
                n += 1
            } while n <= callCount
            #expect(callCount > 2, "\(operation) made \(callCount) calls")
        }
        // The faults reach every kind of call the operation makes through the one seam: the lock, the reads
        // and writes of the table and segments, the syncs, the removals.
        var reached: Set<FileSystem.Call> = [.lock, .status, .read, .write]
        switch operation {
        case .setNew, .setReplace: break
        case .setEvicting: reached.formUnion([.open])   // evicting by count stops within a segment
        case .setSynchronous: reached.formUnion([.sync])
        case .remove: break
        case .removeExpired: break
        case .trim: reached.formUnion([.open, .unlink, .list])
        }
        #expect(kinds.isSuperset(of: reached), "\(operation): reached \(kinds.map(\.rawValue).sorted())")
    }

    /// Runs one operation; returns the key it changes (with its new value, `nil` for a removal) and its error.
    static func perform(_ operation: Operation, on cache: ArchiveCache<[UInt8]>, clock: ManualClock)
        -> (changing: (key: String, new: [UInt8]?)?, failure: StoreError?)
    {
        var changing: (key: String, new: [UInt8]?)?
        do {
            switch operation {
            case .setNew, .setSynchronous, .setEvicting:
                changing = ("new", payload("new", 1))
                try cache.set(payload("new", 1), forKey: "new")
            case .setReplace:
                changing = ("k1", payload("k1", 1))
                try cache.set(payload("k1", 1), forKey: "k1")
            case .remove:
                changing = ("k2", nil)
                try cache.removeValue(forKey: "k2")
            case .removeExpired:
                clock.advance(60)
                changing = ("k4", nil)
                _ = try cache.removeExpired()
            case .trim:
                try cache.trim(toByteLimit: 1_000)   // evicts the least recent entries
            }
            return (changing, nil)
        } catch {
            return (changing, error)
        }
    }

    @Test func fullDiskFailsSetWithIOWhileReadsKeepAnswering() throws {
        let fixture = try CacheFixture()
        let full = FileSystem { call, _ in call == .write ? .shortWrite(3) : nil }
        let writer = try fixture.bytesCache()
        try writer.set([1], forKey: "k")
        let cache = try fixture.bytesCache(fixture.options(), fileSystem: full)
        let error = #expect(throws: StoreError.self) { try cache.set([2], forKey: "k") }
        #expect(error?.code == .io)
        #expect(error?.errno == ENOSPC)
        #expect(try cache.value(forKey: "k") == [1])
        #expect(!fixture.files().contains { $0.contains(".tmp-") })
    }

    @Test func unwritableDirectoryFailsSetWithIOWhileReadsKeepAnswering() throws {
        let fixture = try CacheFixture()
        let writer = try fixture.bytesCache()
        try writer.set([1], forKey: "k")
        let blocked = try ArchiveCache<[UInt8]>(directory: fixture.path, registry: .standard, options: fixture.options(),
                                                fileSystem: FileSystem { call, path in
                                                    call == .write && path.hasSuffix(".seg") ? .error(EACCES) : nil
                                                }, keyHash: { StableHash($0.utf8) })
        let error = #expect(throws: StoreError.self) { try blocked.set([2], forKey: "k") }
        #expect(error?.code == .io)
        #expect(error?.errno == EACCES)
        #expect(try blocked.value(forKey: "k") == [1])
    }

    /// With `.synchronous`, a set whose table sync fails after the slot is written is in place: reported as
    /// durability unknown, and read back. (The set's first table sync is the unfinished mark's, made before
    /// the new head segment: it passes here.)
    @Test func aFailedSyncAfterTheSlotIsWrittenIsDurabilityUnknownAndTheEntryIsThere() throws {
        let fixture = try CacheFixture()
        _ = try fixture.bytesCache().statistics   // the table exists
        let tableSyncs = Shared(0)
        let failTableSync = FileSystem { call, path in
            guard call == .sync && path.hasSuffix("cache.table") else { return nil }
            tableSyncs.value += 1
            return tableSyncs.value == 2 ? .error(EIO) : nil
        }
        let cache = try fixture.bytesCache(fixture.options(durability: .synchronous), fileSystem: failTableSync)
        let error = #expect(throws: StoreError.self) { try cache.set([7], forKey: "k") }
        #expect(error?.code == .durabilityUnknown)
        #expect(tableSyncs.value == 2)
        #expect(try cache.value(forKey: "k") == [7])
        #expect(try fixture.bytesCache().value(forKey: "k") == [7])
    }

    /// With `.synchronous`, a set that starts a segment file syncs the table's unfinished mark first; when
    /// that sync fails, nothing has changed: the set fails with `.io` and the entry keeps its value.
    @Test func aFailedSyncOfTheUnfinishedMarkFailsTheSetBeforeAnyFileChanges() throws {
        let fixture = try CacheFixture()
        try fixture.bytesCache().set([1], forKey: "k")
        let files = fixture.files()
        let failTableSync = FileSystem { call, path in call == .sync && path.hasSuffix("cache.table") ? .error(EIO) : nil }
        let cache = try fixture.bytesCache(fixture.options(durability: .synchronous), fileSystem: failTableSync)
        let error = #expect(throws: StoreError.self) { try cache.set(Array(repeating: 7, count: 100_000), forKey: "k") }
        #expect(error?.code == .io)
        #expect(error?.errno == EIO)
        #expect(fixture.files() == files)
        #expect(try fixture.bytesCache().value(forKey: "k") == [1])
    }

    /// `.synchronous`: the frame is synced before the slot names it, and the table after; `.relaxed` syncs
    /// nothing.
    @Test func synchronousSetSyncsTheSegmentBeforeTheSlotAndTheTableAfter() throws {
        let fixture = try CacheFixture()
        _ = try fixture.bytesCache().statistics
        let log = CallLog()
        let cache = try fixture.bytesCache(fixture.options(durability: .synchronous), fileSystem: log.fileSystem)
        log.clear()
        try cache.set([1], forKey: "k")
        let calls = log.calls
        let syncSegment = calls.firstIndex { $0.0 == .sync && $0.1.hasSuffix(".seg") }
        let writeSlot = calls.lastIndex { $0.0 == .write && $0.1.hasSuffix("cache.table") }
        let syncTable = calls.lastIndex { $0.0 == .sync && $0.1.hasSuffix("cache.table") }
        #expect(syncSegment != nil && writeSlot != nil && syncTable != nil)
        if let syncSegment, let writeSlot, let syncTable {
            #expect(syncSegment < writeSlot && writeSlot < syncTable)
        }
        log.clear()
        let relaxed = try fixture.bytesCache(fixture.options(), fileSystem: log.fileSystem)
        log.clear()
        try relaxed.set([2], forKey: "j")
        #expect(!log.calls.contains { $0.0 == .sync })
    }
}
