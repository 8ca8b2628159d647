/// The elements a plist may contain.
enum XMLPlistElement {
    case plist, dict, key, array, string, integer, real, `true`, `false`, date, data

    /// The element named by `name`'s bytes, matched without making a string of them.
    init?(_ name: Slice<UnsafeBufferPointer<UInt8>>) {
        let candidate: XMLPlistElement
        switch (name.count, name.first) {
        case (3, UInt8(ascii: "k")): candidate = .key
        case (4, UInt8(ascii: "d")):
            guard name.count == 4 else { return nil }
            switch name[name.startIndex + 2] {
            case UInt8(ascii: "c"): candidate = .dict
            case UInt8(ascii: "t"): candidate = name[name.startIndex + 3] == UInt8(ascii: "a") ? .data : .date
            default: return nil
            }
        case (4, UInt8(ascii: "r")): candidate = .real
        case (4, UInt8(ascii: "t")): candidate = .true
        case (5, UInt8(ascii: "p")): candidate = .plist
        case (5, UInt8(ascii: "a")): candidate = .array
        case (5, UInt8(ascii: "f")): candidate = .false
        case (6, UInt8(ascii: "s")): candidate = .string
        case (7, UInt8(ascii: "i")): candidate = .integer
        default: return nil
        }
        guard candidate.matches(name) else { return nil }
        self = candidate
    }

    /// Whether `name` is this element's name, byte for byte.
    @inline(__always)
    func matches(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let expected = nameBytes
        guard name.count == expected.utf8CodeUnitCount else { return false }
        let start = expected.utf8Start
        var i = 0
        for c in name {
            if c != start[i] { return false }
            i += 1
        }
        return true
    }

    /// The element's name, for messages.
    var name: String { nameBytes.description }

    /// The element's name, as the bytes the parser compares.
    var nameBytes: StaticString {
        switch self {
        case .plist: "plist"
        case .dict: "dict"
        case .key: "key"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .true: "true"
        case .false: "false"
        case .date: "date"
        case .data: "data"
        }
    }
}

/// The tokenizer and tree builder behind ``XMLPlistReader``.
struct XMLPlistParser<Sink: XMLPlistSink> {
    struct StartTag {
        var element: XMLPlistElement
        var selfClosing: Bool
        var offset: Int
    }

    enum Markup {
        case start(StartTag)
        case end(XMLPlistElement, offset: Int)
        case endOfInput
    }

    /// An open `<array>` or `<dict>`: its children so far are ``XMLPlistParser/openItems`` or
    /// ``XMLPlistParser/openEntries`` from `start` on (one array for every open container, so a container
    /// costs no array of its own while it is read).
    struct Frame {
        var isDictionary: Bool
        var offset: Int
        var start: Int
        var pendingKey: (text: String, offset: Int)?
    }

    /// The input, valid while the parser is (``XMLPlistReader`` parses inside `withUnsafeBufferPointer`):
    /// reads are loads, and slices of it hold no reference.
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: PlistLimits
    var pos = 0
    var elements = 0
    var sawDoctype = false
    var sink: Sink
    /// The values read so far of the open arrays, outermost first.
    var openItems: [Sink.Node] = []
    /// The entries read so far of the open dictionaries, outermost first.
    var openEntries: [(key: String, value: Sink.Node)] = []
    /// How many values the input may hold (``PlistLimits/elementBudget(forInputOf:)``).
    let elementBudget: Int

    init(bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits, sink: Sink) {
        self.bytes = bytes
        self.limits = limits
        self.sink = sink
        elementBudget = limits.elementBudget(forInputOf: bytes.count)
    }

    // MARK: Errors

    /// An error at `offset`, its reason prefixed with the line and column (both from 1; columns count bytes).
    func fail(_ code: PlistError.Code, _ reason: String, at offset: Int) -> PlistError {
        let clamped = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<clamped where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return PlistError(
            code, "line \(line), column \(clamped - lineStart + 1): \(reason)", byteOffset: clamped,
            format: "xml plist")
    }

    func invalid(_ reason: String, at offset: Int) -> PlistError { fail(.invalidXML, reason, at: offset) }

    // MARK: Document

