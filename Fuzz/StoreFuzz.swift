// libFuzzer entry for the readers of ArchiveRepository's store: the record log and its index. Compiled by
// Fuzz/run.sh into the ArchiveStore module (so that internal types are reachable), with FuzzFiles.swift,
// against BinaryPlist and KeyedArchive built as libraries.
//
// Input: split at the first "|||" into a store file and an index file, written into a fresh directory.
// Then every read (all, get of a few ids, count, expired) must return records or throw StoreError, and agree
// with each other (a record `all` returns is what `get` returns for its id); a write (add) must either
// succeed, after which `all` holds the new record, or fail leaving the store file exactly as it was.
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
struct FuzzRecord: ArchiveRecord, Equatable {
    var id: String
    var name: String
    var fields: [String: String]
    var registeredAt: Date
    var expiresAt: Date

    static var archivedClassName: String { "FormRecord" }
    var expiryDate: Date? { expiresAt }

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

private func checkStore(log: [UInt8], index: [UInt8]) {
    let directory = fuzzDirectory + "/s"
    removeTree(directory)
    mkdir(directory, 0o700)
    let path = directory + "/Forms.archive"
    writeFile(log, to: path)
    if !index.isEmpty { writeFile(index, to: path + ".index") }
    var options = RepositoryOptions()
    options.tuning.mergeFrames = 2
    options.tuning.compactionFloor = 0
    options.lockTimeout = 0.01
    let repository = ArchiveRepository<FuzzRecord>(path: path, options: options)
    if let all = try? repository.all() {
        for record in all.prefix(8) {
            guard let found = try? repository.get(record.id) else { continue }   // a damaged frame may stop get alone
            if found != record { storeFinding("get(\(record.id)) differs from the record all() returned") }
        }
        if let count = try? repository.count(), count != all.count, RecordLog.isLog(log) {
            storeFinding("count() \(count) but all() returned \(all.count)")
        }
    }
    _ = try? repository.get("id0")
    _ = try? repository.expired(at: Date(timeIntervalSince1970: 1_500))
    let new = FuzzRecord(id: "fuzz-new", name: "n", fields: [:], registeredAt: Date(timeIntervalSince1970: 1),
                         expiresAt: Date(timeIntervalSince1970: 9_999))
    do {
        try repository.add(new)
        guard let after = try? repository.get("fuzz-new"), after == new else {
            storeFinding("an acknowledged add does not read back")
        }
    } catch {
        if [.corrupt, .unsupportedVersion, .damagedCommit].contains(error.code), readFile(path) != log {
            storeFinding("a failed add changed the store file (\(error))")
        }
        if error.code == .damagedCommit {
            // The recovery keeps the file as it was and leaves a store that reads.
            if (try? repository.recoverDamagedCommit()) != nil {
                if readFile(path + ".before-recovery") != log { storeFinding("recovery did not keep the file as it was") }
                if (try? repository.all()) == nil { storeFinding("a recovered store does not read") }
            }
        }
    }
    _ = try? repository.removeExpired(at: Date(timeIntervalSince1970: 1_500))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var log = bytes
    var index: [UInt8] = []
    if let cut = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0] == 124 && bytes[$0 + 1] == 124 && bytes[$0 + 2] == 124 }) {
        log = Array(bytes[..<cut])
        index = Array(bytes[(cut + 3)...])
    }
    checkStore(log: log, index: index)
    return 0
}
