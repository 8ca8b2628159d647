// Mirrors Sources/KeyedArchive/KeyedArchive.docc/ReadingArchivesYouDidNotWrite.md (see ArticleCode in TestSupport)
import BinaryPlist
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

@Suite("Article: Reading archives you did not write")
struct ReadingArchivesArticleTests {
    /// The other app's model, which the reading side does not have.
    final class Board: KeyedArchivable {
        var title: String
        var stickers: [Sticker]
        init(title: String, stickers: [Sticker]) { (self.title, self.stickers) = (title, stickers) }
        init(coder: KeyedUnarchiver) throws { fatalError("the reading side does not know Board") }
        func encode(with coder: KeyedArchiver) {
            coder.encode(title, forKey: "title")
            coder.encode(stickers, forKey: "stickers")
        }
    }

    // snippet
    final class Sticker: KeyedArchivable {
        var name: String
        var scale: Double
        init(name: String, scale: Double) { (self.name, self.scale) = (name, scale) }
        init(coder: KeyedUnarchiver) throws {
            name = try coder.decode(String.self, forKey: "name")
            scale = try coder.decode(Double.self, forKey: "scale")
        }
        func encode(with coder: KeyedArchiver) {
            coder.encode(name, forKey: "name")
            coder.encode(scale, forKey: "scale")
        }
    }
    // end snippet

    /// The other app's document: a board of two stickers, written by an `NSKeyedArchiver` subclass.
    static func document() throws -> [UInt8] {
        let board = Board(title: "Fridge", stickers: [Sticker(name: "cat", scale: 1), Sticker(name: "sun", scale: 0.5)])
        var graph = try ArchiveGraph(bytes: KeyedArchiver.archivedData(withRootObject: board))
        graph.archiver = "MSArchiver"
        return try graph.encoded()
    }

    @Test func lookBeforeDecoding() throws {
        let bytes = try Self.document()
        // snippet
        let graph = try ArchiveGraph(bytes: bytes, acceptedArchivers: .any)
        try graph.validate()
        print(graph.archiver)
        print(ArchiveDump.render(graph))
        // end snippet
        #expect(graph.archiver == "MSArchiver")
        // The page shows the dump as it is printed.
        let page = try ArticleCode.text("Sources/KeyedArchive/KeyedArchive.docc/ReadingArchivesYouDidNotWrite.md")
        let shown = ArticleCode.fencedBlocks(inMarkdown: page).filter { $0.language == "text" }.map(\.block.text)
        #expect(shown.first == ArchiveDump.render(graph).trimmingSuffixNewline)
    }

    @Test func anotherArchiverIsRefusedUntilAccepted() throws {
        let bytes = try Self.document()
        var archiver: String?
        // snippet
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes)
        } catch let error as KeyedArchiveError where error.code == .foreignArchiver {
            archiver = error.archiver
        }
        // end snippet
        #expect(archiver == "MSArchiver")
    }

    @Test func unknownClassesAreKeptWhole() throws {
        let bytes = try Self.document()
        let unknown = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(
                ofType: Any.self, from: bytes, registry: ClassRegistry([Sticker.self]), acceptedArchivers: .any)
        }
        #expect(unknown?.code == .unknownClass && unknown?.classChain == ["Board", "NSObject"])

        // snippet
        let registry = ClassRegistry([Sticker.self]).allowingUnknownClasses()
        let root = try KeyedUnarchiver.unarchivedObject(
            ofTypes: [ArchivedObject.self, Sticker.self], from: bytes, registry: registry,
            acceptedArchivers: ["NSKeyedArchiver", "MSArchiver"])
        let board = root as? ArchivedObject
        // end snippet
        let object = try #require(board)
        // snippet
        if let board, case .object(let stickers as [Any]) = board["stickers"] {
            print(board.className, board.fields.map(\.key), stickers.compactMap { ($0 as? Sticker)?.name })
        }
        // end snippet
        #expect(object.className == "Board" && object.classChain == ["Board", "NSObject"])
        #expect(object.fields.map(\.key) == ["title", "stickers"])
        guard case .object(let stickers as [Any]) = object["stickers"] else { Issue.record("no stickers"); return }
        #expect(stickers.compactMap { ($0 as? Sticker)?.name } == ["cat", "sun"])

        // snippet
        let copy: [UInt8] = try KeyedArchiver.archivedData(withRootObject: board)
        // end snippet
        var original = try ArchiveGraph(bytes: bytes, acceptedArchivers: .any)
        original.archiver = "NSKeyedArchiver"
        #expect(try ArchiveGraph(bytes: copy) == original)
    }

    @Test func onlyTheListedTypesAreMade() throws {
        let bytes = try Self.document()
        var code: KeyedArchiveError.Code?
        // snippet
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofTypes: [Sticker.self], from: bytes, registry: registry, acceptedArchivers: .any)
        } catch let error as KeyedArchiveError {
            code = error.code
        }
        // end snippet
        #expect(code == .classNotAllowed)
    }
    var registry: ClassRegistry { ClassRegistry([Sticker.self]).allowingUnknownClasses() }

    @Test func limitsStopADeepGraph() throws {
        let bytes = try Self.document()
        var code: KeyedArchiveError.Code?
        // snippet
        do {
            _ = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, acceptedArchivers: .any, maxDepth: 2) {
                try $0.decodeTopLevelObject(forKey: "root")
            }
        } catch let error as KeyedArchiveError {
            code = error.code
        }
        // end snippet
        #expect(code == .depthLimitExceeded)
        let within = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, acceptedArchivers: .any, maxDepth: 3) {
            try $0.decodeTopLevelObject(forKey: "root")
        }
        #expect((within as? ArchivedObject)?.className == "Board")
    }
}

extension String {
    var trimmingSuffixNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