    mutating func parseDocument() throws -> Sink.Node {
        try readProlog()
        guard case .start(var tag) = try readMarkup(inProlog: true) else {
            throw invalid("no plist element", at: pos)
        }
        var wrapped = false
        if tag.element == .plist {
            wrapped = true
            guard !tag.selfClosing, case .start(let inner) = try readMarkup(inProlog: false) else {
                throw invalid("empty <plist>", at: tag.offset)
            }
            tag = inner
        }
        let value = try parseValue(startingWith: tag)
        if wrapped {
            switch try readMarkup(inProlog: false) {
            case .end(.plist, _): break
            case .start(let extra): throw invalid("<plist> holds more than one value", at: extra.offset)
            case .end(let other, let offset): throw invalid("</\(other.name)> does not close <plist>", at: offset)
            case .endOfInput: throw invalid("unterminated <plist>", at: pos)
            }
        }
        switch try readMarkup(inProlog: false) {
        case .endOfInput: return value
        case .start(let extra): throw invalid("content after the top value", at: extra.offset)
        case .end(_, let offset): throw invalid("content after the top value", at: offset)
        }
    }

    /// Byte-order mark, encoding checks and the XML declaration.
    mutating func readProlog() throws {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
            || (bytes[0] == 0 && bytes[1] == UInt8(ascii: "<")) || (bytes[0] == UInt8(ascii: "<") && bytes[1] == 0)
        {
            throw invalid("UTF-16 input is not supported; XML plists are read as UTF-8", at: 0)
        }
        if hasPrefix([0xEF, 0xBB, 0xBF]) { pos = 3 }
        guard hasPrefix("<?xml"), pos + 5 < bytes.count, isSpace(bytes[pos + 5]) || bytes[pos + 5] == 0x3F else {
            return
        }
        let start = pos
        guard let end = find("?>", from: pos + 5) else { throw invalid("unterminated XML declaration", at: start) }
        if let encoding = attributeValue(named: "encoding", in: bytes[(pos + 5)..<end]) {
            let name = String(decoding: encoding, as: UTF8.self).lowercased()
            guard name == "utf-8" || name == "utf8" || name == "us-ascii" || name == "ascii" else {
                throw invalid("encoding \"\(name)\" is not supported; XML plists are read as UTF-8", at: start)
            }
        }
        pos = end + 2
    }

    /// The quoted value of `name="..."` inside a declaration, if present.
    func attributeValue(named name: String, in region: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        let key = Array(name.utf8)
        var i = region.startIndex
        while i + key.count <= region.endIndex {
            if region[i..<(i + key.count)].elementsEqual(key) {
                var j = i + key.count
                while j < region.endIndex, isSpace(region[j]) { j += 1 }
                guard j < region.endIndex, region[j] == UInt8(ascii: "=") else { return nil }
                j += 1
                while j < region.endIndex, isSpace(region[j]) { j += 1 }
                guard j < region.endIndex, region[j] == 0x22 || region[j] == 0x27 else { return nil }
                let quote = region[j]
                guard let close = region[(j + 1)...].firstIndex(of: quote) else { return nil }
                return region[(j + 1)..<close]
            }
            i += 1
        }
        return nil
    }

    // MARK: Tree

    mutating func countElement(at offset: Int) throws {
        elements += 1
        if elements > elementBudget {
            throw fail(.elementLimitExceeded, "more than \(elementBudget) values", at: offset)
        }
    }

