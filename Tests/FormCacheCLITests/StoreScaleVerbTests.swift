@testable import ArchiveStore
import Foundation
import Testing
import FormCache

/// The verbs and guarantees that came with the record-log store: export and import of one ordinary keyed
/// archive, update, streaming `list --json`, checksums over stored records, migration of old stores.
@Suite("formcache on the record-log store")
struct StoreScaleVerbTests {
    @Test func exportThenImportKeepsEveryRecordWithItsFieldsAndExpiry() throws {
        let source = try Harness()
        _ = source.add("--name", "a", "--id", "a", "--field", "email=a@example.com", "--ttl", "1h")
        _ = source.add("--name", "b", "--id", "b", "--ttl", "30d")
        source.clock.advance(by: 7_200)   // a is expired now, and still exported
        let file = source.home + "/../export.archive"
        let export = source.run("export", file)
        #expect(export.status == 0)
        #expect(export.stderr == "Exported 2 records to \(file).\n")
        let target = try Harness()
        target.clock.set(source.clock.now())
        _ = target.add("--name", "kept", "--id", "b")
        let imported = target.run("import", file)
        #expect(imported.status == 0)
        #expect(imported.stdout == "a\n")
        #expect(imported.stderr == "Imported 1 record; skipped 1 already present.\n")
        let all = try #require(try jsonObject(target.run("list", "--json", "--include-expired").stdout) as? [[String: Any]])
        #expect(all.map { $0["id"] as? String } == ["b", "a"])
        #expect(all[0]["name"] as? String == "kept")
        #expect(all[1]["fields"] as? [String: String] == ["email": "a@example.com"])
        let sourceA = try #require(try jsonObject(source.run("list", "--json", "--include-expired").stdout) as? [[String: Any]])
        #expect(all[1]["expiresAt"] as? String == sourceA[0]["expiresAt"] as? String)
        #expect(target.run("get", "a").status == 1)   // imported, and expired as it was
    }

    @Test func updateChangesNameFieldsAndExpiryAndRefusesMissingOrExpiredRecords() throws {
        let harness = try Harness()
        _ = harness.add("--name", "n", "--id", "r", "--field", "a=1", "--ttl", "1h")
        let updated = harness.run("update", "r", "--name", "m", "--field", "b=2", "--ttl", "2h")
        #expect(updated.status == 0)
        #expect(updated.stdout == "r\n")
        let record = try #require(try jsonObject(harness.run("get", "r", "--json").stdout) as? [String: Any])
        #expect(record["name"] as? String == "m")
        #expect(record["fields"] as? [String: String] == ["a": "1", "b": "2"])
        #expect(record["expiresAt"] as? String == "2024-05-01T14:00:00Z")
        #expect(harness.run("update", "missing", "--name", "x").status == 1)
        harness.clock.advance(by: 3 * 3_600)
        let expired = harness.run("update", "r", "--name", "late")
        #expect(expired.status == 1)
        #expect(expired.stderr.contains("the record has expired"))
        #expect(harness.run("update", "r", "--name", "").status == 64)
    }

    /// Defect 7: a byte changed inside a stored string is a corrupt store (65), and nothing overwrites it.
    @Test func aChangedByteInAStoredStringExits65AndTheStoreIsKept() throws {
        let harness = try Harness()
        for i in 0..<3 { _ = harness.add("--name", "form-\(i)", "--id", "id\(i)") }
        var bytes = [UInt8](try #require(harness.storeBytes()))
        let name = Array("form-1".utf8)
        let at = try #require((0..<bytes.count - name.count).first { bytes[$0..<$0 + name.count].elementsEqual(name) })
        bytes[at + 5] = UInt8(ascii: "9")
        try Data(bytes).write(to: URL(fileURLWithPath: harness.storePath))
        for arguments in [["list"], ["list", "--json"], ["get", "id1"], ["add", "--name", "x"], ["purge", "--all"], ["export", harness.home + "/x"]] {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 65, "\(arguments)")
            #expect(outcome.stderr.contains("a frame fails its checksum"), "\(arguments)")
            #expect(outcome.stderr.contains("at byte "), "\(arguments)")
        }
        #expect(harness.storeBytes().map { [UInt8]($0) } == bytes)
        #expect(harness.run("move-aside").status == 0)
        #expect(harness.run("list", "--json").stdout == "[]\n")
    }

    @Test func aStoreWrittenBeforeTheRecordLogOpensAndIsMigratedByTheFirstWrite() throws {
        let harness = try Harness()
        let old = (0..<3).map {
            FormRecord(id: "old\($0)", name: "old \($0)", fields: ["k": "\($0)"], registeredAt: may1, timeToLive: .defaultValue)
        }
        try FileManager.default.createDirectory(atPath: harness.home, withIntermediateDirectories: true)
        let bytes = try RepositoryFile<FormRecord>.encode(old, path: harness.storePath)
        try Data(bytes).write(to: URL(fileURLWithPath: harness.storePath))
        #expect(harness.run("get", "old1").status == 0)
        #expect(harness.storeBytes().map { [UInt8]($0) } == bytes)
        _ = harness.add("--name", "new", "--id", "new")
        #expect(RecordLog.isLog([UInt8](try #require(harness.storeBytes()))))
        let ids = try #require(try jsonObject(harness.run("list", "--json").stdout) as? [[String: Any]]).map { $0["id"] as? String }
        #expect(ids == ["old0", "old1", "old2", "new"])
    }

    @Test func listJSONStreamsManyChunksAsOneArray() throws {
        let harness = try Harness()
        let cache = FormCache(directory: harness.home, clock: harness.clock)
        let records = (0..<1_500).map {
            FormRecord(id: String(format: "r%04d", $0), name: String(repeating: "n", count: 100), fields: ["f": "\($0)"],
                       registeredAt: may1, timeToLive: .defaultValue)
        }
        try cache.repository.add(contentsOf: records, skippingExisting: false)
        let out = harness.run("list", "--json").stdout
        #expect(out.utf8.count > 3 * 65_536)
        let array = try #require(try jsonObject(out) as? [[String: Any]])
        #expect(array.map { $0["id"] as? String } == records.map(\.id))
        #expect(out.hasPrefix("[\n  {\"id\": \"r0000\"") && out.hasSuffix("}\n]\n"))
    }
}
