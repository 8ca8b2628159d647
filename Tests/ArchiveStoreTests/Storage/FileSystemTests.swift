import ArchivePlatform
import Foundation
import Testing
import TestSupport
@testable import ArchiveStore

@Suite("Storage floor: the file-system seam")
struct FileSystemTests {
    @Test func makeDirectoriesCreatesMissingParentsWithMode0700() throws {
        let directory = try TemporaryDirectory()
        try FileSystem.kernel.makeDirectories(directory.file("a/b/c"))
        #expect(try directory.mode("a") == 0o700)
        #expect(try directory.mode("a/b/c") == 0o700)
    }

    /// mkdir goes through the seam (a fault plan reaches it) and a file in the way is refused.
    @Test func makeDirectoriesFailsThroughTheSeamAndRefusesAFileInTheWay() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: StoreError.self) { try failing(.makeDirectory).makeDirectories(directory.file("a/b")) }
        #expect(error?.code == .io)
        #expect(error?.errno == EIO)
        #expect(try directory.entries() == [])
        try directory.write([1], to: "file")
        let inTheWay = #expect(throws: StoreError.self) { try FileSystem.kernel.makeDirectories(directory.file("file/b")) }
        #expect(inTheWay?.code == .notRegularFile)
    }

    @Test func readFileRefusesASymbolicLinkAndAFIFOAndReadsNothingForAMissingFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write([1], to: "target")
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.file("target"))
        #expect(mkfifo(directory.file("fifo"), 0o600) == 0)
        let link = #expect(throws: StoreError.self) { try FileSystem.kernel.readFile(directory.file("link")) }
        #expect(link?.code == .symbolicLink)
        let fifo = #expect(throws: StoreError.self) { try FileSystem.kernel.readFile(directory.file("fifo")) }
        #expect(fifo?.code == .notRegularFile)
        #expect(try FileSystem.kernel.readFile(directory.file("absent")) == nil)
        #expect(try FileSystem.kernel.readFile(directory.file("target")) == [1])
    }

    /// Input named by a user is read as `cat` reads it: through a link, from a FIFO with a writer, to its end.
    @Test func readInputReadsAFIFOToItsEnd() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let payload = [UInt8](repeating: 7, count: 200_000)   // more than a pipe's buffer
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(payload))
                handle.closeFile()
            }
        }
        writer.start()
        #expect(try FileSystem.kernel.readInput(fifo, limit: 1 << 20) == payload)
        let tooMuch = #expect(throws: StoreError.self) {
            try directory.write(payload, to: "big")
            _ = try FileSystem.kernel.readInput(directory.file("big"), limit: 1_000)
        }
        #expect(tooMuch?.code == .invalidArgument)
        let isDirectory = #expect(throws: StoreError.self) { _ = try FileSystem.kernel.readInput(directory.path, limit: 1_000) }
        #expect(isDirectory?.code == .notRegularFile)
        #expect(isDirectory?.errno == EISDIR)
    }

    /// A short write stores what it says and fails with ENOSPC; a fault never half-runs a call.
    @Test func aShortWriteStoresItsPrefixAndFailsWithNoSpace() throws {
        let directory = try TemporaryDirectory()
        let fileSystem = FileSystem { call, _ in call == .write ? .shortWrite(3) : nil }
        let fd = try fileSystem.open(directory.file("f"), [.writeOnly, .create])
        defer { fileSystem.close(fd) }
        let error = #expect(throws: StoreError.self) { try fileSystem.write(fd, [1, 2, 3, 4, 5], directory.file("f")) }
        #expect(error?.errno == ENOSPC)
        #expect(try directory.read("f") == [1, 2, 3])
    }

    @Test func statusReportsKindLinksAndAllocatedBlocks() throws {
        let directory = try TemporaryDirectory()
        try directory.write([UInt8](repeating: 1, count: 10_000), to: "f")
        let info = try #require(try FileSystem.kernel.linkStatus(directory.file("f")))
        #expect(info.kind == .regular)
        #expect(info.size == 10_000)
        #expect(info.linkCount == 1)
        #expect(info.allocatedBytes >= 10_000)   // st_blocks × 512, what du counts
        #expect(try FileSystem.kernel.linkStatus(directory.path)?.kind == .directory)
        #expect(try FileSystem.kernel.linkStatus(directory.file("absent")) == nil)
    }
}

@Suite("Storage floor: checksum")
struct ChecksumTests {
    @Test func theChecksumIsZlibsCRC32() {
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.crc32([]) == 0)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for split in [0, 1, 7, 8, 9, 500, 1000] {
            #expect(Checksum.crc32(continuing: Checksum.crc32(long, 0..<split), long, split..<1000) == Checksum.crc32(long))
        }
        // Longer inputs, one from an odd offset: Python's zlib.crc32 of b[0:1000] and of b[5:1003], where
        // b = bytes((i * 37 + 11) % 256 for i in range(1003)).
        let pattern = (0..<1003).map { UInt8(($0 * 37 + 11) % 256) }
        #expect(Checksum.crc32(pattern, 0..<1000) == 0xC390_5A1D)
        #expect(Checksum.crc32(pattern, 5..<1003) == 0x2D68_9A6E)
    }

    @Test func aChainOfChecksumsIsTheCRCOfTheirLittleEndianBytes() {
        let words: [UInt32] = [0xDEAD_BEEF, 1, 0]
        let chained = words.reduce(UInt32(0)) { Checksum.crc32(continuing: $0, word: $1) }
        let bytes = words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(8 * $0)) } }
        #expect(chained == Checksum.crc32(bytes))
    }
}