    /// The value that starts with `first`, children read with an explicit stack.
    mutating func parseValue(startingWith first: StartTag) throws -> Sink.Node {
        var stack: [Frame] = []
        var tag = first
        outer: while true {
            var produced: Sink.Node?
            switch tag.element {
            case .plist:
                throw invalid("<plist> inside a value", at: tag.offset)
            case .dict, .array:
                // A `<dict>` one level past the limit may still be `{CF$UID: n}`, a UID and so a scalar, as the
                // XML writer writes a UID at any depth: that is decided at its end tag.
                let mayBeUID = tag.element == .dict && !tag.selfClosing && stack.count == limits.maxDepth
                guard stack.count < limits.maxDepth || mayBeUID else {
                    throw fail(.depthLimitExceeded, "nesting deeper than the limit of \(limits.maxDepth)", at: tag.offset)
                }
                if tag.selfClosing {
                    produced = tag.element == .dict ? sink.dictionary([]) : sink.array([])
                } else {
                    let isDictionary = tag.element == .dict
                    stack.append(Frame(isDictionary: isDictionary, offset: tag.offset,
                                       start: isDictionary ? openEntries.count : openItems.count))
                }
            case .key:
                guard let top = stack.last, top.isDictionary else {
                    throw invalid("<key> outside a dictionary", at: tag.offset)
                }
                guard top.pendingKey == nil else { throw invalid("<key> follows a <key>", at: tag.offset) }
                let text: String
                if let range = try contentRange(of: tag) {
                    text = try string(bytes[range], at: tag.offset)
                } else {
                    text = try string(try copiedContent(of: tag), at: tag.offset)
                }
                stack[stack.count - 1].pendingKey = (text, tag.offset)
            case .string, .integer, .real, .date, .data, .true, .false:
                // The range first: reading the text moves `pos`.
                if let range = try contentRange(of: tag) {
                    produced = sink.scalar(try scalar(tag, bytes[range]))
                } else {
                    produced = sink.scalar(try scalar(tag, try copiedContent(of: tag)))
                }
            }

            // Hand the value to its container, close containers, and find the next start tag.
            while true {
                if let value = produced {
                    try countElement(at: tag.offset)
                    guard !stack.isEmpty else { return value }
                    let top = stack.count - 1
                    if stack[top].isDictionary {
                        guard let key = stack[top].pendingKey else {
                            throw invalid("dictionary value without a <key>", at: tag.offset)
                        }
                        openEntries.append((key.text, value))
                        stack[top].pendingKey = nil
                    } else {
                        openItems.append(value)
                    }
                    produced = nil
                }
                // Unreachable: a top-level <key> threw.
                guard let frame = stack.last else { throw invalid("<key> outside a dictionary", at: tag.offset) }
                switch try readMarkup(inProlog: false) {
                case .start(let next):
                    tag = next
                    continue outer
                case .endOfInput:
                    throw invalid("unterminated <\(frame.isDictionary ? "dict" : "array")>", at: frame.offset)
                case .end(let element, let offset):
                    let open: XMLPlistElement = frame.isDictionary ? .dict : .array
                    guard element == open else {
                        throw invalid("</\(element.name)> does not close <\(open.name)>", at: offset)
                    }
                    if let key = frame.pendingKey {
                        throw invalid("<key>\(Self.excerpt(Array(key.text.utf8)))</key> has no value", at: key.offset)
                    }
                    stack.removeLast()
                    let value: Sink.Node
                    if frame.isDictionary {
                        value = dictionary(openEntries[frame.start...])
                        openEntries.removeSubrange(frame.start...)
                    } else {
                        value = sink.array(openItems[frame.start...])
                        openItems.removeSubrange(frame.start...)
                    }
                    if stack.count >= limits.maxDepth && !sink.isUID(value) {
                        throw fail(.depthLimitExceeded, "nesting deeper than the limit of \(limits.maxDepth)", at: frame.offset)
                    }
                    produced = value
                    tag = StartTag(element: open, selfClosing: false, offset: frame.offset)
                }
            }
        }
    }

    /// The value of the scalar element `tag` whose text is `text`.
    func scalar<Text: RandomAccessCollection<UInt8>>(_ tag: StartTag, _ text: Text) throws -> PlistValue where Text.Index == Int {
        switch tag.element {
        case .string:
            return .string(try string(text, at: tag.offset))
        case .integer:
            return .integer(try integer(text, at: tag.offset))
        case .real:
            return .real(try real(text, at: tag.offset))
        case .date:
            guard let date = ISO8601.parse(text) else {
                throw invalid("invalid <date> \"\(Self.excerpt(text))\"", at: tag.offset)
            }
            return .date(date)
        case .data:
            guard let data = Base64.decode(text) else { throw invalid("invalid base64 in <data>", at: tag.offset) }
            return .data(data)
        case .true, .false:
            guard text.allSatisfy(isSpace) else {
                throw invalid("<\(tag.element.name)> must be empty", at: tag.offset)
            }
            return .bool(tag.element == .true)
        case .plist, .dict, .key, .array:
            throw invalid("<\(tag.element.name)> is not a scalar", at: tag.offset)
        }
    }

