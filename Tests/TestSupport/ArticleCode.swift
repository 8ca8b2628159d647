import Foundation

/// The Swift code of the DocC catalogs, and the test files that compile and run it.
///
/// Every ```` ```swift ```` block of a catalog page (`Sources/<Module>/<Module>.docc/*.md`) is copied, in
/// order, into one test file whose first line names the page, `// Mirrors <path of the page>`. In that
/// file each block sits between a `// snippet` line and an `// end snippet` line, where it compiles and runs
/// with the test's own assertions around it. `ArticleCodeTests` compares the two texts (the snippet
/// dedented by its smallest indentation), so a page cannot show code that no test compiles, and a change to
/// the code on either side fails until the other side says the same.
///
/// ```swift
/// // Mirrors Sources/KeyedArchive/KeyedArchive.docc/GettingStarted.md
/// @Suite struct GettingStartedArticleTests {
///     // snippet
///     final class Note: KeyedArchivable { ... }
///     // end snippet
/// }
/// ```
public enum ArticleCode {
    /// One code block of a page, or one snippet of a test file.
    public struct Block: Sendable {
        /// The code, lines joined by newlines, without the fences or the markers.
        public var text: String
        /// The 1-based line of the file where the code starts.
        public var line: Int
    }

    /// The repository's root, located from this source file.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository

    /// The text of a file given relative to the repository's root.
    public static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Every page of every catalog (`Sources/*/*.docc/**/*.md`), relative to the root, sorted, then the
    /// README, whose Swift blocks are held to the same rule.
    public static func pages() -> [String] {
        files(under: "Sources") { $0.hasSuffix(".md") && $0.contains(".docc/") } + ["README.md"]
    }

    /// Every test file (`Tests/**/*.swift`) that declares `// Mirrors <page>`, by page; relative paths, sorted.
    public static func mirrors() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for file in files(under: "Tests", where: { $0.hasSuffix(".swift") }) {
            if let page = mirroredPage(inSwift: try text(file)) { result[page, default: []].append(file) }
        }
        return result
    }

    /// The page a test file mirrors: the path after `// Mirrors ` on the file's first line, up to a space.
    public static func mirroredPage(inSwift text: String) -> String? {
        let first = text.prefix { $0 != "\n" }
        guard first.hasPrefix("// Mirrors ") else { return nil }
        return String(first.dropFirst("// Mirrors ".count).prefix { $0 != " " })
    }

    /// The ```` ```swift ```` blocks of a markdown text, in order, each dedented by its fence's indentation.
    /// Fences of other languages are skipped whole (a `swift` fence inside one is text).
    public static func swiftBlocks(inMarkdown text: String) -> [Block] {
        fencedBlocks(inMarkdown: text).filter { $0.language == "swift" }.map(\.block)
    }

    /// Every fenced block of a markdown text with the word after its opening fence (`""` when there is none).
    public static func fencedBlocks(inMarkdown text: String) -> [(language: String, block: Block)] {
        var result: [(language: String, block: Block)] = []
        var open: (language: String, indent: Int, line: Int, lines: [Substring])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indent)
            if var block = open {
                if trimmed.trimmingCharacters(in: .whitespaces) == "```" {
                    let code = block.lines.map { $0.dropFirst(min(block.indent, $0.prefix { $0 == " " }.count)) }
                    result.append((block.language, Block(text: code.joined(separator: "\n"), line: block.line)))
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                let language = trimmed.dropFirst(3).prefix { !$0.isWhitespace }
                open = (String(language), indent, number + 2, [])
            }
        }
        return result
    }

    /// The regions of a Swift file between a `// snippet` line and an `// end snippet` line, in order, each
    /// dedented by the smallest indentation of its non-blank lines; an unterminated region is an error.
    public static func snippets(inSwift text: String) throws -> [Block] {
        var result: [Block] = []
        var open: (line: Int, lines: [Substring])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// snippet" {
                guard open == nil else { throw SnippetError(line: number + 1, "a snippet starts inside another") }
                open = (number + 2, [])
            } else if trimmed == "// end snippet" {
                guard let region = open else { throw SnippetError(line: number + 1, "an end without a start") }
                let indent = region.lines.filter { !$0.allSatisfy(\.isWhitespace) }
                    .map { $0.prefix { $0 == " " }.count }.min() ?? 0
                let code = region.lines.map { $0.allSatisfy(\.isWhitespace) ? "" : $0.dropFirst(indent) }
                result.append(Block(text: code.joined(separator: "\n"), line: region.line))
                open = nil
            } else if open != nil {
                open?.lines.append(line)
            }
        }
        if let region = open { throw SnippetError(line: region.line - 1, "a snippet without an end") }
        return result
    }

    /// How the Swift blocks of `page` differ from the snippets of `mirror` (both relative to the root): one
    /// line per difference, naming both places; empty when they are the same, in the same order.
    public static func differences(page: String, mirror: String) throws -> [String] {
        differences(blocks: swiftBlocks(inMarkdown: try text(page)), page: page,
                    snippets: try snippets(inSwift: try text(mirror)), mirror: mirror)
    }

    /// How `blocks` of `page` differ from `snippets` of `mirror`.
    public static func differences(blocks: [Block], page: String, snippets: [Block], mirror: String) -> [String] {
        var result: [String] = []
        for (block, snippet) in zip(blocks, snippets) where block.text != snippet.text {
            let pageLines = block.text.split(separator: "\n", omittingEmptySubsequences: false)
            let mirrorLines = snippet.text.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(pageLines, mirrorLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(pageLines.count, mirrorLines.count)
            let shown = { (lines: [Substring]) in first < lines.count ? "\"\(lines[first])\"" : "(end of block)" }
            result.append("\(page):\(block.line + first) has \(shown(pageLines)), "
                + "\(mirror):\(snippet.line + first) has \(shown(mirrorLines))")
        }
        if blocks.count != snippets.count {
            result.append("\(page) has \(blocks.count) Swift blocks, \(mirror) has \(snippets.count) snippets")
        }
        return result
    }

    /// A malformed snippet region.
    public struct SnippetError: Error, CustomStringConvertible {
        /// The 1-based line of the marker at fault.
        public var line: Int
        /// What is wrong.
        public var reason: String

        init(line: Int, _ reason: String) {
            self.line = line
            self.reason = reason
        }

        public var description: String { "line \(line): \(reason)" }
    }

    /// The files below `folder` (relative to the root) whose relative path passes `include`, sorted.
    private static func files(under folder: String, where include: (String) -> Bool) -> [String] {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
        return paths.map { folder + "/" + $0 }.filter(include).sorted()
    }
}
