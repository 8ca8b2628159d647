// Mirrors Sources/KeyedArchive/KeyedArchive.docc/GettingStarted.md (see ArticleCode in TestSupport)
import Foundation
import KeyedArchive
import Testing
import TestSupport

@Suite("Article: Getting started")
struct GettingStartedArticleTests {
    // snippet
    final class Note: KeyedArchivable {
        var title: String
        var tags: [String]
        var seeAlso: Note?

        init(title: String, tags: [String] = [], seeAlso: Note? = nil) {
            (self.title, self.tags, self.seeAlso) = (title, tags, seeAlso)
        }

        init(coder: KeyedUnarchiver) throws {
            title = try coder.decode(String.self, forKey: "title")
            tags = try coder.decode([String].self, forKey: "tags")
            seeAlso = try coder.decodeIfPresent(Note.self, forKey: "seeAlso")
        }

        func encode(with coder: KeyedArchiver) {
            coder.encode(title, forKey: "title")
            coder.encode(tags, forKey: "tags")
            coder.encode(seeAlso, forKey: "seeAlso")
        }
    }
    // end snippet

    @Test func archivesAndUnarchivesAGraphWithASharedNote() throws {
        // snippet
        let draft = Note(title: "Draft", tags: ["work"])
        let summary = Note(title: "Summary", seeAlso: draft)
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: [draft, summary])
        // end snippet
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }.contains(["Note", "NSObject"]))
        // The draft is written once although it is referenced twice.
        #expect(graph.objects.filter { $0 == .string("Draft") }.count == 1)
        // The same graph gives the same bytes.
        #expect(try KeyedArchiver.archivedData(withRootObject: [draft, summary]) as [UInt8] == bytes)

        // snippet
        let xml = try KeyedArchiver.archivedData(withRootObject: [draft, summary], format: .xml)
        let data: Data = try KeyedArchiver.archivedData(withRootObject: [draft, summary])
        // end snippet
        #expect(String(decoding: xml.prefix(5), as: UTF8.self) == "<?xml")
        #expect([UInt8](data) == bytes)

        // snippet
        let registry = ClassRegistry([Note.self])
        let notes = try KeyedUnarchiver.unarchivedObject(ofType: [Note].self, from: bytes, registry: registry)
        // end snippet
        let restored = try #require(notes)
        #expect(restored.map(\.title) == ["Draft", "Summary"])
        #expect(restored[0].tags == ["work"])
        #expect(restored[1].seeAlso === restored[0])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Note].self, from: xml, registry: registry)?.map(\.title) == ["Draft", "Summary"])
    }

    @Test func anUnregisteredClassIsAnErrorThatNamesIt() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: [Note(title: "Draft")])
        var printed = ""
        // snippet
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: [Note].self, from: bytes)
        } catch let error as KeyedArchiveError where error.code == .unknownClass {
            print(error)
        }
        // end snippet
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: [Note].self, from: bytes)
        } catch let error as KeyedArchiveError where error.code == .unknownClass {
            printed = "\(error)"
        }
        let garbage = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: [Note].self, from: Array("not a plist".utf8))
        }
        #expect(garbage?.code == .invalidPlist && garbage?.underlying?.code == .unknownFormat)
        #expect(printed == #"keyed archive: object 2 (Note < NSObject) at root: class "Note" is not registered (its $classes: Note, NSObject)"#)
    }

    @Test func savesToAFileAndReadsItBack() throws {
        let directory = try TemporaryDirectory(prefix: "article")
        defer { directory.remove() }
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: [Note(title: "Draft")])
        let registry = ClassRegistry([Note.self])
        let url = directory.fileURL("notes.archive")
        // snippet
        try Data(bytes).write(to: url)
        let saved = try KeyedUnarchiver.unarchivedObject(ofType: [Note].self, from: Data(contentsOf: url), registry: registry)
        // end snippet
        #expect(saved?.map(\.title) == ["Draft"])
    }
}
