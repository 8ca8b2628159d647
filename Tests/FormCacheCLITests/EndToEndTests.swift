import TestSupport
import ArchiveStore
import CommandLineSupport
import Foundation
import Testing
import FormCache

/// Tests that launch the built `formcache` binary with a temporary FORMCACHE_HOME.
@Suite("formcache binary, end to end")
struct EndToEndTests {
    let scratch: TemporaryDirectory
    var directory: String { scratch.path }
    let environment: [String: String]

    init() throws {
        scratch = try TemporaryDirectory(prefix: "formcache-e2e")
        environment = ["FORMCACHE_HOME": scratch.file("home"), "HOME": scratch.path, "PATH": "/usr/bin:/bin"]
    }

    var storePath: String { directory + "/home/FormCache.cache" }

    func formcache(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try Spawn.run(try Spawn.formcache, arguments, environment: environment)
    }

    /// The ids in the store, read in-process through the library.
    func storedIDs() throws -> [String] {
        try FormCache(directory: directory + "/home").list(includeExpired: true).map(\.id)
    }

    @Test func addGetListPathAndVersionThroughTheBinary() throws {
        defer { scratch.remove() }
        let added = try formcache("add", "--name", "signup", "--field", "email=a@b.c", "--ttl", "12h")
        #expect(added.status == 0)
        #expect(added.stderr.isEmpty)
        let id = String(added.stdout.dropLast())
        #expect(added.stdout == id + "\n")
        let got = try formcache("get", id, "--json")
        #expect(got.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(got.stdout.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "signup")
        #expect(object["fields"] as? [String: String] == ["email": "a@b.c"])
        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(try formcache("list", "--json").stdout.utf8)) as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == [id])
        #expect(try formcache("path").stdout == directory + "/home\n")
        #expect(try formcache("--version").stdout == PackageVersion.current + "\n")

        var mode = stat()
        #expect(stat(storePath, &mode) == 0 && mode.st_mode & 0o777 == 0o600)
        #expect(stat(directory + "/home", &mode) == 0 && mode.st_mode & 0o777 == 0o700)
    }

    @Test func exitStatusesThroughTheBinary() throws {
        defer { scratch.remove() }
        let missing = try formcache("get", "nope")
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("Error: "))
        #expect(try formcache("add").status == 64)
        #expect(try formcache("add", "--name", "n").status == 0)
        try Data("corrupt".utf8).write(to: URL(fileURLWithPath: storePath))
        #expect(try formcache("list").status == 65)
        let fd = open(storePath + ".lock", O_RDWR)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        #expect(try Spawn.run(try Spawn.formcache, ["move-aside"], environment: environment.merging(["FORMCACHE_LOCK_TIMEOUT": "0.05"]) { $1 }).status == 75)
    }

    @Test func eightProcessesAddingAHundredEachLeaveExactly800() throws {
        defer { scratch.remove() }
        let binary = try Spawn.formcache
        let script = """
            i=0
            while [ $i -lt 100 ]; do
              "$0" add --name "worker-$1-$i" || exit 1
              i=$((i+1))
            done
            """
        let workers = try (0..<8).map { worker in
            try Spawn.start("/bin/sh", ["-c", script, binary, String(worker)], environment: environment)
        }
        let results = workers.map { $0.finish() }
        #expect(results.map(\.status) == Array(repeating: 0, count: 8), "\(results.map(\.stderr))")
        let printed = results.flatMap { $0.stdout.split(separator: "\n").map(String.init) }
        #expect(printed.count == 800)
        let stored = try storedIDs()
        #expect(stored.count == 800)
        #expect(Set(stored) == Set(printed))
    }

    @Test func writerKilledAtRandomMomentsNeverLosesAConfirmedRecord() throws {
        defer { scratch.remove() }
        let binary = try Spawn.formcache
        var confirmed: Set<String> = []
        // Seed the store so that each write takes a while, and learn how long an add takes, to aim the kills.
        var durations: [UInt64] = []
        for index in 0..<20 {
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try Spawn.run(binary, ["add", "--name", "seed-\(index)", "--field", "note=\(String(repeating: "x", count: 200))"], environment: environment)
            durations.append(DispatchTime.now().uptimeNanoseconds - start)
            #expect(result.status == 0)
            confirmed.insert(String(result.stdout.dropLast()))
        }
        let window = max(durations.sorted()[durations.count / 2] * 3 / 2, 1_000_000)
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        let seeds = confirmed
        var removed: Set<String> = []
        for round in 0..<240 {
            // Adds, removals of a confirmed record, and updates, each killed at a random moment.
            let victim = confirmed.subtracting(seeds).sorted().last
            let arguments: [String]
            switch round % 3 {
            case 1 where victim != nil: arguments = ["remove", victim ?? ""]
            case 2: arguments = ["update", seeds.sorted()[round % seeds.count], "--field", "round=\(round)"]
            default: arguments = ["add", "--name", "victim-\(round)"]
            }
            let child = try Spawn.start(binary, arguments, environment: environment)
            usleep(UInt32(UInt64.random(in: 0...window, using: &generator) / 1_000))
            if kill(child.pid, SIGKILL) == 0 { killed += 1 }
            let result = child.finish()
            let printed = result.stdout.split(separator: "\n").map(String.init)
            switch arguments[0] {
            case "add": if let id = printed.first, printed.count == 1 { confirmed.insert(id) }
            case "remove":
                // Killed or not, the record may be gone; once removal is confirmed it must stay gone.
                confirmed.remove(arguments[1])
                if result.status == 0 { removed.insert(arguments[1]) }
            default: break
            }
            let stored = Set(try storedIDs())
            #expect(confirmed.isSubset(of: stored), "round \(round): lost \(confirmed.subtracting(stored))")
            #expect(removed.isDisjoint(with: stored), "round \(round): removed records came back")
        }
        // The lock file and at most nothing else besides the store may remain; stray temporaries are allowed
        // (a killed writer cannot clean up) but must never be mistaken for the store.
        #expect(killed > 0)
        #expect(try formcache("list", "--json").status == 0)
    }

    @Test(.disabled(if: Sanitizers.thread, "ulimit -f stops the thread sanitizer's runtime before the tool runs"))
    func aWriteThatHitsTheFileSizeLimitFailsWith74AndKeepsTheOldStore() throws {
        defer { scratch.remove() }
        for index in 0..<5 {
            #expect(try formcache("add", "--name", "n\(index)", "--id", "id-\(index)").status == 0)
        }
        let before = try #require(FileManager.default.contents(atPath: storePath))
        // RLIMIT_FSIZE makes write(2) fail with EFBIG at any offset past the limit, as a full disk would;
        // SIGXFSZ is ignored so that the process sees the error instead of dying. The log ends in zeros written
        // ahead of its next commit: the limit is put at its last commit, where the next one would be written.
        let committed = (before.lastIndex(where: { $0 != 0 }) ?? 0) + 1
        let blocks = committed / 512
        let script = "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" add --name big --field note=\(String(repeating: "y", count: 4_096))"
        let result = try Spawn.run("/bin/sh", ["-c", script, try Spawn.formcache], environment: environment)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: "))
        // Every committed byte is as it was; the zeros past the last commit may be cut off.
        let after = try #require(FileManager.default.contents(atPath: storePath))
        #expect(after.count >= committed && after.count <= before.count)
        #expect(after == before.prefix(after.count))
        #expect(try storedIDs() == (0..<5).map { "id-\($0)" })
        #expect(try formcache("add", "--name", "n5", "--id", "id-5").status == 0)
        #expect(try storedIDs() == (0..<6).map { "id-\($0)" })
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory + "/home").filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }
}
