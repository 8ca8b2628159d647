import ArchiveStore
import Foundation
import Testing
import FormCache

@Suite("formcache with a damaged, locked or hostile store")
struct StoreFailureTests {
    static let damaged: [(String, [UInt8])] = [
        ("empty", []),
        ("text", Array("hello, not an archive".utf8)),
        ("truncated bplist", Array("bplist00".utf8) + [0xD1, 0x01]),
    ]

    @Test(arguments: 0..<3)
    func unreadableStoreExits65AndIsNeverOverwritten(index: Int) throws {
        let harness = try Harness()
        _ = harness.add("--name", "n")
        let bytes = Data(Self.damaged[index].1)
        try bytes.write(to: URL(fileURLWithPath: harness.storePath))
        for arguments in [["get", "x"], ["list"], ["list", "--json"], ["add", "--name", "m"], ["remove", "x"], ["purge", "--all"]] {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 65, "\(arguments)")
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.hasPrefix("Error: "))
            #expect(outcome.stderr.contains("formcache move-aside"))
        }
        #expect(harness.storeBytes() == bytes)
    }

    @Test func moveAsideRenamesAnUnreadableStoreAndAFreshOneStarts() throws {
        let harness = try Harness()
        _ = harness.add("--name", "n")
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: harness.storePath))
        let moved = harness.run("move-aside")
        #expect(moved.status == 0)
        #expect(moved.stdout == harness.storePath + ".corrupt-20240501T120000Z\n")
        #expect(FileManager.default.contents(atPath: String(moved.stdout.dropLast())) == Data("garbage".utf8))
        #expect(!FileManager.default.fileExists(atPath: harness.storePath))
        let id = harness.add("--name", "fresh")
        #expect(harness.run("get", id).status == 0)
    }

    @Test func moveAsideLeavesAReadableStoreAlone() throws {
        let harness = try Harness()
        #expect(harness.run("move-aside").status == 1)
        let id = harness.add("--name", "n")
        let outcome = harness.run("move-aside")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.hasPrefix("Error: "))
        #expect(harness.run("get", id).status == 0)
    }

    @Test func storeLockedByAnotherProcessExits75() throws {
        let harness = try Harness()
        _ = harness.add("--name", "n")
        let fd = open(harness.storePath + ".lock", O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        harness.environment["FORMCACHE_LOCK_TIMEOUT"] = "0.05"
        let outcome = harness.run("add", "--name", "m")
        #expect(outcome.status == 75)
        #expect(outcome.stderr.hasPrefix("Error: "))
        #expect(outcome.stderr.contains("Hint: "))
        #expect(harness.run("list", "--json").status == 0)
        flock(fd, LOCK_UN)
        #expect(harness.run("add", "--name", "m").status == 0)
    }

    @Test func symbolicLinkStoreIsRefusedWith74() throws {
        let harness = try Harness()
        try FileManager.default.createDirectory(atPath: harness.home, withIntermediateDirectories: true)
        let target = harness.home + "/target"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: harness.storePath, withDestinationPath: target)
        for arguments in [["list"], ["add", "--name", "n"]] {
            let outcome = harness.run(arguments)
            #expect(outcome.status == 74, "\(arguments)")
            #expect(outcome.stderr.contains("symbolic link"))
        }
        #expect(FileManager.default.contents(atPath: target) == Data("precious".utf8))
    }

    @Test func unwritableDataDirectoryExits74() throws {
        let harness = try Harness()
        try Data().write(to: URL(fileURLWithPath: PathParts.parent(harness.home) + "/file"))
        harness.environment["FORMCACHE_HOME"] = PathParts.parent(harness.home) + "/file/sub"
        let outcome = harness.run("add", "--name", "n")
        #expect(outcome.status == 74)
        #expect(outcome.stderr.hasPrefix("Error: "))
    }
}
