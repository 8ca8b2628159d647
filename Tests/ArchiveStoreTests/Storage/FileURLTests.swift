import Foundation
import Testing
import TestSupport
import ArchiveStore

/// The engines' `URL` initializers (one rule: the URL names what the engine creates and owns) and the error
/// matching the articles show, which must compile and match whatever else a `do` block calls.
@Suite("File URLs and error matching")
struct FileURLTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory(prefix: "file url") }

    @Test func aRepositoryAtAFileURLIsTheRepositoryAtItsPath() throws {
        let url = URL(fileURLWithPath: directory.file("Notes é 1.archive"))
        let notes = try ArchiveRepository<Note>(url: url)
        try notes.add(Note(id: "a", text: "by URL"))
        #expect(notes.path == directory.file("Notes é 1.archive"))
        #expect(notes.url == url)
        #expect(FileManager.default.fileExists(atPath: directory.file("Notes é 1.archive")))
        #expect(try ArchiveRepository<Note>(path: directory.file("Notes é 1.archive")).get("a")?.text == "by URL")
    }

    @Test func aURLThatIsNotAFileURLIsRefused() throws {
        let web = try #require(URL(string: "https://example.com/notes.archive"))
        let error = #expect(throws: StoreError.self) { _ = try ArchiveRepository<Note>(url: web) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason.contains("https://example.com/notes.archive is not a file URL") == true)
        let cacheError = #expect(throws: StoreError.self) { _ = try ArchiveCache<String>(directory: web) }
        #expect(cacheError?.code == .invalidArgument)
    }

    @Test func aCacheAtADirectoryURLOwnsThatDirectory() throws {
        let url = URL(fileURLWithPath: directory.file("images cache"), isDirectory: true)
        let cache = try ArchiveCache<String>(directory: url)
        try cache.set("value", forKey: "k")
        #expect(cache.directory == directory.file("images cache"))
        #expect(cache.directoryURL.path == url.path)
        #expect(try ArchiveCache<String>(directory: directory.file("images cache")).value(forKey: "k") == "value")
    }

    @Test func theStandardDirectoryURLsAreTheStandardDirectories() throws {
        #expect(try ArchiveRepository<Note>.standardDirectoryURL(named: "com.example.notes").path
                == ArchiveRepository<Note>.standardDirectory(named: "com.example.notes"))
        #expect(try ArchiveCache<String>.standardDirectoryURL(named: "com.example.notes").path
                == ArchiveCache<String>.standardDirectory(named: "com.example.notes"))
        #expect(try ArchiveCache<String>.standardDirectoryURL(named: "com.example.notes").hasDirectoryPath)
    }

    /// The matching the articles show: `catch let error as StoreError where error.code == ...` compiles and
    /// matches with calls that throw other errors (Foundation's) in the same `do` block.
    @Test func storeErrorsAreMatchedInADoBlockThatAlsoCallsFoundation() throws {
        let notes = ArchiveRepository<Note>(path: directory.file("matching.archive"))
        try notes.add(Note(id: "a", text: "one"))
        var outcome = ""
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: notes.path))   // Foundation's error type
            #expect(data.count > 0)
            try notes.add(Note(id: "a", text: "again"))
            outcome = "added"
        } catch let error as StoreError where error.code == .duplicateID {
            outcome = "duplicate \(error.recordID ?? "?")"
        } catch let error as StoreError {
            outcome = "other store error \(error.code)"
        } catch {
            outcome = "foundation \(error)"
        }
        #expect(outcome == "duplicate a")

        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: directory.file("missing")))
            try notes.add(Note(id: "b", text: "two"))
            outcome = "added"
        } catch let error as StoreError where error.code == .duplicateID {
            outcome = "duplicate"
        } catch let error as CocoaError {
            outcome = "foundation \(error.code == .fileReadNoSuchFile)"
        }
        #expect(outcome == "foundation true")
        #expect(try notes.get("b") == nil)
    }
}
