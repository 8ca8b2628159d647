import BinaryPlist
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import KeyedArchive
import Testing
import TestSupport
@testable import ArchiveStore

/// A store file taken apart as a plist: its top dictionary, `$objects`, and where the records are.
struct StorePlist {
    var top: PlistDictionary
    var objects: [PlistValue]
    var rootUID: Int
    var arrayUID: Int
    var recordUIDs: [Int]

    static func records(_ range: Range<Int>) -> [FormRecord] {
        range.map {
            FormRecord(id: "id\($0)", name: "name\($0)", fields: ["k": "v\($0)"],
                       registeredAt: Date(timeIntervalSince1970: 1_000), expiresAt: Date(timeIntervalSince1970: 2_000))
        }
    }

    init(_ bytes: [UInt8]) throws {
        let plist = try PropertyList.decode(bytes)
        top = try #require(plist.dictionaryValue)
        objects = try #require(top["$objects"]?.arrayValue)
        rootUID = Int(try #require(top["$top"]?["root"]?.uidValue).value)
        arrayUID = Int(try #require(objects[rootUID]["records"]?.uidValue).value)
        recordUIDs = try #require(objects[arrayUID]["NS.objects"]?.arrayValue).map { Int($0.uidValue?.value ?? 0) }
    }

    var bytes: [UInt8] {
        get throws {
            var top = top
            top["$objects"] = .array(objects)
            return try PropertyList.encode(.dictionary(top))
        }
    }

    /// Sets `key` of the dictionary at `uid` to `value`.
    mutating func set(_ uid: Int, _ key: String, _ value: PlistValue) throws {
        var d = try #require(objects[uid].dictionaryValue)
        d[key] = value
        objects[uid] = .dictionary(d)
    }
}

/// Damaged and crafted store files against the quick paths (found in review): the repository reads any file
/// it did not write last in full, and the appender itself refuses what would change the meaning of stored
/// objects.
@Suite("Quick paths against damaged and crafted stores")
struct QuickPathSafetyTests {
    func storeBytes(_ count: Int) throws -> [UInt8] {
        try RepositoryFile<FormRecord>.encode(StorePlist.records(0..<count), path: "x")
    }

    /// Writes `bytes` as the store of a repository that wrote three records first (so that a digest is
    /// recorded), and checks that `add` reports the damage as the full path does, and writes nothing.
    func expectAddRefuses(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<FormRecord>(path: directory.file("Forms.archive"))
        for record in StorePlist.records(0..<3) { try repository.add(record) }
        try directory.write(bytes, to: "Forms.archive")
        let full = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try repository.all() }
        let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) {
            try repository.add(StorePlist.records(3..<4)[0])
        }
        #expect(error?.code == full?.code, sourceLocation: sourceLocation)
        #expect(error?.code == .corrupt || error?.code == .unsupportedVersion, sourceLocation: sourceLocation)
        #expect(try directory.read("Forms.archive") == bytes, sourceLocation: sourceLocation)
    }

    @Test func aRecordThatDoesNotDecodeStopsAdd() throws {
        var store = try StorePlist(try storeBytes(3))
        try store.set(store.recordUIDs[1], "name", .integer(42))
        try expectAddRefuses(try store.bytes)
        // The appender alone checks structure, not fields: the repository's digest is what sends this file
        // down the full path.
        #expect(try RepositoryFile<FormRecord>.appending(StorePlist.records(3..<4)[0], to: store.bytes, path: "x") != nil)
    }

    @Test func aRecordOfAnotherClassStopsAdd() throws {
        var store = try StorePlist(try storeBytes(3))
        try store.set(store.recordUIDs[1], "$class", try #require(store.objects[store.rootUID]["$class"]))
        try expectAddRefuses(try store.bytes)
        #expect(try RepositoryFile<FormRecord>.appending(StorePlist.records(3..<4)[0], to: store.bytes, path: "x") == nil)
    }

    @Test func aReferencePastTheObjectsIsNeverGivenTheNewRecordsData() throws {
        var store = try StorePlist(try storeBytes(3))
        try store.set(store.recordUIDs[0], "name", .uid(PlistUID(UInt64(store.objects.count + 1))))
        try expectAddRefuses(try store.bytes)
        let record = FormRecord(id: "new-id", name: "new-name", fields: [:], registeredAt: Date(timeIntervalSince1970: 5),
                                expiresAt: Date(timeIntervalSince1970: 6))
        #expect(try RepositoryFile<FormRecord>.appending(record, to: store.bytes, path: "x") == nil)
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiveAppender.appending(record, toArrayAt: ["root", "records"], in: store.bytes)
        }
        #expect(error?.code == .invalidReference)
    }

