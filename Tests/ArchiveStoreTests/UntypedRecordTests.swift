import Foundation
import KeyedArchive
import Testing
import TestSupport
@testable import ArchiveStore

/// A record that decodes a value without naming its type, as stores written before secure coding may hold.
struct LooseNote: ArchiveRecord {
    var id: String
    var payload: Any?

    init(id: String, payload: Any?) {
        self.id = id
        self.payload = payload
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encodeObject(payload, forKey: "payload")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        payload = try coder.decodeIfPresent(Any.self, forKey: "payload")
    }
}

@Suite("ArchiveRepository and secure coding")
struct UntypedRecordTests {
    @Test func aStoreOfRecordsThatDecodeUntypedValuesStillOpens() throws {
        let directory = try TemporaryDirectory()
        let notes = ArchiveRepository<LooseNote>(path: directory.file("data/Notes.archive"))
        try notes.add(LooseNote(id: "a", payload: ["k": 1]))
        try notes.add(LooseNote(id: "b", payload: "text"))
        // The full read (every record) and the lookup of one record by id read it alike.
        #expect(try notes.records().map(\.id) == ["a", "b"])
        #expect(try notes.get("a")?.payload as? [String: Int] == ["k": 1])
        #expect(try notes.get("b")?.payload as? String == "text")
        // The one-call API, secure by default, refuses the same records exported as one archive.
        try notes.exportArchive(to: directory.file("data/Notes.export"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("data/Notes.export"))))
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: RepositoryFile<LooseNote>.self, from: bytes,
                                                 registry: RepositoryFile<LooseNote>.registry)
        }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath == "root.records.records.payload")
    }
}
