import ArchivePlatform
import FormCache
import TestSupport
@testable import ArchiveStore
import CommandLineSupport
import Foundation
import Testing
@testable import FormCacheCLI

/// The defects an outside fault-injection run of `formcache` found (issue 19), one named test each.
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

    /// The reproduction from the issue: two copies of one store diverge, each with a change of equal frame
    /// size, and one copy's index is copied into the other. The index names which history it covers (the
    /// chain of its frames' checksums), so the other copy sets it aside instead of trusting it.
    @Test func anIndexFromADivergedCopyOfTheStoreIsSetAside() throws {
        let a = try Harness()
        _ = a.add("--name", "one", "--id", "r1")
        _ = a.add("--name", "two", "--id", "r2")
        let b = try Harness()
        try copyDirectory(a.home, to: b.home)
        #expect(a.run("update", "r1", "--name", "uno").status == 0)
        try FileManager.default.removeItem(atPath: a.storePath + ".index")
        _ = a.add("--name", "a-one", "--id", "a1")
        #expect(b.run("update", "r2", "--name", "dos").status == 0)
        _ = b.add("--name", "b-one", "--id", "b1")
        try replace(b.storePath + ".index", withCopyOf: a.storePath + ".index")

        let got = b.run("get", "b1")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(b.run("get", "r2", "--json").stdout.contains("\"dos\""))
        let listed = b.run("list").stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: " ").first ?? "") }
        #expect(listed.sorted() == ["b1", "r1", "r2"])
        let duplicate = b.run("add", "--name", "again", "--id", "r1")
        #expect(duplicate.status == 1)
        // Later writes replace the foreign index with this store's own.
        _ = b.add("--name", "more", "--id", "b2")
        #expect(b.run("get", "b1").status == 0)
        #expect(b.run("list").stdout.split(separator: "\n").count == 1 + 4)   // the header line and four records
    }

    /// A flipped byte in the newer commit slot, with the frames it committed intact, is reported (65, with
    /// the way out), never rolled back silently, and the bytes are kept until `recover` keeps the commit.
    @Test func aFlippedByteInTheCurrentCommitSlotIsReportedAndRecoverable() throws {
        let harness = try Harness()
        for id in ["x1", "x2", "x3"] { _ = harness.add("--name", id, "--id", id) }
        var bytes = try #require(harness.storeBytes())
        // Three commits after the first: the newest is slot B's (sequence 3 is odd), at byte 128.
        bytes[128 + 9] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: harness.storePath))
        for arguments in [["get", "x3"], ["list"], ["add", "--name", "y"]] {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 65, "\(arguments)")
            #expect(outcome.stderr.contains("the newest commit may be lost; nothing was cut off"), "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("formcache recover"), "\(arguments)")
        }
        #expect(harness.storeBytes() == bytes)
        let recovered = harness.run("recover")
        #expect(recovered.status == 0)
        #expect(recovered.stdout == "1\n")
        #expect(harness.run("get", "x3").status == 0)
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
        try FileManager.default.removeItem(atPath: index)
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

    /// Random bytes at the index path, or a damaged bucket, are the store's own damaged index: rebuilt by the
    /// next writer (or removed by a reader that finds the damage while the lock is free), never read around
    /// for ever.
    @Test func randomBytesOrADamagedBucketAtTheIndexPathAreRebuilt() throws {
        let harness = try Harness()
        for i in 0..<40 { _ = harness.add("--name", "n\(i)", "--id", "id\(i)") }
        let index = harness.storePath + ".index"
        try Data((0..<500).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: index))
        _ = harness.add("--name", "next", "--id", "next")
        let rebuilt = try #require(FileManager.default.contents(atPath: index))
        #expect(rebuilt.prefix(8) == Data("ARCHIDX2".utf8))

        // Damage the last bucket's entries: the reader that meets it removes the index.
        var damaged = [UInt8](rebuilt)
        damaged[damaged.count - 1] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: index))
        #expect(harness.run("list").status == 0)
        #expect(!FileManager.default.fileExists(atPath: index))
        _ = harness.add("--name", "after", "--id", "after")
        #expect(FileManager.default.contents(atPath: index)?.prefix(8) == Data("ARCHIDX2".utf8))
        #expect(harness.run("get", "id39").status == 0)
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