    @Test(arguments: [UInt64.max, 1 << 40])
    func aKeyFoundTwiceIsLeftToTheFullPath(lastUID: UInt64) throws {
        // The root holds "records" twice; readers differ on which wins, so the appender declines. The first
        // leads to a decoy array whose last element is a UID far past `$objects` (it trapped the appender).
        var store = try StorePlist(try storeBytes(2))
        var decoy = try #require(store.objects[store.arrayUID].dictionaryValue)
        decoy["NS.objects"] = .array([.uid(PlistUID(lastUID))])
        store.objects.append(.dictionary(decoy))
        let root = try #require(store.objects[store.rootUID].dictionaryValue)
        store.objects[store.rootUID] = .dictionary(PlistDictionary(entries: [
            .init(key: "records", value: .uid(PlistUID(UInt64(store.objects.count - 1)))),
            .init(key: "version", value: try #require(root["version"])),
            .init(key: "records", value: .uid(PlistUID(UInt64(store.arrayUID)))),
            .init(key: "$class", value: try #require(root["$class"])),
        ]))
        let bytes = try store.bytes
        #expect(try RepositoryFile<FormRecord>.appending(StorePlist.records(2..<3)[0], to: bytes, path: "x") == nil)
        #expect(try KeyedArchiveAppender.appending(StorePlist.records(2..<3)[0], toArrayAt: ["root", "records"], in: bytes) == nil)
    }

    @Test func canonicallyEquivalentStringsKeepTheirOwnScalars() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        func record(_ id: String, _ name: String, _ field: String) -> FormRecord {
            FormRecord(id: id, name: name, fields: [field: name], registeredAt: Date(timeIntervalSince1970: 1),
                       expiresAt: Date(timeIntervalSince1970: 2))
        }
        let records = [record("a", composed, composed), record("b", decomposed, decomposed)]
        let old = try RepositoryFile<FormRecord>.encode([records[0]], path: "x")
        let quick = try #require(try RepositoryFile<FormRecord>.appending(records[1], to: old, path: "x"))
        let decoded = try RepositoryFile<FormRecord>.decode(quick, path: "x").records
        #expect(decoded.map { Array($0.name.unicodeScalars) } == records.map { Array($0.name.unicodeScalars) })
        #expect(decoded.map { $0.fields.keys.map { Array($0.unicodeScalars) } } == records.map { $0.fields.keys.map { Array($0.unicodeScalars) } })
    }

    /// Seeded damage to store files, full-path and quick-appended ones, through every quick-path entry point:
    /// typed errors, `nil` or a lookup, never a trap.
    @Test func damagedStoresNeverTrapTheQuickPaths() throws {
        let full = try storeBytes(4)
        var appended = full
        for record in StorePlist.records(4..<7) {
            appended = try #require(try RepositoryFile<FormRecord>.appending(record, to: appended, path: "x"))
        }
        var rng = SeededGenerator(seed: 1)
        let record = StorePlist.records(9..<10)[0]
        for _ in 0..<2_000 {
            var bytes = Bool.random(using: &rng) ? full : appended
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<10, using: &rng) < 3
                    ? bytes.count - 1 - Int.random(in: 0..<min(bytes.count, 64), using: &rng)
                    : Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: bytes[at] = 0xFF
                case 1: bytes[at] = 0x00
                case 2: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                case 3: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 4: bytes[at] = [0x8F, 0x87, 0x1F, 0x13, 0xAF, 0xDF, 0x5F, 0x6F][Int.random(in: 0..<8, using: &rng)]
                default: bytes[at] &+= 1
                }
            }
            _ = RepositoryFile<FormRecord>.find("id2", in: bytes)
            _ = RepositoryFile<FormRecord>.find("zz", in: bytes)
            _ = try? RepositoryFile<FormRecord>.appending(record, to: bytes, path: "x")
            _ = try? KeyedArchiveAppender.appending(record, toArrayAt: ["root", "records"], in: bytes)
        }
    }

    // MARK: Files the repository writes itself (second review)

    @Test func aRecordThatWouldNotReadBackIsRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<FormRecord>(path: directory.file("Forms.archive"))
        let stored = StorePlist.records(0..<3)
        for record in stored { try repository.add(record) }
        let before = try directory.read("Forms.archive")
        for bad in [Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: .nan)] {
            var record = StorePlist.records(3..<4)[0]
            record.expiresAt = bad
            // Archived, the date does not read back: refused by the quick path's read-back, then by the full
            // path's, and nothing is written.
            let error = #expect(throws: StoreError.self) { try repository.add(record) }
            #expect(error?.code == .invalidArgument)
            #expect(try directory.read("Forms.archive") == before)
        }
        #expect(try repository.all() == stored)
        #expect(try repository.get("id1") == stored[1])
        try repository.add(StorePlist.records(5..<6)[0])
        #expect(try repository.all() == stored + StorePlist.records(5..<6))
    }

    @Test func getDecodesOnlyTheRecordItReturnsWhenTheFileIsTheOneLastWritten() throws {
        // Only the quick path can answer here: the file is damaged in another record, and its digest is
        // recorded as if the repository had written it.
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<FormRecord>(path: directory.file("Forms.archive"))
        for record in StorePlist.records(0..<3) { try repository.add(record) }
        var store = try StorePlist(try directory.read("Forms.archive"))
        try store.set(store.recordUIDs[2], "name", .integer(42))
        let damaged = try store.bytes
        try directory.write(damaged, to: "Forms.archive")
        StoreDigest.record(StoreDigest.of(damaged), at: repository.lockPath)
        #expect(try repository.get("id1") == StorePlist.records(1..<2)[0])
        #expect(throws: StoreError.self) { try repository.all() }
    }

    @Test func writingAStoreNeverOverwritesAnotherStoreNamedLikeItsLockFile() throws {
        let directory = try TemporaryDirectory()
        let forms = ArchiveRepository<FormRecord>(path: directory.file("Forms.archive"))
        let other = ArchiveRepository<FormRecord>(path: directory.file("Forms.archive.lock"))
        let kept = StorePlist.records(0..<2)
        for record in kept { try other.add(record) }
        try forms.add(StorePlist.records(5..<6)[0])
        try forms.add(StorePlist.records(6..<7)[0])
        #expect(try other.all() == kept)
        #expect(try forms.all() == StorePlist.records(5..<7))
    }

    @Test func getDoesNotWaitOnALockPathThatIsAFIFO() throws {
        let directory = try TemporaryDirectory()
        let repository = ArchiveRepository<FormRecord>(path: directory.file("Forms.archive"))
        for record in StorePlist.records(0..<2) { try repository.add(record) }
        try FileManager.default.removeItem(atPath: repository.lockPath)
        #expect(mkfifo(repository.lockPath, 0o600) == 0)
        let result = Locked<FormRecord??>(nil)
        let thread = Thread { result.withLock { $0 = .some(try? repository.get("id1")) } }
        thread.start()
        // A liveness bound, not a timing target: a `get` that waits for a writer on the FIFO never finishes.
        for _ in 0..<20_000 where result.withLock({ $0 }) == nil { usleep(1_000) }
        if result.withLock({ $0 }) == nil {
            Issue.record("get waited on the FIFO at the lock path")
            let fd = open(repository.lockPath, O_WRONLY | O_NONBLOCK)  // lets it go on
            if fd >= 0 { close(fd) }
            while result.withLock({ $0 }) == nil { usleep(1_000) }
        }
        #expect(result.withLock { $0 } == .some(StorePlist.records(1..<2)[0]))
    }
}
