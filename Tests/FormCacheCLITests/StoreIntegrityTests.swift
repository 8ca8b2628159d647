import ArchivePlatform
import FormCache
import TestSupport
@testable import ArchiveStore
import CommandLineSupport
import Foundation
import Testing
@testable import FormCacheCLI

/// The defects an outside fault-injection run of `formcache` found, one named test each.
@Suite("formcache: store integrity")
struct StoreIntegrityTests {
    private func copyDirectory(_ source: String, to destination: String) throws {
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: destination + "/" + name)
        }
    }

    private func replace(_ path: String, withCopyOf source: String) throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }

    /// Options that write the index at every commit, inside it: small stores get one, as large ones do.
    private var indexedEveryCommit: RepositoryOptions {
        var options = RepositoryOptions()
        options.tuning.mergeFrames = 1
        options.tuning.maintainsInBackground = false
        return options
    }

    /// The reproduction from the issue: two copies of one store diverge, each with a change of equal frame
    /// size, and one copy's index is copied into the other. The index names which history it covers (the
    /// chain of its frames' checksums), so the other copy sets it aside instead of trusting it.
    @Test func anIndexFromADivergedCopyOfTheStoreIsSetAside() throws {
        let a = try Harness()
        let first = FormCache(directory: a.home, options: indexedEveryCommit)
        try first.add(name: "one", id: "r1")
        try first.add(name: "two", id: "r2")
        let b = try Harness()
        try copyDirectory(a.home, to: b.home)
        try first.update("r1", name: "uno")
        try first.add(name: "a-one", id: "a1")
        let second = FormCache(directory: b.home, options: indexedEveryCommit)
        try second.update("r2", name: "dos")
        try second.add(name: "b-one", id: "b1")
        try replace(b.storePath + ".index", withCopyOf: a.storePath + ".index")

        let got = b.run("get", "b1")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(b.run("get", "r2", "--json").stdout.contains("\"dos\""))
        let listed = b.run("list").stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: " ").first ?? "") }
        #expect(listed.sorted() == ["b1", "r1", "r2"])
        let duplicate = b.run("add", "--name", "again", "--id", "r1")
        #expect(duplicate.status == 1)
        // A later writer replaces the foreign index with this store's own.
        try FormCache(directory: b.home, options: indexedEveryCommit).add(name: "more", id: "b2")
        #expect(b.run("get", "b1").status == 0)
        #expect(b.run("list").stdout.split(separator: "\n").count == 1 + 4)   // the header line and four records
        let index = try #require(FileManager.default.contents(atPath: b.storePath + ".index"))
        #expect(readLittleEndian([UInt8](index), 32, width: 8) == 4)
    }

    /// A flipped byte in the newest commit slot costs nothing: the slot is a checkpoint, the older one is used
    /// and the newest commit found through the chain of its frames. Every verb works; nothing is recovered.
    @Test func aFlippedByteInTheCurrentCommitSlotLosesNothing() throws {
        let harness = try Harness()
        for id in ["x1", "x2", "x3"] { _ = harness.add("--name", id, "--id", id) }
        var bytes = try #require(harness.storeBytes())
        let newest = RecordLog.slotOffset(of: try RecordLog.prologue(Array(bytes[0..<RecordLog.firstFrame]), path: "x").state)
        bytes[newest + 9] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: harness.storePath))
        #expect(harness.run("get", "x3").status == 0)
        #expect(harness.run("list").stdout.split(separator: "\n").count == 1 + 3)
        #expect(harness.run("recover").status == 1)   // nothing to recover
        #expect(harness.run("add", "--name", "y", "--id", "y").status == 0)
        #expect(harness.run("list").stdout.split(separator: "\n").count == 1 + 4)
    }

    /// A flipped byte in a frame committed after the newest slot, while a later commit follows it through the
    /// chain (the slot writes lost to a power cut, then bit rot): the later commit proves the damaged one was
    /// made, so the store is reported (65, with the way out), never cut off, and the bytes kept until
    /// `recover` keeps every intact commit.
    @Test func aDamagedCommitFollowedByAnotherIsReportedAndRecoverable() throws {
        let harness = try Harness()
        for id in ["x1", "x2"] { _ = harness.add("--name", id, "--id", id) }
        let prologue = try #require(harness.storeBytes()).prefix(RecordLog.firstFrame)
        // Where the third add's frame goes: the committed length (the file runs on, zeros written ahead).
        let third = try RecordLog.prologue([UInt8](prologue), path: "x").state.committed
        for id in ["x3", "x4"] { _ = harness.add("--name", id, "--id", id) }
        var bytes = try #require(harness.storeBytes())
        bytes.replaceSubrange(0..<RecordLog.firstFrame, with: prologue)   // the slots of the second add
        bytes[third + 60] ^= 0x20   // inside x3's frame
        try bytes.write(to: URL(fileURLWithPath: harness.storePath))
        for arguments in [["get", "x4"], ["list"], ["add", "--name", "y"]] {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 65, "\(arguments)")
            #expect(outcome.stderr.contains("are hidden by the damage; nothing was cut off"), "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("formcache recover"), "\(arguments)")
        }
        #expect(harness.storeBytes() == bytes)
        let recovered = harness.run("recover")
        #expect(recovered.status == 0)
        #expect(recovered.stdout == "1\n")   // x4's frame; x3's was damaged
        #expect(harness.run("get", "x4").status == 0)
        #expect(harness.run("get", "x3").status == 1)
        #expect(FileManager.default.contents(atPath: harness.storePath + ".before-recovery") == bytes)
        #expect(harness.run("recover").status == 1)   // nothing left to recover
    }

    /// The index path is checked like the store and lock paths: each kind of file that must not be there is
    /// refused (74), by readers and writers, and nothing is written through it.
    @Test(arguments: ["symbolic link", "hard link", "FIFO", "directory"])
    func anythingButARegularFileAtTheIndexPathIsRefusedWith74(kind: String) throws {
        let harness = try Harness()
        _ = harness.add("--name", "before", "--id", "b")
        let index = harness.storePath + ".index"
        let target = harness.directory.file("target")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        try? FileManager.default.removeItem(atPath: index)   // a store this small has none
        switch kind {
        case "symbolic link": try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: target)
        case "hard link": try FileManager.default.linkItem(atPath: target, toPath: index)
        case "FIFO": #expect(mkfifo(index, 0o600) == 0)
        default: try FileManager.default.createDirectory(atPath: index, withIntermediateDirectories: false)
        }
        for arguments in [["get", "b"], ["list"], ["add", "--name", "n"]] {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 74, "\(kind): \(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(".index"), "\(kind): \(arguments)")
        }
        #expect(FileManager.default.contents(atPath: target) == Data("precious".utf8))
    }

    /// Random bytes at the index path, or damaged entries, are the store's own damaged index: read around by
    /// readers, and dealt with by the next writer: replaced when the store is large enough to need an index,
    /// removed when it is not; never read around for ever.
    @Test func randomBytesOrDamagedEntriesAtTheIndexPathAreRebuiltOrRemoved() throws {
        let harness = try Harness()
        let indexed = FormCache(directory: harness.home, options: indexedEveryCommit)
        for i in 0..<40 { try indexed.add(name: "n\(i)", id: "id\(i)") }
        let index = harness.storePath + ".index"
        try Data((0..<500).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: index))
        #expect(harness.run("list").stdout.split(separator: "\n").count == 1 + 40)
        try FormCache(directory: harness.home, options: indexedEveryCommit).add(name: "next", id: "next")
        let rebuilt = try #require(FileManager.default.contents(atPath: index))
        #expect(rebuilt.prefix(8) == Data("ARCHIDX3".utf8))

        // Damage the last entry: readers read the log instead; the next writer (of a store far below the
        // size that needs an index, with the default options) removes it.
        var damaged = [UInt8](rebuilt)
        damaged[damaged.count - 1] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: index))
        #expect(harness.run("list").status == 0)
        #expect(harness.run("get", "id39").status == 0)
        _ = harness.add("--name", "after", "--id", "after")
        #expect(!FileManager.default.fileExists(atPath: index))
        #expect(harness.run("get", "id39").status == 0)
        #expect(harness.run("list").stdout.split(separator: "\n").count == 1 + 42)
    }

    /// `update`, `purge` and `import` say that the change was made when standard output fails after it, as
    /// `add` does (running them again would do it twice or fail).
    @Test func updatePurgeAndImportSayTheChangeWasMadeWhenStandardOutputFails() throws {
        let harness = try Harness()
        _ = harness.add("--name", "x", "--id", "u1")
        _ = harness.add("--name", "y", "--id", "u2")
        let export = harness.directory.file("all.archive")
        #expect(harness.run("export", export).status == 0)
        func run(_ arguments: [String]) -> (status: Int32, stderr: String) {
            let err = OutputCapture()
            let status = FormCacheTool.run(arguments: arguments, environment: harness.environment,
                                           io: CommandIO(stdout: .failing(ENOSPC), stderr: err.sink), clock: harness.clock)
            return (status, err.text)
        }
        let updated = run(["update", "u1", "--name", "changed"])
        #expect(updated.status == 74)
        #expect(updated.stderr == "Error: cannot write to standard output; the record u1 was updated\n")
        #expect(harness.run("get", "u1", "--json").stdout.contains("\"changed\""))
        let purged = run(["purge", "--all"])
        #expect(purged.status == 74)
        #expect(purged.stderr == "Error: cannot write to standard output; 2 records were removed\n")
        let imported = run(["import", export])
        #expect(imported.status == 74)
        #expect(imported.stderr == "Error: cannot write to standard output; 2 records were imported\n")
        #expect(harness.run("list").stdout.split(separator: "\n").count == 1 + 2)
    }

    /// `import` reads a pipe or a FIFO to its end, as `cat` does: `formcache import <(...)`, `/dev/stdin`.
    @Test func importReadsAPipeAFIFOAndStandardInput() throws {
        let source = try Harness()
        _ = source.add("--name", "p", "--id", "p1")
        _ = source.add("--name", "q", "--id", "p2")
        let export = source.directory.file("all.archive")
        #expect(source.run("export", export).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: export))

        let fromFIFO = try Harness()
        let fifo = fromFIFO.directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(bytes)
                handle.closeFile()
            }
        }
        writer.start()
        let imported = fromFIFO.run("import", fifo)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "p1\np2\n")

        let fromPipe = try Harness()
        let piped = try Spawn.start("/bin/sh", ["-c", "cat \"$1\" | \"$2\" import /dev/stdin", "sh", export, try Spawn.formcache],
                                    environment: fromPipe.environment).finish()
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == "p1\np2\n")

        let fromStdin = try Harness()
        let redirected = try Spawn.start(try Spawn.formcache, ["import", "/dev/stdin"], environment: fromStdin.environment,
                                         stdinFile: export).finish()
        #expect(redirected.status == 0, "\(redirected.stderr)")
        #expect(fromStdin.run("list").stdout.split(separator: "\n").count == 1 + 2)
    }
}
