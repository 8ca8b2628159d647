import ArchivePlatform
import FormCache
import TestSupport
@testable import ArchiveStore
import CommandLineSupport
import Foundation
import Testing
@testable import FormCacheCLI

/// The defects that fault injection and hostile environments found, one named test each.
@Suite("formcache under faults and hostile environments")
struct HostileEnvironmentTests {
    func run(_ harness: Harness, _ arguments: [String], stdout: OutputSink) -> (status: Int32, stderr: String) {
        let err = OutputCapture()
        let status = FormCacheTool.run(arguments: arguments, environment: harness.environment,
                                       io: CommandIO(stdout: stdout, stderr: err.sink), clock: harness.clock)
        return (status, err.text)
    }

    // 1. A failed write to standard output is exit 74; add says the record was stored, with its id.
    @Test func failedWriteToStandardOutputExits74AndAddSaysTheRecordIsStored() throws {
        let harness = try Harness()
        let added = run(harness, ["add", "--name", "x", "--id", "kept"], stdout: .failing(ENOSPC))
        #expect(added.status == 74)
        #expect(added.stderr == "Error: cannot write to standard output; the record was stored, with id kept\n")
        #expect(harness.run("get", "kept").status == 0)
        for arguments in [["list"], ["list", "--json"], ["get", "kept"], ["purge", "--all", "--dry-run"], ["path"]] {
            let outcome = run(harness, arguments, stdout: .failing(EPIPE))
            #expect(outcome.status == 74, "\(arguments)")
            #expect(outcome.stderr.hasSuffix("Error: cannot write to standard output: Broken pipe\n"), "\(arguments): \(outcome.stderr)")
        }
        let purged = run(harness, ["purge", "--all"], stdout: .failing(ENOSPC))
        #expect(purged.status == 74)
        #expect(harness.run("list", "--include-expired").stdout == "")   // the purge itself happened
    }

    /// Linux only: other platforms have no `/dev/full` (the in-process test above covers them).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "/dev/full exists (Linux)"))
    func addWithStandardOutputOnDevFullExits74() throws {
        let harness = try Harness()
        let child = try Spawn.start(try Spawn.formcache, ["add", "--name", "x", "--id", "full"],
                                    environment: harness.environment, stdoutFile: "/dev/full")
        let result = child.finish()
        #expect(result.status == 74)
        #expect(result.stderr == "Error: cannot write to standard output; the record was stored, with id full\n")
        #expect(harness.run("get", "full").status == 0)
        let listed = try Spawn.start(try Spawn.formcache, ["list"], environment: harness.environment, stdoutFile: "/dev/full").finish()
        #expect(listed.status == 74)
        #expect(listed.stderr == "Error: cannot write to standard output: No space left on device\n")
    }

