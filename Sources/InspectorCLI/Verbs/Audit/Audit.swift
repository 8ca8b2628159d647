import BinaryPlist
import CommandLineSupport
import KeyedArchive
import ArchiveInspection

extension Verbs {
    /// `keyedarchive audit FILE... [--allow Class,Class] [--json]`: what decoding would instantiate.
    static var audit: Command {
        Command(
            name: "audit",
            abstract: "Report what decoding keyed archives would instantiate, without decoding them.",
            discussion: "Each FILE, binary or XML, is walked from its $top keys once, without decoding anything, and "
                + "reported: $archiver and $version; the objects reached; every class instantiated with its count "
                + "and $classes chain, most used first; the maximum depth (nesting of objects and collections from "
                + "$top) and where; the largest collections, strings and data (5 each) with their paths; shared "
                + "objects (reached by more than one reference) and cycles (references back to an object on their "
                + "own path), with examples; keyed archives nested inside data values, found and audited in turn "
                + "(up to 8 levels deep) under their path; and notes:\n"
                + "predicate: an NSPredicate or NSExpression (they run code when evaluated)\n"
                + "selector: an NSSortDescriptor that compares with a selector\n"
                + "url, file-url: an NSURL, and whether it is a file URL\n"
                + "unused-class: a class description that no object reached from $top uses\n"
                + "class-chain: a class description whose $classes chain does not start with its $classname "
                + "(the archive names a class its chain never defines)\n"
                + "archiver: an $archiver other than NSKeyedArchiver (a subclass such as SceneKit's "
                + "SCNKeyedArchiver; also said on stderr: 'note: <file>: written by archiver ...')\n"
                + "nesting: an archive nested too deep to audit\n"
                + "Paths read as in 'keyedarchive diff': root.items[2][\"name\"].title.\n\n"
                + "With --json, each file's report is one JSON object on its own line.\n\n"
                + "With --allow, every $classname named by a class description in the file or a nested archive "
                + "must be in the list; the others are listed on a line 'not allowed: A, B' (\"notAllowed\" in "
                + "JSON).\n\n"
                + "Time is linear in each archive and memory bounded by it; a hostile archive cannot make it recurse "
                + "or trap.\n\n"
                + "Exit status: 0 success; 1 a class outside --allow; 65 a file is not a keyed archive (its error "
                + "is printed on stderr, the others are still audited); 66 a file cannot be opened; 64 usage error.",
            usage: ["[--allow <classes>] [--json] <file> ..."],
            arguments: [.repeated("file", help: "The keyed archives to audit (one or more).")],
            options: [
                .repeated("allow", valueName: "classes",
                          help: "Classes allowed, separated by commas (may be repeated); exit 1 if any other appears."),
                .flag("json", help: "Print each report as a JSON object on its own line."),
            ]
        ) { context in
            let arguments = context.arguments
            let files = arguments.values("file")
            guard !files.isEmpty else { throw UsageError("Missing expected argument '<file> ...'.") }
            let allowing = arguments.isPresent("allow")
            let allowed = Set(arguments.values("allow").flatMap { $0.split(separator: ",") }
                .map { String($0).trimmingSpaces }.filter { !$0.isEmpty })
            let json = arguments.flag("json")
            var unreadable = false
            var invalid = false
            var refused = false
            var out = ChunkedOutput(context.stdout)
            var printed = false
            do {
                for file in files {
                    let bytes: [UInt8]
                    let typedStreamClasses: [String]?
                    do { (bytes, typedStreamClasses) = try archiveInput(file) } catch let failure as CommandFailure {
                        if failure.status == ExitStatus.dataError { invalid = true } else { unreadable = true }
                        context.stderr.write("Error: \(failure.message.replacingNewlines)\n")
                        continue
                    }
                    let report: ArchiveAudit
                    do { report = try ArchiveAudit.audit(bytes) } catch let error as KeyedArchiveError {
                        invalid = true
                        context.stderr.write("Error: \(file): \(error.description.replacingNewlines)\n")
                        continue
                    }
                    var outside = allowing ? report.disallowed(by: allowed) : []
                    if allowing, let typedStreamClasses {
                        outside = Array(Set(outside + typedStreamClasses.filter { !allowed.contains($0) })).sorted()
                    }
                    noteArchiver(report.archiver, file: file, context)
                    refused = refused || !outside.isEmpty
                    if json {
                        try out.write(AuditRendering.json(report, file: file, notAllowed: allowing ? outside : nil,
                                                          typedStreamClasses: typedStreamClasses) + "\n")
                    } else {
                        if printed { try out.write("\n") }
                        try out.write(AuditRendering.text(report, file: file, notAllowed: outside,
                                                          typedStreamClasses: typedStreamClasses))
                    }
                    printed = true
                }
                try out.flush()
            } catch is ChunkedOutput.Stopped {
                return ExitStatus.ioError
            }
            if unreadable { return ExitStatus.noInput }
            if invalid { return ExitStatus.dataError }
            return refused ? ExitStatus.failure : ExitStatus.success
        }
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}

/// The text and JSON forms of an ``ArchiveAudit``.
enum AuditRendering {
    /// The report as indented text; nested archives are indented under their path.
    static func text(_ report: ArchiveAudit, file: String, notAllowed: [String], typedStreamClasses: [String]? = nil) -> String {
        var lines: [String] = ["file: \(file.replacingNewlines)"]
        if let typedStreamClasses {
            // What NSUnarchiver would instantiate; the report below is of the keyed archive it converts to.
            lines.append("format: typedstream, audited as the keyed archive it converts to")
            lines.append("typedstream classes: \(typedStreamClasses.count)")
            lines += typedStreamClasses.map { "  \($0.replacingNewlines)" }
        }
        body(report, indent: "", notAllowed: notAllowed, into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func body(_ r: ArchiveAudit, indent: String, notAllowed: [String], into lines: inout [String]) {
        func line(_ s: String) { lines.append(indent + s.replacingNewlines) }
        line("archiver: \(r.archiver)")
        line("version: 100000")
        line("objects: \(r.objectCount) entries, \(r.reached) reached from $top")
        line("classes: \(r.classes.count)")
        for c in r.classes { line("  \(c.count) \(c.name) (\(c.chain.joined(separator: " < ")))") }
        line("max depth: \(r.maxDepth) at \(r.deepestPath)")
        sized("largest collections", r.largestCollections, unit: "elements", line)
        line("shared objects: \(r.sharedObjects) (\(r.sharedReferences) more references)")
        for s in r.mostShared { line("  \(s.size) references to \(s.path) (\(s.what))") }
        line("cycles: \(r.cycles)")
        for s in r.cycleExamples { line("  \(s.path) -> \(s.what)") }
        sized("largest strings", r.largestStrings, unit: "bytes", line)
        sized("largest data", r.largestData, unit: "bytes", line)
        line("nested archives: \(r.nested.count)")
        for n in r.nested {
            switch n.audit {
            case .success(let inner):
                line("  at \(n.path):")
                body(inner, indent: indent + "    ", notAllowed: [], into: &lines)
            case .failure(let error):
                line("  at \(n.path): unreadable: \(error.description)")
            }
        }
        line("notes: \(r.notes.count)")
        for n in r.notes { line("  \(n.kind): " + (n.path.map { "\($0): " } ?? "") + n.text) }
        if !notAllowed.isEmpty { line("not allowed: " + notAllowed.joined(separator: ", ")) }
    }

    private static func sized(_ title: String, _ list: [ArchiveAudit.Finding], unit: String, _ line: (String) -> Void) {
        line("\(title): \(list.count)")
        for s in list { line("  \(s.size) \(unit) at \(s.path) (\(s.what))") }
    }

    /// The report as one line of JSON.
    static func json(_ report: ArchiveAudit, file: String?, notAllowed: [String]?, typedStreamClasses: [String]? = nil) -> String {
        var w = JSONWriter(pretty: false)
        object(report, file: file, notAllowed: notAllowed, typedStreamClasses: typedStreamClasses, &w)
        return w.text
    }

    private static func object(_ r: ArchiveAudit, file: String?, notAllowed: [String]?, typedStreamClasses: [String]? = nil,
                               _ w: inout JSONWriter) {
        var first = true
        func member(_ key: String, _ body: (inout JSONWriter) -> Void) {
            w.member(key, first: first)
            first = false
            body(&w)
        }
        w.open(.object)
        if let file { member("file") { $0.string(file) } }
        if let typedStreamClasses {
            member("typedStreamClasses") { w in list(typedStreamClasses, &w) { name, w in w.string(name) } }
        }
        member("archiver") { $0.string(r.archiver) }
        member("version") { $0.raw("100000") }
        member("objects") { $0.raw(String(r.objectCount)) }
        member("reached") { $0.raw(String(r.reached)) }
        member("classes") { w in
            list(r.classes, &w) { c, w in
                fields(&w, [("name", .string(c.name)), ("count", .integer(PlistInteger(c.count))),
                            ("chain", .array(c.chain.map { .string($0) }))])
            }
        }
        member("maxDepth") { $0.raw(String(r.maxDepth)) }
        member("deepestPath") { $0.string(r.deepestPath) }
        member("largestCollections") { sizedList(r.largestCollections, &$0) }
        member("sharedObjects") { $0.raw(String(r.sharedObjects)) }
        member("sharedReferences") { $0.raw(String(r.sharedReferences)) }
        member("mostShared") { sizedList(r.mostShared, &$0) }
        member("cycles") { $0.raw(String(r.cycles)) }
        member("cycleExamples") { w in
            list(r.cycleExamples, &w) { s, w in fields(&w, [("path", .string(s.path)), ("target", .string(s.what))]) }
        }
        member("largestStrings") { sizedList(r.largestStrings, &$0) }
        member("largestData") { sizedList(r.largestData, &$0) }
        member("nested") { w in
            list(r.nested, &w) { n, w in
                w.open(.object)
                w.member("path", first: true)
                w.string(n.path)
                switch n.audit {
                case .success(let inner):
                    w.member("report")
                    object(inner, file: nil, notAllowed: nil, &w)
                case .failure(let error):
                    w.member("error")
                    w.string(error.description)
                }
                w.close(.object, empty: false)
            }
        }
        member("notes") { w in
            list(r.notes, &w) { n, w in
                var items: [(String, PlistValue)] = [("kind", .string(n.kind))]
                if let path = n.path { items.append(("path", .string(path))) }
                items.append(("text", .string(n.text)))
                fields(&w, items)
            }
        }
        if let notAllowed { member("notAllowed") { $0.plist(.array(notAllowed.map { .string($0) })) } }
        w.close(.object, empty: false)
    }

    private static func sizedList(_ items: [ArchiveAudit.Finding], _ w: inout JSONWriter) {
        list(items, &w) { s, w in
            fields(&w, [("size", .integer(PlistInteger(s.size))), ("path", .string(s.path)), ("what", .string(s.what))])
        }
    }

    private static func list<T>(_ items: [T], _ w: inout JSONWriter, _ body: (T, inout JSONWriter) -> Void) {
        w.open(.array)
        for (i, item) in items.enumerated() {
            w.item(first: i == 0)
            body(item, &w)
        }
        w.close(.array, empty: items.isEmpty)
    }

    /// `{"k": v, ...}` with plist-JSON values.
    private static func fields(_ w: inout JSONWriter, _ items: [(String, PlistValue)]) {
        w.open(.object)
        for (i, (key, value)) in items.enumerated() {
            w.member(key, first: i == 0)
            w.plist(value)
        }
        w.close(.object, empty: items.isEmpty)
    }
}
