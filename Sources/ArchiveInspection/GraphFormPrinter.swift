import BinaryPlist
import KeyedArchive

/// Prints archive-JSON's graph form (``ArchiveJSON`` describes it) straight from a keyed archive's binary
/// plist: `$top`, then each `$objects` entry once, in index order, materialized alone and dropped once
/// printed. Time and output are linear in the archive; memory is the archive, its offset table, one entry
/// and one output chunk, however the objects share each other.
///
/// Plist values are counted as they print against the element budget of `PlistLimits` (as many values as
/// the archive has bytes, at least 65,536): only an archive whose plist shares collections between entries
/// (no archiver writes one) can reach it. The JSON text is limited to ``maxBytes(forArchiveOf:)``, against
/// long strings that the plist stores once and the entries use many times.
struct GraphFormPrinter {
    private let table: ArchiveObjectTable
    private var out: JSONOutput
    private let pretty: Bool
    private let limit: Int
    private var budget: Int
    /// Class dictionaries looked up so far, by index: their `$classname`, or `nil` when it is not a string.
    private var classNames: [Int: String?] = [:]

    /// The longest JSON text printed for an archive of `byteCount` bytes (its binary form): 64 bytes for
    /// each of its bytes, and 1 MiB at least. Every keyed fixture prints at most about 3 (the Flycut nib).
    static func maxBytes(forArchiveOf byteCount: Int) -> Int {
        max(byteCount.multipliedReportingOverflow(by: 64).overflow ? .max : byteCount * 64, 1 << 20)
    }

    private init(table: ArchiveObjectTable, out: JSONOutput, pretty: Bool) {
        self.table = table
        self.out = out
        self.pretty = pretty
        limit = table.elementBudget
        budget = limit
    }

    /// Prints the graph form of `archive` (binary or XML) to `output`, in chunks, and returns its `$archiver`.
    /// A dry run first finds any error, so that nothing is printed for a malformed archive.
    @discardableResult
    static func print(_ archive: [UInt8], pretty: Bool, acceptedArchivers: AcceptedArchivers,
                      to output: ([UInt8]) throws -> Void) throws -> String {
        try ArchiveObjectTable.read(archive, acceptedArchivers: acceptedArchivers) { table in
            let maxBytes = Self.maxBytes(forArchiveOf: table.byteCount)
            var dryRun = GraphFormPrinter(table: table, out: .discarding(pretty: pretty, maxBytes: maxBytes),
                                          pretty: pretty)
            try dryRun.document()
            try withoutActuallyEscaping(output) { output in
                var printer = GraphFormPrinter(table: table,
                                               out: JSONOutput(pretty: pretty, maxBytes: maxBytes, sink: output),
                                               pretty: pretty)
                try printer.document()
            }
            return table.archiver
        }
    }

    private mutating func document() throws {
        out.w.open(.object)
        out.w.item(first: true)
        out.w.key("$archiver")
        out.w.string("NSKeyedArchiver")
        out.w.item(first: false)
        out.w.key("$version")
        out.w.raw("100000")
        out.w.item(first: false)
        out.w.key("$top")
        out.w.open(.object)
        for i in 0..<table.topCount {
            let key = try table.topKey(at: i)
            guard case .string(let name) = key else {
                throw KeyedArchiveError(.invalidHeader, "$top key \(i) is \(key.kindNameWithArticle), not a string")
            }
            out.w.item(first: i == 0)
            out.w.key(name)
            try value(table.topValue(at: i))
        }
        out.w.close(.object, empty: table.topCount == 0)
        out.w.item(first: false)
        out.w.key("$objects")
        out.w.open(.array)
        for uid in 0..<table.objectCount {
            // One entry per line, also when compact.
            if pretty { out.w.item(first: uid == 0) } else { out.w.raw(uid == 0 ? "\n" : ",\n") }
            try entry(uid, table.object(at: uid))
            try out.flushIfFull()
        }
        if !pretty && table.objectCount > 0 { out.w.raw("\n") }
        out.w.close(.array, empty: table.objectCount == 0)
        out.w.close(.object, empty: false)
        try out.flush()
    }

    /// `{"$id": n, "class": name, "fields": {...}}` for a dictionary with string keys (`class` when its
    /// `$class` names one), `{"$id": n, "value": v}` for anything else.
    private mutating func entry(_ uid: Int, _ entry: PlistValue) throws {
        out.w.open(.object)
        out.w.item(first: true)
        out.w.key("$id")
        out.w.raw(String(uid))
        out.w.item(first: false)
        if case .dictionary(let d) = entry, d.hasOnlyStringKeys {
            if let name = try className(d) {
                out.w.key("class")
                out.w.string(name)
                out.w.item(first: false)
            }
            out.w.key("fields")
            out.w.open(.object)
            for (i, e) in d.entries.enumerated() {
                out.w.item(first: i == 0)
                out.w.key(e.key.stringValue ?? "")
                try value(e.value)
            }
            out.w.close(.object, empty: d.isEmpty)
        } else {
            out.w.key("value")
            try value(entry)
        }
        out.w.close(.object, empty: false)
    }

    /// A value as plist-JSON, UIDs as `{"$ref": n}`, counted against the budget.
    private mutating func value(_ v: PlistValue) throws {
        budget -= Self.count(v)
        guard budget >= 0 else {
            throw KeyedArchiveError(.elementLimitExceeded, "the archive's plist shares collections between "
                + "objects: printing each object in full takes more than \(limit) values")
        }
        out.w.plist(v, uidKey: "$ref")
    }

    /// The number of plist values in `v`, itself included.
    private static func count(_ v: PlistValue) -> Int {
        switch v {
        case .array(let items), .set(let items): items.reduce(1) { $0 + count($1) }
        case .dictionary(let d): d.entries.reduce(1) { $0 + count($1.value) }
        default: 1
        }
    }

    /// The `$classname` of the class dictionary that `d`'s `$class` refers to, when it is a string.
    private mutating func className(_ d: PlistDictionary) throws -> String? {
        guard case .uid(let u)? = d["$class"], u.value < UInt64(table.objectCount) else { return nil }
        let uid = Int(u.value)
        if let known = classNames[uid] { return known }
        let name = try table.object(at: uid).dictionaryValue?["$classname"]?
            .stringValue
        classNames[uid] = .some(name)
        return name
    }
}
