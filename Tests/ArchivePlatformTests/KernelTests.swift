import ArchivePlatform
import Foundation
import Testing
import TestSupport

/// The kernel calls as the engines use them: each returns what the system did, or throws its `Errno`.
@Suite("Kernel calls")
struct KernelTests {
    @Test func writeThenReadAtOffsetsAndTruncate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/f"
        let fd = try FileDescriptor.open(path, [.readWrite, .create, .exclusive], permissions: 0o640)
        defer { fd.close() }
        let bytes: [UInt8] = Array("hello, kernel".utf8)
        #expect(try bytes.withUnsafeBytes { try fd.write(from: $0) } == bytes.count)
        #expect(try [UInt8]("K".utf8).withUnsafeBytes { try fd.write(from: $0, at: 7) } == 1)
        var back = [UInt8](repeating: 0, count: 6)
        #expect(try back.withUnsafeMutableBytes { try fd.read(into: $0, at: 7) } == 6)
        #expect(String(decoding: back, as: UTF8.self) == "Kernel")
        try fd.sync()
        try fd.truncate(to: 5)
        let status = try fd.status()
        #expect(status.size == 5)
        #expect(status.kind == .regular)
        #expect(status.permissions == 0o640)
    }

    @Test func anExclusiveCreateOfAnExistingFileIsEEXIST() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/f"
        try FileDescriptor.open(path, [.writeOnly, .create, .exclusive]).close()
        let error = #expect(throws: Errno.self) { try FileDescriptor.open(path, [.writeOnly, .create, .exclusive]) }
        #expect(error == .exists)
        let missing = #expect(throws: Errno.self) { try FileDescriptor.open(directory.path + "/none", [.readOnly]) }
        #expect(missing == .noSuchFile)
        #expect(missing?.description.isEmpty == false)
    }

    @Test func namesRenameLinkAndUnlink() throws {
        let directory = try TemporaryDirectory()
        let a = directory.path + "/a", b = directory.path + "/b", c = directory.path + "/c"
        try FileDescriptor.open(a, [.writeOnly, .create, .exclusive]).close()
        try Kernel.rename(a, b)
        try Kernel.link(b, c)
        #expect(try Kernel.status(atPath: a) == nil)
        #expect(try Kernel.status(atPath: c)?.linkCount == 2)
        try Kernel.unlink(b)
        try Kernel.makeDirectory(directory.path + "/d", permissions: 0o700)
        #expect(try Kernel.directoryEntries(directory.path).sorted() == ["c", "d"])
        #expect(try Kernel.status(atPath: directory.path + "/d")?.kind == .directory)
        try Kernel.removeDirectory(directory.path + "/d")
        #expect(try Kernel.directoryEntries(directory.path) == ["c"])
    }

    @Test func anExclusiveLockIsRefusedToASecondDescriptorUntilReleased() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/lock"
        let first = try FileDescriptor.open(path, [.readWrite, .create])
        let second = try FileDescriptor.open(path, [.readWrite])
        defer { first.close(); second.close() }
        #expect(try first.lock(exclusive: true, wait: false))
        #expect(try second.lock(exclusive: true, wait: false) == false)
        first.unlock()
        #expect(try second.lock(exclusive: true, wait: false))
    }

    @Test func theProcessCalls() {
        #expect(Kernel.processID == ProcessInfo.processInfo.processIdentifier)
        #expect(Kernel.environment()["PATH"] == ProcessInfo.processInfo.environment["PATH"])
        let before = Kernel.monotonicNanoseconds()
        Kernel.sleep(nanoseconds: 2_000_000)
        #expect(Kernel.monotonicNanoseconds() - before >= 2_000_000)
        #expect(Kernel.realTimeNanoseconds() > 1_700_000_000 * 1_000_000_000)
    }
}
