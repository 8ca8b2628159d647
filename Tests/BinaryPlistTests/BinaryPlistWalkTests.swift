import Testing
import TestSupport
@testable import BinaryPlist

/// The event reader and the tree built on its events: the events of a document, and a tree that is what an
/// independent rebuild of those events gives (the same value, or the same error).
@Suite("Binary plist walk and event reader")
struct BinaryPlistWalkTests {
    /// What walking the top object gives: the value rebuilt from the events, or the error.
    static func walked(_ document: BinaryPlistDocument) -> Result<PlistValue, PlistError> {
        do {
            return .success(try document.withObjects { objects throws in
                try BinaryPlistEventTree.value(of: objects.topObject, in: objects)
            })
        } catch let error as PlistError {
            return .failure(error)
        } catch {
            Issue.record("the walk threw \(type(of: error)): \(error)")
            return .failure(PlistError(.invalidMarker, "not a PlistError"))
        }
    }

    static func materialized(_ document: BinaryPlistDocument) -> Result<PlistValue, PlistError> {
        Result { () throws(PlistError) in try document.decodeTopObject() }
    }

    /// A readable rendering of an event, for comparing sequences.
    static func describe(_ event: BinaryPlistObjects.Event) -> String {
        switch event {
        case .beginArray(let n): "[\(n)"
        case .beginSet(let n): "{set \(n)"
        case .beginDictionary(let n): "{\(n)"
        case .end: "end"
        case .null: "null"
        case .bool(let b): "\(b)"
        case .integer(let i): "int \(i)"
        case .real(let d): "real \(d)"
        case .date(let d): "date \(d.secondsSinceReferenceDate)"
        case .uid(let u): "uid \(u.value)"
        case .string(let s): "\(s.encoding) \(s.string)"
        case .data(let d): "data \(Array(d))"
        }
    }