    /// A dictionary (last duplicate wins) or, for `{CF$UID: integer}`, a UID.
    mutating func dictionary(_ entries: ArraySlice<(key: String, value: Sink.Node)>) -> Sink.Node {
        if entries.count == 1, let only = entries.first, only.key == "CF$UID", let n = sink.integer(only.value),
            let uid = n.uint64Value
        {
            return sink.uid(uid)
        }
        var unique = entries
        if !Self.ascendingByBytes(entries), !Self.distinct(entries) {
            // Keys equal as Swift strings may still differ in code units (canonical equivalents), and CF
            // compares code units: merge only exact duplicates.
            unique = []
            var position: [[UInt8]: Int] = [:]  // indices of `unique`, which starts at 0
            for entry in entries {
                let bytes = Array(entry.key.utf8)
                if let i = position[bytes] {
                    unique[i].value = entry.value
                } else {
                    position[bytes] = unique.count
                    unique.append(entry)
                }
            }
        }
        return sink.dictionary(unique)
    }

    /// Whether the keys rise strictly byte by byte, as Apple writes them: then none repeats.
    static func ascendingByBytes(_ entries: ArraySlice<(key: String, value: Sink.Node)>) -> Bool {
        for i in entries.indices.dropFirst() {
            let ordered: Bool? = entries[i - 1].key.utf8.withContiguousStorageIfAvailable { a in
                entries[i].key.utf8.withContiguousStorageIfAvailable { b in
                    a.lexicographicallyPrecedes(b)
                }
            } ?? nil
            guard ordered == true else { return false }
        }
        return true
    }

    /// Whether no two keys are equal as Swift strings.
    static func distinct(_ entries: ArraySlice<(key: String, value: Sink.Node)>) -> Bool {
        var seen = Set<String>(minimumCapacity: entries.count)
        return entries.allSatisfy { seen.insert($0.key).inserted }
    }

    // MARK: Scalars

    func string(_ utf8: some Collection<UInt8>, at offset: Int) throws -> String {
        // ASCII (most text) is valid UTF-8: one pass to see it, none to validate it.
        var high: UInt8 = 0
        for c in utf8 { high |= c }
        if high < 0x80 { return String(decoding: utf8, as: UTF8.self) }
        switch limits.stringPolicy {
        case .lenient:
            return String(decoding: utf8, as: UTF8.self)
        case .strict:
            guard let s = validUTF8String(Array(utf8)) else {
                throw fail(.invalidString, "text is not valid UTF-8", at: offset)
            }
            return s
        }
    }

