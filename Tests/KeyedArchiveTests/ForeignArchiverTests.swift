import BinaryPlist
import KeyedArchive
import Testing

private struct Layer: Codable, Equatable {
    var name: String
    var opacity: Double
}

/// Archives written by `NSKeyedArchiver` subclasses name another `$archiver` (Sketch: "MSArchiver"). Every
/// reader refuses them by default, as `NSKeyedUnarchiver` does, and reads them when told to.
@Suite("Foreign archiver names")
struct ForeignArchiverTests {
    static var root: [String: Any] { ["name": "Page 1", "layers": [1, 2, 3]] }

    /// A normal archive whose `$archiver` string was rewritten through the BinaryPlist API.
    static func renamed(_ archive: [UInt8], to name: String, format: PlistFormat = .binary) throws -> [UInt8] {
        var top = try #require(try PropertyList.decode(archive).dictionaryValue)
        #expect(top["$archiver"] == "NSKeyedArchiver")
        top["$archiver"] = .string(name)
        return try PropertyList.encode(.dictionary(top), format: format)
    }

    static func msArchive(format: PlistFormat = .binary) throws -> [UInt8] {
        try renamed(KeyedArchiver.archivedData(withRootObject: root), to: "MSArchiver", format: format)
    }

    static func expectRoot(_ value: Any?, sourceLocation: SourceLocation = #_sourceLocation) {
        let dictionary = value as? [String: Any]
        #expect(dictionary?["name"] as? String == "Page 1", sourceLocation: sourceLocation)
        #expect(dictionary?["layers"] as? [Int] == [1, 2, 3], sourceLocation: sourceLocation)
    }