    // 2. A FIFO (or any non-regular file) at the store or lock path is reported at once, never opened blocking.
    @Test(arguments: ["FormCache.cache", "FormCache.cache.lock"])
    func fifoAtTheStorePathIsReportedAtOnce(name: String) throws {
        let harness = try Harness()
        _ = harness.add("--name", "before")
        let path = harness.home + "/" + name
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        // Reads never open the lock file; a write does.
        let commands = name.hasSuffix(".lock") ? [["add", "--name", "y"]] : [["get", "x"], ["list"], ["add", "--name", "y"]]
        for arguments in commands {
            let start = Date()
            let outcome = harness.run(arguments)
            #expect(Date().timeIntervalSince(start) < 5, "\(arguments) waited")
            #expect(outcome.status == 74, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("not a regular file"), "\(arguments): \(outcome.stderr)")
        }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)   // left as it was
    }

    // 3. A data directory whose path is not UTF-8 is refused (64), never rewritten into another directory.
    @Test func nonUTF8DataDirectoryIsRefusedNotRewritten() throws {
        let harness = try Harness()
        let base = PathParts.parent(harness.home)
        var environment = harness.environment
        environment["FORMCACHE_HOME"] = nil
        let raw = Array("FORMCACHE_HOME=\(base)/a".utf8) + [0xFF]
        let child = try Spawn.start(try Spawn.formcache, ["add", "--name", "x"], environment: environment, rawEnvironment: [raw])
        let result = child.finish()
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: store: $FORMCACHE_HOME is not valid UTF-8"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.hasPrefix("a") } == [])
        // In process: the value arrives marked, and the data directory refuses it.
        let marked = "\u{0}" + base + "/a\u{FFFD}"
        let error = #expect(throws: StoreError.self) {
            try DataDirectory.resolve(application: "formcache", environment: ["FORMCACHE_HOME": marked])
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func environmentValuesThatAreNotUTF8ArriveMarked() {
        let name = "KEYED_ARCHIVE_TEST_\(getpid())"
        var value: [CChar] = Array("/tmp/a".utf8).map { CChar(bitPattern: $0) } + [CChar(bitPattern: 0xFF), 0]
        #expect(setenv(name, &value, 1) == 0)
        defer { unsetenv(name) }
        #expect(StandardProcess.environment[name] == "\u{0}/tmp/a\u{FFFD}")
        #expect(setenv(name, "/tmp/é", 1) == 0)
        #expect(StandardProcess.environment[name] == "/tmp/é")
    }

    // 4. A lock or store file with another hard link is refused, and the linked file is left unchanged.
    @Test(arguments: ["FormCache.cache.lock", "FormCache.cache"])
    func hardLinkedStoreFilesAreRefusedAndLeftUnchanged(name: String) throws {
        let harness = try Harness()
        _ = harness.add("--name", "before")
        let path = harness.home + "/" + name
        let outside = PathParts.parent(harness.home) + "/outside"
        let content = Data("precious\n".utf8)
        try content.write(to: URL(fileURLWithPath: outside))
        #expect(chmod(outside, 0o644) == 0)
        try FileManager.default.removeItem(atPath: path)
        #expect(link(outside, path) == 0)
        let commands = name.hasSuffix(".lock") ? [["add", "--name", "y"]] : [["add", "--name", "y"], ["list"]]
        for arguments in commands {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 74, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("refusing a file with 2 hard links"), "\(arguments): \(outcome.stderr)")
        }
        #expect(FileManager.default.contents(atPath: outside) == content)
        let mode = try FileManager.default.attributesOfItem(atPath: outside)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o644)
    }

    // 5. Temporary files of a killed writer are removed by the next write.
    @Test func staleTemporaryFilesAreRemovedByTheNextWrite() throws {
        let harness = try Harness()
        _ = harness.add("--name", "before")
        let stale = [harness.home + "/.FormCache.cache.tmp-99999-1", harness.home + "/.FormCache.cache.tmp-1-2"]
        for path in stale { try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: path)) }
        let other = harness.home + "/.notes.tmp-1"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: other))
        #expect(harness.run("list").status == 0)   // reading removes nothing
        #expect(stale.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        _ = harness.add("--name", "after")
        #expect(!stale.contains { FileManager.default.fileExists(atPath: $0) })
        #expect(FileManager.default.fileExists(atPath: other))
    }

    // 6. The commit's sync failing: its frames are cut off again and the add fails with nothing stored; when
    // they cannot be cut off either, the record may be stored: the outcome says so, with its id.
    @Test func aFailedSyncOfTheCommitIsCutOffOrReportsTheRecordItMayHaveStored() throws {
        let directory = try TemporaryDirectory(prefix: "formcache-durability")
        try FormCache(directory: directory.path).add(name: "first", id: "first")
        let store = directory.path + "/" + FormCache.fileName
        for truncateFails in [false, true] {
            var options = RepositoryOptions()
            options.fileSystem = FileSystem { call, path in
                guard path == store else { return nil }
                if call == .sync { return .error(EIO) }
                return call == .truncate && truncateFails ? .error(EIO) : nil
            }
            let cache = FormCache(directory: directory.path, options: options)
            let id = truncateFails ? "maybe" : "not-stored"
            let error = #expect(throws: StoreError.self) { try cache.add(name: "x", id: id) }
            if truncateFails {
                #expect(error?.code == .durabilityUnknown)
                #expect(error?.recordID == id)
                // The frames are whole and linked: the next reader (the lock free) syncs and takes them.
                #expect(try FormCache(directory: directory.path).get(id).name == "x")
                // A retry with the same id is refused rather than storing it twice.
                let retry = #expect(throws: StoreError.self) { try FormCache(directory: directory.path).add(name: "x", id: id) }
                #expect(retry?.code == .duplicateID)
            } else {
                #expect(error?.code == .io)
                #expect(error?.errno == EIO)
                let missing = #expect(throws: StoreError.self) { try FormCache(directory: directory.path).get(id) }
                #expect(missing?.code == .notFound)
                try FormCache(directory: directory.path).add(name: "x", id: id)
            }
        }
        #expect(try FormCache(directory: directory.path).list().map(\.id) == ["first", "not-stored", "maybe"])
    }
}
