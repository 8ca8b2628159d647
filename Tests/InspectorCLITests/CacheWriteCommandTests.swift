import TestSupport
import ArchiveStore
import CommandLineSupport
import Foundation
import InspectorCLI
import Testing

/// `keyedarchive cache set`, `cache remove` and `cache get --raw`: writes from the command line, stored as
/// `ArchiveCache<[UInt8]>` stores bytes.
@Suite("keyedarchive cache set / remove")
struct CacheWriteCommandTests {
    let directory: TemporaryDirectory
    var cache: String { directory.file("cache") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "inspector-write")
        try FileManager.default.createDirectory(atPath: directory.file("cache"), withIntermediateDirectories: false)
    }

    func value(_ bytes: [UInt8]) throws -> String {
        let file = directory.file("value-\(bytes.count)")
        try directory.write(bytes, to: "value-\(bytes.count)")
        return file
    }

    @Test(arguments: ["synchronous", "relaxed"])
    func setStoresTheFilesBytesWhichTheLibraryAndGetRawReadBack(durability: String) throws {
        let bytes: [UInt8] = [0, 1, 2, 255, 10, 13]
        let set = inspect(["cache", "set", "--durability", durability, cache, "key one", try value(bytes)])
        #expect(set.status == 0)
        #expect(set.stdout.isEmpty)
        #expect(set.stderr == "")
        #expect(try ArchiveCache<[UInt8]>(directory: cache).value(forKey: "key one") == bytes)
        let raw = inspect(["cache", "get", "--raw", cache, "key one"])
        #expect(raw.status == 0)
        #expect(raw.stdout == bytes)
        let json = inspect(["cache", "get", cache, "key one"])
        #expect(json.text == "{\"data\": \"AAEC/woN\"}\n")
    }

    @Test func aLargeValueGoesToAFileOfItsOwnAndReadsBackWhole() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(inspect(["cache", "set", cache, "big", try value(bytes)]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/large").count == 1)
        #expect(inspect(["cache", "get", "--raw", cache, "big"]).stdout == bytes)
    }

    @Test func theTimeToLiveSetsTheExpiry() throws {
        let before = Date()
        #expect(inspect(["cache", "set", "--ttl", "90s", cache, "short", try value([1])]).status == 0)
        let entry = try #require(try ArchiveCache<[UInt8]>(directory: cache).entries().first { $0.key == "short" })
        let expires = try #require(entry.expires)
        #expect(expires.timeIntervalSince(before) >= 89 && expires.timeIntervalSince(before) <= 91 + Date().timeIntervalSince(before))
        #expect(inspect(["cache", "set", cache, "default", try value([2])]).status == 0)
        let standard = try #require(try ArchiveCache<[UInt8]>(directory: cache).entries().first { $0.key == "default" }?.expires)
        #expect(abs(standard.timeIntervalSince(before) - 30 * 86_400) < 60)
    }

    @Test func setReplacesAndRemoveRemoves() throws {
        #expect(inspect(["cache", "set", cache, "k", try value([1])]).status == 0)
        #expect(inspect(["cache", "set", cache, "k", try value([2, 2])]).status == 0)
        #expect(inspect(["cache", "get", "--raw", cache, "k"]).stdout == [2, 2])
        let removed = inspect(["cache", "remove", cache, "k"])
        #expect(removed.status == 0)
        #expect(removed.stdout.isEmpty && removed.stderr == "")
        let gone = inspect(["cache", "get", "--raw", cache, "k"])
        #expect(gone.status == 1)
        #expect(gone.stderr == "Error: \(cache): no live entry for key \"k\"\n")
        #expect(try ArchiveCache<[UInt8]>(directory: cache).value(forKey: "k") == nil)
        // A key with no entry: no error, as `rm -f`.
        #expect(inspect(["cache", "remove", "--durability", "relaxed", cache, "k"]).status == 0)
    }

    @Test func getRawOfAValueThatIsNotBytesIsADataError() throws {
        let strings = try ArchiveCache<String>(directory: cache)
        try strings.set("text", forKey: "s")
        let raw = inspect(["cache", "get", "--raw", cache, "s"])
        #expect(raw.status == 65)
        #expect(raw.stdout.isEmpty)
        #expect(raw.stderr == "Error: store: \(cache): record 's': the entry's value is not bytes (stored by 'cache set' or an ArchiveCache<[UInt8]>)\n")
        #expect(try strings.value(forKey: "s") == "text", "the entry is still there")
    }

    @Test func refusals() throws {
        let file = try value([1])
        expectUsageError(["cache", "set", "--durability", "sometimes", cache, "k", file])
        expectUsageError(["cache", "set", "--ttl", "5y", cache, "k", file])
        expectUsageError(["cache", "set", cache])
        expectUsageError(["cache", "remove", cache])
        expectUsageError(["cache", "get", "--raw", "--archive", cache, "k"])
        expectUsageError(["cache", "exercise", "--writer", "1", "--operations", "1", "--durability", "often", cache])
        let missing = inspect(["cache", "set", cache, "k", directory.file("nothing")])
        #expect(missing.status == 66)
        #expect(missing.stderr == "Error: \(directory.file("nothing")): cannot open: No such file or directory\n")
        let noDirectory = inspect(["cache", "set", directory.file("absent"), "k", file])
        #expect(noDirectory.status == 66)
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent")))
        #expect(try ArchiveCache<[UInt8]>(directory: cache).entries().isEmpty)
    }

    @Test func exerciseRunsAtEitherDurability() throws {
        for durability in ["synchronous", "relaxed"] {
            let run = inspect(["cache", "exercise", "--writer", "3", "--operations", "40", "--durability", durability, cache])
            #expect(run.status == 0)
            #expect(run.text.hasPrefix("exercise: writer=3 operations=40 "))
            #expect(run.text.hasSuffix(" wrong=0\n"))
        }
    }
}