    @Test(arguments: PlistFormat.allCases)
    func unarchiverRefusesAnotherArchiverByDefaultNamingIt(format: PlistFormat) throws {
        let bytes = try Self.msArchive(format: format)
        let error = expectKeyedError(.foreignArchiver) {
            try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes)
        }
        #expect(error?.archiver == "MSArchiver")
        #expect(error?.description == #"keyed archive: $archiver is "MSArchiver", not "NSKeyedArchiver""#)
        expectKeyedError(.foreignArchiver) { try KeyedUnarchiver.unarchivedObject(ofTypes: [[AnyHashable: Any].self], from: bytes) }
        expectKeyedError(.foreignArchiver) { try KeyedUnarchiver.withUnarchiver(for: bytes) { _ in 0 } }
        expectKeyedError(.foreignArchiver) { try ArchiveGraph(bytes: bytes) }
    }

    @Test(arguments: PlistFormat.allCases)
    func unarchiverReadsAnAcceptedArchiverAndTellsItsName(format: PlistFormat) throws {
        let bytes = try Self.msArchive(format: format)
        let accepted: AcceptedArchivers = ["NSKeyedArchiver", "MSArchiver"]
        Self.expectRoot(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, acceptedArchivers: accepted))
        Self.expectRoot(try KeyedUnarchiver.unarchivedObject(ofTypes: [[AnyHashable: Any].self], from: bytes,
                                                             acceptedArchivers: .any))
        let name = try KeyedUnarchiver.withUnarchiver(for: bytes, acceptedArchivers: accepted) { $0.archiver }
        #expect(name == "MSArchiver")
        // The accepted set still reads Apple's own archives.
        let apple = try KeyedArchiver.archivedData(withRootObject: Self.root)
        Self.expectRoot(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: apple, acceptedArchivers: accepted))
        #expect(try KeyedUnarchiver.withUnarchiver(for: apple) { $0.archiver } == "NSKeyedArchiver")
    }

    @Test func aSetWithoutNSKeyedArchiverRefusesApplesArchives() throws {
        let apple = try KeyedArchiver.archivedData(withRootObject: Self.root)
        let error = expectKeyedError(.foreignArchiver) {
            try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: apple, acceptedArchivers: ["MSArchiver"])
        }
        #expect(error?.description == #"keyed archive: $archiver is "NSKeyedArchiver", not "MSArchiver""#)
        let several = expectKeyedError(.foreignArchiver) {
            try ArchiveGraph(bytes: apple, acceptedArchivers: ["MSArchiver", "DummyArchiver"])
        }
        #expect(several?.reason == #"$archiver is "NSKeyedArchiver", not one of "DummyArchiver", "MSArchiver""#)
        let none = expectKeyedError(.foreignArchiver) { try ArchiveGraph(bytes: apple, acceptedArchivers: []) }
        #expect(none?.reason == #"$archiver is "NSKeyedArchiver", and no archiver name is accepted"#)
    }

    @Test func archiveGraphTellsTheArchiverAndKeepsItWhenWrittenBack() throws {
        let bytes = try Self.msArchive()
        let graph = try ArchiveGraph(bytes: bytes, acceptedArchivers: .any)
        #expect(graph.archiver == "MSArchiver")
        #expect(graph == (try ArchiveGraph(bytes: try Self.msArchive(format: .xml), acceptedArchivers: .any)))
        let written = try graph.encoded()
        #expect(try ArchiveGraph(bytes: written, acceptedArchivers: ["MSArchiver"]) == graph)
        #expect(try PropertyList.decode(try graph.encoded()).dictionaryValue?["$archiver"] == "MSArchiver")
        #expect(try ArchiveGraph(bytes: KeyedArchiver.archivedData(withRootObject: Self.root)).archiver == "NSKeyedArchiver")
    }

    @Test func archiveDecoderRefusesByDefaultAndReadsWithTheOption() throws {
        let layer = Layer(name: "Oval", opacity: 0.5)
        let bytes = try Self.renamed(ArchiveEncoder().encode(layer), to: "MSArchiver")
        var decoder = ArchiveDecoder()
        do {
            _ = try decoder.decode(Layer.self, from: bytes)
            Issue.record("decoded an MSArchiver archive without accepting it")
        } catch DecodingError.dataCorrupted(let context) {
            let underlying = context.underlyingError as? KeyedArchiveError
            #expect(underlying?.code == .foreignArchiver)
            #expect(underlying?.archiver == "MSArchiver")
            #expect(context.debugDescription == #"keyed archive: $archiver is "MSArchiver", not "NSKeyedArchiver""#)
        }
        decoder.acceptedArchivers = ["NSKeyedArchiver", "MSArchiver"]
        #expect(try decoder.decode(Layer.self, from: bytes) == layer)
    }

    @Test func aMissingOrNonStringArchiverIsAnInvalidHeaderWhateverIsAccepted() throws {
        let objects: PlistValue = .array(["$null", "hello"])
        for archiver: PlistValue? in [nil, 7, .array(["MSArchiver"])] {
            let bytes = try HostileArchive.bytes(objects: objects, archiver: archiver)
            let error = expectKeyedError(.invalidHeader) {
                try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, acceptedArchivers: .any)
            }
            #expect(error?.archiver == nil)
            expectKeyedError(.invalidHeader) { try ArchiveGraph(bytes: bytes, acceptedArchivers: .any) }
        }
    }

    /// danielpaulus' `wrong_archiver.xml`: "DummyArchiver", one unkeyed top value (`$0` = true).
    @Test func wrongArchiverFixtureIsReadOnlyWhenItsNameIsAccepted() throws {
        let bytes = try KeyedFixtures.bytes("keyed/danielpaulus-nskeyedarchiver/broken/xml/wrong_archiver.xml")
        let error = expectKeyedError(.foreignArchiver) { try KeyedUnarchiver.withUnarchiver(for: bytes) { _ in 0 } }
        #expect(error?.archiver == "DummyArchiver")
        let (name, value) = try KeyedUnarchiver.withUnarchiver(for: bytes, acceptedArchivers: ["DummyArchiver"]) {
            ($0.archiver, try $0.decodeObject(of: Bool.self))
        }
        #expect(name == "DummyArchiver")
        #expect(value == true)
        let graph = try ArchiveGraph(bytes: bytes, acceptedArchivers: .any)
        #expect(graph.archiver == "DummyArchiver")
        #expect(graph.objects == ["$null", true])
    }

    @Test func acceptedArchiversDescribeThemselves() {
        #expect(AcceptedArchivers.nsKeyedArchiver.description == #""NSKeyedArchiver""#)
        #expect(AcceptedArchivers(["b", "a"]).description == #""a", "b""#)
        #expect(AcceptedArchivers.any.description == "any")
        #expect(AcceptedArchivers.any.accepts("MSArchiver"))
        #expect(!AcceptedArchivers.nsKeyedArchiver.accepts("MSArchiver"))
        #expect(AcceptedArchivers(["MSArchiver"]) == ["MSArchiver"])
    }
}