    func integer<Text: RandomAccessCollection<UInt8>>(_ text: Text, at offset: Int) throws -> PlistInteger where Text.Index == Int {
        var body = text[...]
        while let f = body.first, isSpace(f) { body.removeFirst() }
        while let l = body.last, isSpace(l) { body.removeLast() }
        guard !body.isEmpty else { throw invalid("empty <integer>", at: offset) }
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            body.removeFirst()
            while let f = body.first, isSpace(f) { body.removeFirst() }
        }
        var radix: UInt64 = 10
        if body.count > 2, body.first == UInt8(ascii: "0"),
            body[body.startIndex + 1] == UInt8(ascii: "x") || body[body.startIndex + 1] == UInt8(ascii: "X")
        {
            radix = 16
            body.removeFirst(2)
        }
        guard !body.isEmpty else { throw invalid("invalid <integer> \"\(Self.excerpt(text))\"", at: offset) }
        // Magnitude as a 128-bit (hi, lo) pair, checked at every step.
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for c in body {
            guard let d = Self.digitValue(c), d < radix else {
                throw invalid("invalid <integer> \"\(Self.excerpt(text))\"", at: offset)
            }
            let (carry, low) = lo.multipliedFullWidth(by: radix)
            let (hiTimes, o1) = hi.multipliedReportingOverflow(by: radix)
            var (newHi, o2) = hiTimes.addingReportingOverflow(carry)
            let (newLo, o3) = low.addingReportingOverflow(d)
            var o4 = false
            if o3 { (newHi, o4) = newHi.addingReportingOverflow(1) }
            guard !(o1 || o2 || o4), newHi <= 1 << 63 else {
                throw invalid("<integer> \(Self.excerpt(text)) is outside -2^127...2^127-1", at: offset)
            }
            (hi, lo) = (newHi, newLo)
        }
        let limitHi: UInt64 = negative ? 1 << 63 : (1 << 63) - 1
        let limitLo: UInt64 = negative ? 0 : .max
        guard hi < limitHi || (hi == limitHi && lo <= limitLo) else {
            throw invalid("<integer> \(Self.excerpt(text)) is outside -2^127...2^127-1", at: offset)
        }
        if negative {
            hi = ~hi
            lo = ~lo
            let (sum, carry) = lo.addingReportingOverflow(1)
            lo = sum
            if carry { hi &+= 1 }
        }
        return PlistInteger(high: Int64(bitPattern: hi), low: lo)
    }

    func real<Text: RandomAccessCollection<UInt8>>(_ text: Text, at offset: Int) throws -> Double where Text.Index == Int {
        var body = text[...]
        while let f = body.first, isSpace(f) { body.removeFirst() }
        while let l = body.last, isSpace(l) { body.removeLast() }
        // Digits, signs, a point and an exponent (nearly every real): parsed as they are.
        if !body.isEmpty, body.allSatisfy(isNumberByte), let value = Double(String(decoding: body, as: UTF8.self)) {
            return value
        }
        let lower = String(decoding: body, as: UTF8.self).lowercased()
        switch lower {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        let allowed = Set("0123456789+-.e".utf8)
        guard !lower.isEmpty, lower.utf8.allSatisfy({ allowed.contains($0) }), let value = Double(lower) else {
            throw invalid("invalid <real> \"\(Self.excerpt(text))\"", at: offset)
        }
        return value
    }

    static func digitValue(_ c: UInt8) -> UInt64? {
        switch c {
        case 0x30...0x39: UInt64(c - 0x30)
        case 0x41...0x46: UInt64(c - 0x41 + 10)
        case 0x61...0x66: UInt64(c - 0x61 + 10)
        default: nil
        }
    }

    /// The first few characters of `text`, for error messages.
    static func excerpt(_ text: some Collection<UInt8>) -> String {
        let s = String(decoding: text.prefix(40), as: UTF8.self)
        return text.count > 40 ? s + "..." : s
    }

    // MARK: Tokenizer

    func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    func hasPrefix(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard pos + n <= bytes.count else { return false }
        let literal = s.utf8Start
        for i in 0..<n where bytes[pos + i] != literal[i] { return false }
        return true
    }

    func hasPrefix(_ s: [UInt8]) -> Bool {
        pos + s.count <= bytes.count && bytes[pos..<(pos + s.count)].elementsEqual(s)
    }

    /// Offset of the first `s` at or after `from`.
    func find(_ s: StaticString, from: Int) -> Int? {
        s.withUTF8Buffer { needle -> Int? in
            guard let first = needle.first else { return from }
            var i = from
            while i + needle.count <= bytes.count {
                if bytes[i] == first && bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
                i += 1
            }
            return nil
        }
    }

    /// The next start or end tag, skipping whitespace, comments, processing instructions and (in the prolog,
    /// once) an external DOCTYPE. Any other text is an error.
    mutating func readMarkup(inProlog: Bool) throws -> Markup {
        while true {
            while pos < bytes.count, isSpace(bytes[pos]) { pos += 1 }
            guard pos < bytes.count else { return .endOfInput }
            guard bytes[pos] == UInt8(ascii: "<") else {
                throw invalid("unexpected text between elements", at: pos)
            }
            // Most markup is an element's tag: decided by the byte after `<`.
            if pos + 1 < bytes.count {
                let next = bytes[pos + 1]
                if next == UInt8(ascii: "/") {
                    let offset = pos
                    return .end(try readEndTag(), offset: offset)
                }
                if next != UInt8(ascii: "!") && next != UInt8(ascii: "?") { return .start(try readStartTag()) }
            }
            if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else if hasPrefix("<!DOCTYPE") {
                guard inProlog, !sawDoctype else { throw invalid("DOCTYPE after the prolog", at: pos) }
                try skipDoctype()
                sawDoctype = true
            } else if hasPrefix("<!") {
                try refuseDeclaration()
            } else if hasPrefix("</") {
                let offset = pos
                return .end(try readEndTag(), offset: offset)
            } else {
                return .start(try readStartTag())
            }
        }
    }

    /// `<!ENTITY` is forbidden; any other `<!...` outside a DOCTYPE or CDATA is malformed here.
    func refuseDeclaration() throws -> Never {
        if hasPrefix("<!ENTITY") { throw fail(.forbiddenDTD, "ENTITY declarations are refused", at: pos) }
        if hasPrefix("<![CDATA[") { throw invalid("CDATA section outside a string", at: pos) }
        throw invalid("unexpected declaration", at: pos)
    }

    mutating func skipComment() throws {
        guard let end = find("-->", from: pos + 4) else { throw invalid("unterminated comment", at: pos) }
        pos = end + 3
    }

    mutating func skipProcessingInstruction() throws {
        guard let end = find("?>", from: pos + 2) else {
            throw invalid("unterminated processing instruction", at: pos)
        }
        pos = end + 2
    }

    /// Accepts `<!DOCTYPE name [PUBLIC "..." "..." | SYSTEM "..."]>`; an internal subset is refused.
    mutating func skipDoctype() throws {
        let start = pos
        var i = pos + 9
        var quote: UInt8?
        while i < bytes.count {
            let c = bytes[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == 0x22 || c == 0x27 {
                quote = c
            } else if c == UInt8(ascii: "[") {
                throw fail(.forbiddenDTD, "a DOCTYPE with an internal subset is refused", at: i)
            } else if c == UInt8(ascii: "<") {
                throw invalid("malformed DOCTYPE", at: i)
            } else if c == UInt8(ascii: ">") {
                pos = i + 1
                return
            }
            i += 1
        }
        throw invalid("unterminated DOCTYPE", at: start)
    }

    /// A name: bytes up to whitespace, `/`, `>`, `=` or `<`.
    mutating func readName() -> Slice<UnsafeBufferPointer<UInt8>> {
        let start = pos
        while pos < bytes.count {
            let c = bytes[pos]
            if isSpace(c) || c == UInt8(ascii: "/") || c == UInt8(ascii: ">") || c == UInt8(ascii: "=")
                || c == UInt8(ascii: "<")
            {
                break
            }
            pos += 1
        }
        return bytes[start..<pos]
    }

    mutating func element(named name: Slice<UnsafeBufferPointer<UInt8>>, at offset: Int) throws -> XMLPlistElement {
        guard !name.isEmpty else { throw invalid("missing element name", at: offset) }
        guard let element = XMLPlistElement(name) else {
            throw invalid("unknown element <\(Self.excerpt(Array(name)))>", at: offset)
        }
        return element
    }

    /// `<name attr="..." ...>` or `<name .../>`; attributes are checked for form and ignored.
    mutating func readStartTag() throws -> StartTag {
        let offset = pos
        pos += 1
        let element = try element(named: readName(), at: offset)
        while true {
            while pos < bytes.count, isSpace(bytes[pos]) { pos += 1 }
            guard pos < bytes.count else { throw invalid("unterminated <\(element.name)> tag", at: offset) }
            if bytes[pos] == UInt8(ascii: ">") {
                pos += 1
                return StartTag(element: element, selfClosing: false, offset: offset)
            }
            if hasPrefix("/>") {
                pos += 2
                return StartTag(element: element, selfClosing: true, offset: offset)
            }
            let attributeOffset = pos
            guard !readName().isEmpty else { throw invalid("malformed attribute", at: attributeOffset) }
            while pos < bytes.count, isSpace(bytes[pos]) { pos += 1 }
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "=") else {
                throw invalid("malformed attribute", at: attributeOffset)
            }
            pos += 1
            while pos < bytes.count, isSpace(bytes[pos]) { pos += 1 }
            guard pos < bytes.count, bytes[pos] == 0x22 || bytes[pos] == 0x27 else {
                throw invalid("attribute value without quotes", at: attributeOffset)
            }
            let quote = bytes[pos]
            pos += 1
            while pos < bytes.count, bytes[pos] != quote {
                if bytes[pos] == UInt8(ascii: "<") { throw invalid("'<' in an attribute value", at: pos) }
                pos += 1
            }
            guard pos < bytes.count else { throw invalid("unterminated attribute value", at: attributeOffset) }
            pos += 1
        }
    }

    /// `</name>`, with optional whitespace before `>`.
    mutating func readEndTag() throws -> XMLPlistElement {
        let offset = pos
        pos += 2
        let element = try element(named: readName(), at: offset)
        while pos < bytes.count, isSpace(bytes[pos]) { pos += 1 }
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: ">") else {
            throw invalid("unterminated </\(element.name)> tag", at: offset)
        }
        pos += 1
        return element
    }

    /// Where the text of a scalar element lies in the input, when it is plain text followed by its end tag
    /// (nearly always), moving past that end tag; `nil` (and nothing read) when the text holds an entity,
    /// CDATA, a comment or anything else that ``copiedContent(of:)`` reads. Empty for a self-closing tag.
    mutating func contentRange(of tag: StartTag) throws -> Range<Int>? {
        guard !tag.selfClosing else { return pos..<pos }
        let start = pos
        var i = pos
        while i < bytes.count, bytes[i] != UInt8(ascii: "<"), bytes[i] != UInt8(ascii: "&") { i += 1 }
        if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "/"),
            closes(tag.element, at: i)
        {
            return start..<i
        }
        return nil
    }

    /// Whether `</name>` closing `element` (with optional whitespace before `>`) stands at `offset`; moves
    /// past it when it does.
    mutating func closes(_ element: XMLPlistElement, at offset: Int) -> Bool {
        let name = element.nameBytes
        let n = name.utf8CodeUnitCount
        var i = offset + 2
        guard i + n < bytes.count else { return false }
        let literal = name.utf8Start
        for k in 0..<n where bytes[i + k] != literal[k] { return false }
        i += n
        while i < bytes.count, isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { return false }
        pos = i + 1
        return true
    }

    /// The text of a scalar element up to its end tag, entities and character references replaced, CDATA
    /// unwrapped, comments and processing instructions dropped: a copy. Empty for a self-closing tag.
    mutating func copiedContent(of tag: StartTag) throws -> [UInt8] {
        guard !tag.selfClosing else { return [] }
        var out: [UInt8] = []
        var runStart = pos
        while pos < bytes.count {
            switch bytes[pos] {
            case UInt8(ascii: "<"):
                out.append(contentsOf: bytes[runStart..<pos])
                if hasPrefix("</") {
                    let offset = pos
                    let element = try readEndTag()
                    guard element == tag.element else {
                        throw invalid("</\(element.name)> does not close <\(tag.element.name)>", at: offset)
                    }
                    return out
                } else if hasPrefix("<![CDATA[") {
                    guard let end = find("]]>", from: pos + 9) else {
                        throw invalid("unterminated CDATA section", at: pos)
                    }
                    out.append(contentsOf: bytes[(pos + 9)..<end])
                    pos = end + 3
                } else if hasPrefix("<!--") {
                    try skipComment()
                } else if hasPrefix("<?") {
                    try skipProcessingInstruction()
                } else if hasPrefix("<!") {
                    try refuseDeclaration()
                } else {
                    throw invalid("unexpected element inside <\(tag.element.name)>", at: pos)
                }
                runStart = pos
            case UInt8(ascii: "&"):
                out.append(contentsOf: bytes[runStart..<pos])
                try appendReference(to: &out)
                runStart = pos
            default:
                pos += 1
            }
        }
        throw invalid("unterminated <\(tag.element.name)>", at: tag.offset)
    }

    /// Replaces `&name;`, `&#N;` or `&#xN;` at `pos` by its UTF-8 bytes.
    mutating func appendReference(to out: inout [UInt8]) throws {
        let start = pos
        var end = pos + 1
        while end < bytes.count, end - start <= 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw invalid("unterminated entity reference", at: start)
        }
        let name = bytes[(start + 1)..<end]
        pos = end + 1
        switch String(decoding: name, as: UTF8.self) {
        case "amp": out.append(UInt8(ascii: "&"))
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "apos": out.append(UInt8(ascii: "'"))
        case "quot": out.append(UInt8(ascii: "\""))
        default:
            guard name.first == UInt8(ascii: "#") else {
                throw invalid("unknown entity &\(Self.excerpt(Array(name)));", at: start)
            }
            var digits = name.dropFirst()
            var radix: UInt32 = 10
            if digits.first == UInt8(ascii: "x") {
                radix = 16
                digits = digits.dropFirst()
            }
            var value: UInt32 = 0
            for c in digits {
                guard let d = Self.digitValue(c), d < radix else {
                    throw invalid("malformed character reference &\(Self.excerpt(Array(name)));", at: start)
                }
                value = value * radix + UInt32(d)
                if value > 0x10FFFF { break }
            }
            guard !digits.isEmpty, value != 0, let scalar = Unicode.Scalar(value) else {
                throw invalid("character reference &\(Self.excerpt(Array(name))); is not a valid character", at: start)
            }
            UTF8.encode(scalar) { out.append($0) }
        }
    }
}

/// Whether `c` is one of `0123456789+-.eE`: a byte of a `<real>` that needs no other reading.
private func isNumberByte(_ c: UInt8) -> Bool {
    (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2D || c == 0x2E || c == 0x65 || c == 0x45
}
