import FormCache
import ArchiveStore
import Foundation
import Testing
import TestSupport
@testable import FormCacheCLI

/// `formcache list --sort/--descending/--limit/--offset` (from the store's indexes) and `formcache watch`
/// (one JSON line per change, with another process writing).
@Suite("formcache list --sort and watch")
struct ListSortAndWatchTests {
    func ids(_ outcome: Outcome) throws -> [String] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        return array.compactMap { $0["id"] as? String }
    }

    @Test func listSortsByNameAndDatesWithAWindowReadingOnlyWhatItPrints() throws {
        let harness = try Harness()
        for (id, name, ttl) in [("a", "delta", "3d"), ("b", "alpha", "1d"), ("c", "charlie", "5d"), ("d", "bravo", "2d")] {
            _ = harness.add("--name", name, "--id", id, "--ttl", ttl)
            harness.clock.advance(by: 60)
        }
        #expect(try ids(harness.run("list", "--json", "--sort", "name")) == ["b", "d", "c", "a"])
        #expect(try ids(harness.run("list", "--json", "--sort", "expires", "--descending")) == ["c", "a", "d", "b"])
        #expect(try ids(harness.run("list", "--json", "--sort", "registered", "--descending", "--limit", "2")) == ["d", "c"])
        #expect(try ids(harness.run("list", "--json", "--sort", "registered", "--offset", "1", "--limit", "2")) == ["b", "c"])
        #expect(try ids(harness.run("list", "--json", "--limit", "1")) == ["a"])
        harness.clock.advance(by: 2 * 86_400)   // b and d expire
        #expect(try ids(harness.run("list", "--json", "--sort", "name")) == ["c", "a"])
        #expect(try ids(harness.run("list", "--json", "--sort", "name", "--include-expired")) == ["b", "d", "c", "a"])
        #expect(harness.run("list", "--sort", "name").stdout.split(separator: "\n").count == 3)   // header and two rows
        let cache = try FormCache(directory: harness.home, clock: harness.clock)
        let before = cache.repository.statistics.recordsDecoded
        #expect(try cache.list(matching: RecordQuery().sorted(by: \.name).limit(1)).map(\.id) == ["c"])
        #expect(cache.repository.statistics.recordsDecoded - before == 1)
        #expect(try cache.purge(dryRun: true).map(\.id) == ["b", "d"])
    }

    @Test func listRefusesBadSortKeysAndCounts() throws {
        let harness = try Harness()
        #expect(harness.run("list", "--sort", "size").status == 64)
        #expect(harness.run("list", "--sort", "size").stderr.contains("--sort takes registered, expires or name, not 'size'."))
        #expect(harness.run("list", "--limit", "-1").status == 64)
        #expect(harness.run("list", "--offset", "x").status == 64)
        #expect(harness.run("list", "--descending").status == 64)
    }

    @Test func watchPrintsOneJSONLinePerChangeMadeByAnotherProcess() throws {
        let scratch = try TemporaryDirectory(prefix: "formcache-watch")
        defer { scratch.remove() }
        let environment = ["FORMCACHE_HOME": scratch.file("home"), "HOME": scratch.path, "PATH": "/usr/bin:/bin"]
        #expect(try Spawn.run(try Spawn.formcache, ["add", "--name", "first", "--id", "one"], environment: environment).status == 0)
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: try Spawn.formcache)
        watcher.arguments = ["watch", "--count", "2"]
        watcher.environment = environment
        let out = Pipe(), err = Pipe()
        watcher.standardOutput = out
        watcher.standardError = err
        try watcher.run()
        // Stderr says when it is watching: changes from then on are seen.
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("\n") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += chunk
        }
        #expect(String(decoding: said, as: UTF8.self).hasPrefix("Watching "))
        #expect(try Spawn.run(try Spawn.formcache, ["add", "--name", "second", "--id", "two"], environment: environment).status == 0)
        // The first change is printed before the second commit: two commits that reach the watcher together are
        // one change (the net of both), so a loaded machine would otherwise print one line and wait for another.
        var printed = Data()
        while !String(decoding: printed, as: UTF8.self).contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += chunk
        }
        #expect(try Spawn.run(try Spawn.formcache, ["remove", "one"], environment: environment).status == 0)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        let lines = String(decoding: printed + out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines == """
            {"added": ["two"], "updated": [], "removed": [], "reload": false}
            {"added": [], "updated": [], "removed": ["one"], "reload": false}

            """)
    }
}
