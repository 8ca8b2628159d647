import KeyedArchive
import Testing
@Suite struct ScratchTests {
    @Test func show() throws {
        let json = try ArchiveJSON.render(KeyedFixtures.bytes("keyed/bpylist2/simple_archive.plist"))
        let b = try ArchiveJSON.encode(json)
        print("A", json); print("B", try ArchiveJSON.render(b)); print(try ArchiveDump.render(b))
    }
}
