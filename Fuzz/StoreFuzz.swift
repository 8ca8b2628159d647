// libFuzzer entry for the readers of ArchiveRepository's store: the record log and its index. Compiled by
// Fuzz/run.sh into the ArchiveStore module (so that internal types are reachable), with FuzzFiles.swift,
// against BinaryPlist and KeyedArchive built as libraries.
//
// Input: split at "|||" into a store file, an index file, (optionally) a second store file and (optionally) the
// file of the record's property index on `name` (`<store>.index-name`), written into a fresh directory. Then every read (all, get of a few ids, count, expired) must return records or throw
// StoreError, and agree with each other (a record `all` returns is what `get` returns for its id). With a
// second store file, it is then written over the first in place (the same file, as another process's commits
// or damage would change it) and the open repository must read it as a fresh one does, or throw. A
// transaction (add, update, remove) and a write (add) must either succeed, after which the store holds their
// changes, or fail leaving the store file exactly as it was. Queries answered from the property indexes (which
// may come from the fuzzed file) must return exactly what a full scan of `records()` returns: a damaged index is
// rebuilt, never trusted.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
#if canImport(Glibc)
import Glibc
#endif

/// The record the seeds hold: archived as `FormRecord` (id, name, fields, registeredAt, expiresAt), as
/// `formcache` writes it; the store target is built without the FormCache module.
struct FuzzRecord: ExpiringRecord, Equatable {
    var id: String
    var name: String
    var fields: [String: String]
    var registeredAt: Date
    var expiresAt: Date

    static var archivedClassName: String { "FormRecord" }
    var expiryDate: Date? { expiresAt }
    static let indexes: [RecordIndex<FuzzRecord>] = [
        RecordIndex("registeredAt", \.registeredAt), RecordIndex("expiresAt", \.expiresAt), RecordIndex("name", \.name),
    ]

    init(id: String, name: String, fields: [String: String], registeredAt: Date, expiresAt: Date) {
        (self.id, self.name, self.fields, self.registeredAt, self.expiresAt) = (id, name, fields, registeredAt, expiresAt)
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(fields, forKey: "fields")
        coder.encode(registeredAt, forKey: "registeredAt")
        coder.encode(expiresAt, forKey: "expiresAt")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        name = try coder.decode(String.self, forKey: "name")
        fields = try coder.decode([String: String].self, forKey: "fields")
        registeredAt = try coder.decode(Date.self, forKey: "registeredAt")
        expiresAt = try coder.decode(Date.self, forKey: "expiresAt")
    }
}

func storeFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

private func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return bytes }
        bytes += chunk[0..<n]
    }
}

/// Queries from the indexes against a scan of `all` (records in log order).
private func checkQueries(_ repository: ArchiveRepository<FuzzRecord>, _ all: [FuzzRecord], when: String) {
    // Dates that are not numbers have no order to compare with.
    guard all.allSatisfy({ !$0.expiresAt.timeIntervalSinceReferenceDate.isNaN && !$0.registeredAt.timeIntervalSinceReferenceDate.isNaN })
    else { return }
    if let found = try? repository.records(matching: RecordQuery().sorted(by: \.name)) {
        let expected = all.enumerated().sorted { a, b in
            a.element.name != b.element.name ? a.element.name.utf8.lexicographicallyPrecedes(b.element.name.utf8) : a.offset < b.offset
        }.map(\.element)
        if found != expected { storeFinding("\(when): sorted by name from the index \(found.map(\.id)), a scan \(expected.map(\.id))") }
    }
    let limit = Date(timeIntervalSince1970: 1_500)
    if let found = try? repository.ids(matching: RecordQuery().where(\.expiresAt, in: ...limit)) {
        let expected = all.filter { $0.expiresAt <= limit }.map(\.id)
        if found != expected { storeFinding("\(when): expired from the index \(found), a scan \(expected)") }
    }
    if let largest = try? repository.max(of: \.registeredAt), largest != all.map(\.registeredAt).max() {
        storeFinding("\(when): the largest registeredAt from the index differs from a scan's")
    }
}

