import Testing
import TestSupport

/// The code of the DocC catalogs is the code the tests run: every Swift block of every catalog page equals,
/// in order, a snippet of the one test file that mirrors the page (see `ArticleCode`). Checks the pages of
/// every module's catalog, whichever test target compiles the mirror.
@Suite("DocC article code")
struct ArticleCodeTests {
    /// The pages that show Swift code.
    static let pagesWithCode: [String] = ArticleCode.pages().filter { page in
        (try? ArticleCode.swiftBlocks(inMarkdown: ArticleCode.text(page)).isEmpty) == false
    }

    @Test func theCatalogsHavePagesWithCode() {
        // Every module's landing page and its articles show code; a catalog that moved would drop them all.
        for module in ["BinaryPlist", "KeyedArchive", "ArchiveInspection", "TypedStream", "ArchiveStore", "FormCache"] {
            #expect(Self.pagesWithCode.contains("Sources/\(module)/\(module).docc/\(module).md"))
        }
        #expect(Self.pagesWithCode.count >= 15)
    }

    @Test(arguments: ArticleCodeTests.pagesWithCode)
    func pageCodeEqualsTheSnippetsOfItsOneMirror(page: String) throws {
        let mirrors = try ArticleCode.mirrors()[page] ?? []
        try #require(mirrors.count == 1, "\(page) is mirrored by \(mirrors.count) test files: \(mirrors)")
        let differences = try ArticleCode.differences(page: page, mirror: mirrors[0])
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func everyMirrorNamesAPageWithCode() throws {
        for (page, files) in try ArticleCode.mirrors() {
            #expect(Self.pagesWithCode.contains(page), "\(files) mirror \(page), which shows no Swift code")
        }
    }

    @Test(arguments: ArticleCode.pages())
    func everyCodeBlockOfAPageNamesItsLanguage(page: String) throws {
        // An unlabelled block could hold Swift that no test compiles.
        let unlabelled = ArticleCode.fencedBlocks(inMarkdown: try ArticleCode.text(page)).filter { $0.language.isEmpty }
        #expect(unlabelled.map(\.block.line) == [], "\(page): code blocks without a language")
    }

    // MARK: The comparison itself

    static let page = """
        # A page

        ```swift
        let a = 1
            .description
        ```

        ```sh
        ```swift
        swift run
        ```

          ```swift
          let b = 2
          ```
        """

    @Test func swiftBlocksAreReadInOrderWithoutTheirFenceIndentation() {
        let blocks = ArticleCode.swiftBlocks(inMarkdown: Self.page)
        #expect(blocks.map(\.text) == ["let a = 1\n    .description", "let b = 2"])
        #expect(blocks.map(\.line) == [4, 14])
        #expect(ArticleCode.fencedBlocks(inMarkdown: Self.page).map(\.language) == ["swift", "sh", "swift"])
    }

    @Test func snippetsAreDedentedByTheirSmallestIndentation() throws {
        let file = """
            // Mirrors Sources/X/X.docc/A.md
            struct T {
                // snippet
                    let a = 1
                        .description
                // end snippet
                func f() {
                    // snippet
                    let b = 2
                    // end snippet
                }
            }
            """
        #expect(ArticleCode.mirroredPage(inSwift: file) == "Sources/X/X.docc/A.md")
        #expect(ArticleCode.mirroredPage(inSwift: "import Testing\n" + file) == nil)
        let snippets = try ArticleCode.snippets(inSwift: file)
        #expect(snippets.map(\.text) == ["let a = 1\n    .description", "let b = 2"])
        #expect(snippets.map(\.line) == [4, 9])
        let same = ArticleCode.differences(
            blocks: ArticleCode.swiftBlocks(inMarkdown: Self.page), page: "A.md",
            snippets: try ArticleCode.snippets(inSwift: file), mirror: "T.swift")
        #expect(same == [])
    }

    @Test func aChangedLineIsReportedAtItsPlaceOnBothSides() throws {
        let file = """
            // snippet
            let a = 1
                .debugDescription
            // end snippet
            // snippet
            let b = 2
            // end snippet
            """
        let differences = ArticleCode.differences(
            blocks: ArticleCode.swiftBlocks(inMarkdown: Self.page), page: "A.md",
            snippets: try ArticleCode.snippets(inSwift: file), mirror: "T.swift")
        #expect(differences == [#"A.md:5 has "    .description", T.swift:3 has "    .debugDescription""#])
    }

    @Test func aMissingBlockOrSnippetIsReported() throws {
        let one = try ArticleCode.snippets(inSwift: "// snippet\nlet a = 1\n    .description\n// end snippet")
        let differences = ArticleCode.differences(
            blocks: ArticleCode.swiftBlocks(inMarkdown: Self.page), page: "A.md", snippets: one, mirror: "T.swift")
        #expect(differences == ["A.md has 2 Swift blocks, T.swift has 1 snippets"])
    }

    @Test func anUnterminatedOrNestedSnippetIsAnError() {
        #expect(throws: ArticleCode.SnippetError.self) { try ArticleCode.snippets(inSwift: "// snippet\nlet a = 1") }
        #expect(throws: ArticleCode.SnippetError.self) {
            try ArticleCode.snippets(inSwift: "// snippet\n// snippet\n// end snippet\n// end snippet")
        }
        #expect(throws: ArticleCode.SnippetError.self) { try ArticleCode.snippets(inSwift: "// end snippet") }
    }
}