    static func events(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> [String] {
        var out: [String] = []
        try BinaryPlistDocument(bytes, limits: limits).walk { out.append(describe($0)) }
        return out
    }

    static let fixturePlists: [String] = (RepositoryFixtures.dataFiles(under: "bplist")
        + RepositoryFixtures.dataFiles(under: "keyed") + RepositoryFixtures.dataFiles(under: "inspector")).sorted()

    @Test(arguments: fixturePlists)
    func treeIsWhatItsEventsMakeForEveryFixture(_ file: String) throws {
        let bytes = try RepositoryFixtures.bytes(file)
        guard BinaryPlistDocument.hasMagic(bytes), let document = try? BinaryPlistDocument(bytes) else { return }
        #expect(Self.walked(document) == Self.materialized(document), "\(file)")
    }

    @Test func treeOfRandomValuesIsWhatItsEventsMake() throws {
        var random = RandomPlist(seed: 42, profile: .binary)
        for i in 0..<1000 {
            let value = random.value()
            let document = try BinaryPlistDocument(try PropertyList.encode(value, format: .binary))
            #expect(Self.walked(document) == .success(value), "value \(i)")
        }
    }

    @Test func reportsEventsDepthFirstInFileOrder() throws {
        var d = PlistDictionary()
        d["a"] = .array([.integer(1), .bool(true), .null])
        d["b"] = .data([1, 2])
        d["é"] = .real(0.5)
        d["u"] = .uid(PlistUID(7))
        let bytes = try PropertyList.encode(.dictionary(d), format: .binary)
        #expect(try Self.events(bytes) == [
            "{4", "ascii a", "[3", "int 1", "true", "null", "end", "ascii b", "data [1, 2]",
            "utf16BigEndian é", "real 0.5", "ascii u", "uid 7", "end",
        ])
        #expect(try Self.events(try PropertyList.encode(.string("top"), format: .binary)) == ["ascii top"])
    }

    @Test func pullReaderStopsAndEnds() throws {
        let bytes = try PropertyList.encode(.array([.integer(1), .array([]), .integer(2)]), format: .binary)
        let seen: [String] = try BinaryPlistDocument(bytes).withObjects { objects throws(PlistError) in
            var reader = try objects.events(objects.topObject)
            var seen: [String] = []
            while let event = try reader.next() { seen.append(Self.describe(event)) }
            // Once the object is read whole, the reader stays at its end.
            if let extra = try reader.next() { seen.append("extra " + Self.describe(extra)) }
            return seen
        }
        #expect(seen == ["[3", "int 1", "[0", "end", "int 2", "end"])
    }

    @Test func refusesAnIndexThatIsNoObject() throws {
        let document = try BinaryPlistDocument(try PropertyList.encode(.integer(1), format: .binary))
        let error = #expect(throws: PlistError.self) {
            try document.withObjects { objects throws(PlistError) in _ = try objects.events(objects.objectCount) }
        }
        #expect(error?.code == .invalidReference)
    }

    /// A cycle: array 0 holds array 1, which holds array 0.
    static var cyclic: [UInt8] {
        var b = BPlistBuilder()
        _ = b.add([0xA1, 0x01])
        _ = b.add([0xA2, 0x02, 0x00])
        _ = b.add([0x10, 0x05])
        return b.build()
    }

    @Test func theTreeThrowsTheReadersErrorForBadInput() throws {
        var deep = PlistValue.integer(1)
        for _ in 0..<10 { deep = .array([deep]) }
        let deepBytes = try PropertyList.encode(deep, format: .binary)
        var collectionKey = BPlistBuilder()
        _ = collectionKey.add([0xD1, 0x01, 0x02])
        _ = collectionKey.add([0xA0])
        _ = collectionKey.add([0x09])
        var badMarker = BPlistBuilder()
        _ = badMarker.add([0xA2, 0x01, 0x02])
        _ = badMarker.add([0x09])
        _ = badMarker.add([0x70])
        var truncated = BPlistBuilder()
        _ = truncated.add([0xA1, 0x01])
        _ = truncated.add([0x5F, 0x10, 0x7F, 0x41])
        var highASCII = BPlistBuilder()
        _ = highASCII.add([0x52, 0x41, 0xE9])
        var loneSurrogate = BPlistBuilder()
        _ = loneSurrogate.add([0x61, 0xD8, 0x00])
        var strict = PlistLimits.default
        strict.stringPolicy = .strict
        var shallow = PlistLimits.default
        shallow.maxDepth = 4
        var small = PlistLimits.default
        small.maxElements = 5
        let cases: [(String, [UInt8], PlistLimits, PlistError.Code)] = [
            ("cycle", Self.cyclic, .default, .cycle),
            ("depth", deepBytes, shallow, .depthLimitExceeded),
            ("budget", deepBytes, small, .elementLimitExceeded),
            ("collection key", collectionKey.build(), .default, .invalidKey),
            ("bad marker", badMarker.build(), .default, .invalidMarker),
            ("truncated string", truncated.build(), .default, .invalidCount),
            ("strict ASCII", highASCII.build(), strict, .invalidString),
            ("strict UTF-16", loneSurrogate.build(), strict, .invalidString),
        ]
        for (name, bytes, limits, code) in cases {
            let document = try BinaryPlistDocument(bytes, limits: limits)
            let materialized = Self.materialized(document)
            guard case .failure(let error) = materialized else {
                Issue.record("\(name): materializing succeeded")
                continue
            }
            #expect(error.code == code, "\(name)")
            #expect(Self.walked(document) == materialized, "\(name)")
        }
    }

    @Test func lenientStringsKeepTheirEncoding() throws {
        var utf8 = BPlistBuilder()
        _ = utf8.add([0x52, 0xC3, 0xA9])
        var latin1 = BPlistBuilder()
        _ = latin1.add([0x52, 0x41, 0xE9])
        var loneSurrogate = BPlistBuilder()
        _ = loneSurrogate.add([0x61, 0xD8, 0x00])
        #expect(try Self.events(utf8.build()) == ["utf8 é"])
        #expect(try Self.events(latin1.build()) == ["latin1 Aé"])
        #expect(try Self.events(loneSurrogate.build()) == ["utf16BigEndian \u{FFFD}"])
    }

    @Test func reportsTheEventsBeforeAnErrorAndThenEnds() throws {
        let document = try BinaryPlistDocument(Self.cyclic)
        var seen: [String] = []
        let error = #expect(throws: PlistError.self) {
            try document.walk { seen.append(Self.describe($0)) }
        }
        #expect(error?.code == .cycle)
        #expect(error?.objectIndex == 0)
        #expect(seen == ["[1", "[2", "int 5"])
        // After the error the pull reader is at its end.
        let after: [String] = try document.withObjects { objects throws(PlistError) in
            var reader = try objects.events(objects.topObject)
            var seen: [String] = []
            do throws(PlistError) {
                while let event = try reader.next() { seen.append(Self.describe(event)) }
            } catch {
                seen.append("error \(error.code)")
            }
            if let event = try reader.next() { seen.append(Self.describe(event)) }
            return seen
        }
        #expect(after == ["[1", "[2", "int 5", "error \(PlistError.Code.cycle)"])
    }

    struct Stop: Error, Equatable { let at: Int }

    @Test func passesTheBodysErrorThroughUnchanged() throws {
        let document = try BinaryPlistDocument(try PropertyList.encode(.array([.integer(1), .integer(2)]), format: .binary))
        var count = 0
        let error = #expect(throws: Stop.self) {
            try document.walk { _ in
                count += 1
                if count == 2 { throw Stop(at: count) }
            }
        }
        #expect(error == Stop(at: 2))
    }

    @Test func stringViewComparesWithoutCopying() throws {
        let bytes = try PropertyList.encode(.array([.string("name"), .string("näme")]), format: .binary)
        var matches: [Bool] = []
        try BinaryPlistDocument(bytes).walk { event in
            if case .string(let s) = event { matches += [s.isEqual(to: "name"), s.isEqual(to: "näme"), s.isEqual(to: "nam")] }
        }
        #expect(matches == [true, false, false, false, true, false])
    }

    @Test func wellFormedUTF16AgreesWithTheStandardLibrary() {
        var random = SeededGenerator(seed: 9)
        let interesting: [UInt16] = [0x0041, 0x00E9, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFF]
        for _ in 0..<5000 {
            let count = Int(random.next() % 6)
            let units = (0..<count).map { _ in interesting[Int(random.next() % UInt64(interesting.count))] }
            let bytes = units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let standard = !transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) { _ in }
            let ours = bytes.withUnsafeBytes { isWellFormedUTF16BigEndian($0) }
            #expect(ours == standard, "\(units.map { String($0, radix: 16) })")
        }
    }
}
