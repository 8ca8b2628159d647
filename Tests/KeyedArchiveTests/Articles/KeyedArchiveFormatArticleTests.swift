// Mirrors Sources/KeyedArchive/KeyedArchive.docc/KeyedArchiveFormat.md (see ArticleCode in TestSupport)
import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

@Suite("Article: The keyed-archive format")
struct KeyedArchiveFormatArticleTests {
    // snippet
    final class Note: KeyedArchivable {
        var title = "Hi"
        var count = 3
        var tags = ["a", "b"]
        init() {}
        init(coder: KeyedUnarchiver) throws {}
        func encode(with coder: KeyedArchiver) {
            coder.encode(title, forKey: "title")
            coder.encode(count, forKey: "count")
            coder.encode(tags, forKey: "tags")
            coder.encode(self, forKey: "$self")
        }
    }
    // end snippet

    @Test func theGraphFormShowsEveryObjectOnce() throws {
        // snippet
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Note())
        print(try ArchiveJSON.renderGraph(bytes))
        // end snippet
        let page = try ArticleCode.text("Sources/KeyedArchive/KeyedArchive.docc/KeyedArchiveFormat.md")
        let shown = ArticleCode.fencedBlocks(inMarkdown: page).filter { $0.language == "json" }.map(\.block.text)
        #expect(shown.first == (try ArchiveJSON.renderGraph(bytes)))
        // The top level of the property list, in Apple's order.
        let top = try #require(try PropertyList.decode(bytes).dictionaryValue)
        #expect(top.keys == ["$version", "$archiver", "$top", "$objects"].map(PlistValue.string))
    }
}