private func checkStore(log: [UInt8], index: [UInt8], later: [UInt8]?, propertyIndex: [UInt8]?) {
    let directory = fuzzDirectory + "/s"
    removeTree(directory)
    mkdir(directory, 0o700)
    let path = directory + "/Forms.archive"
    writeFile(log, to: path)
    if !index.isEmpty { writeFile(index, to: path + ".index") }
    if let propertyIndex { writeFile(propertyIndex, to: path + ".index-name") }
    var options = RepositoryOptions()
    options.tuning.mergeFrames = 2
    options.tuning.compactionFloor = 0
    options.lockTimeout = 0.01
    let repository = ArchiveRepository<FuzzRecord>(path: path, options: options)
    if let all = try? repository.records() {
        for record in all.prefix(8) {
            guard let found = try? repository.get(record.id) else { continue }   // a damaged frame may stop get alone
            if found != record { storeFinding("get(\(record.id)) differs from the record records() returned") }
        }
        if let count = try? repository.count(), count != all.count, RecordLog.isLog(log) {
            storeFinding("count() \(count) but records() returned \(all.count)")
        }
        checkQueries(repository, all, when: "opened")
    }
    _ = try? repository.get("id0")
    _ = try? repository.expired(at: Date(timeIntervalSince1970: 1_500))
    if let later {
        // The open repository brought up to date by its refresh, against one that opens the file now.
        writeFile(later, to: path)
        let open = try? repository.records()
        let fresh = try? ArchiveRepository<FuzzRecord>(path: path, options: options).records()
        if let open, let fresh, open != fresh {
            storeFinding("the open repository reads \(open.map(\.id)) after the file changed, a new one \(fresh.map(\.id))")
        }
        if let open, (try? repository.count()).map({ $0 != open.count }) == true {
            storeFinding("count() disagrees with records() after a refresh")
        }
        if let open { checkQueries(repository, open, when: "after the file changed") }
    }
    let current = readFile(path)
    do {
        let kept = try repository.write { transaction -> Bool in
            try transaction.add(FuzzRecord(id: "fuzz-tx", name: "t", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                                           expiresAt: Date(timeIntervalSince1970: 9_999)))
            _ = try transaction.remove("id1")
            return true
        }
        if kept, (try? repository.get("fuzz-tx")) == nil { storeFinding("a committed transaction does not read back") }
    } catch let error as StoreError {
        if [.corrupt, .unsupportedVersion, .damagedCommit].contains(error.code), readFile(path) != current {
            storeFinding("a failed transaction changed the store file (\(error))")
        }
    } catch {
        storeFinding("a transaction threw \(error)")
    }
    let new = FuzzRecord(id: "fuzz-new", name: "n", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                         expiresAt: Date(timeIntervalSince1970: 9_999))
    let beforeAdd = readFile(path)
    do {
        try repository.add(new)
        guard let after = try? repository.get("fuzz-new"), after == new else {
            storeFinding("an acknowledged add does not read back")
        }
    } catch {
        if [.corrupt, .unsupportedVersion, .damagedCommit].contains(error.code), readFile(path) != beforeAdd {
            storeFinding("a failed add changed the store file (\(error))")
        }
        if error.code == .damagedCommit {
            // The recovery keeps the file as it was and leaves a log that reads. Its records are kept as they
            // were: one whose frame is intact but whose bytes are no archive still fails to decode, by name.
            if (try? repository.recoverDamagedCommit()) != nil {
                if readFile(path + ".before-recovery") != beforeAdd { storeFinding("recovery did not keep the file as it was") }
                if (try? repository.count()) == nil { storeFinding("a recovered store does not read") }
                do {
                    _ = try repository.records()
                } catch {
                    if error.code != .corrupt || !error.reason.hasPrefix("cannot read a record") {
                        storeFinding("a recovered store fails as a store: \(error)")
                    }
                }
            }
        }
    }
    _ = try? repository.removeExpired(at: Date(timeIntervalSince1970: 1_500))
    if let all = try? repository.records() { checkQueries(repository, all, when: "after the writes") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var parts: [[UInt8]] = []
    var partStart = 0
    var i = 0
    while i + 2 < bytes.count, parts.count < 3 {
        if bytes[i] == 124 && bytes[i + 1] == 124 && bytes[i + 2] == 124 {
            parts.append(Array(bytes[partStart..<i]))
            i += 3
            partStart = i
        } else {
            i += 1
        }
    }
    parts.append(Array(bytes[partStart...]))
    checkStore(log: parts[0], index: parts.count > 1 ? parts[1] : [], later: parts.count > 2 && !parts[2].isEmpty ? parts[2] : nil,
               propertyIndex: parts.count > 3 ? parts[3] : nil)
    return 0
}
