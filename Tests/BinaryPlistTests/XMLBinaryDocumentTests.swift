import Testing
@testable import BinaryPlist

/// XML read straight into the objects of a binary plist (``XMLPlistReader/binaryDocument(_:)``, the path keyed
/// archives in XML take) gives the value the tree reader gives, and the same errors.
@Suite struct XMLBinaryDocumentTests {
    static let xmlFixtures = FixtureFiles.dataFiles.filter {
        (try? PropertyList.detectFormat(FixtureFiles.bytes($0))) == .xml
    }

    @Test func everyXMLFixtureIsFound() {
        #expect(Self.xmlFixtures.count == 39)
    }

    @Test(arguments: xmlFixtures)
    func readsTheValueTheTreeReaderReads(file: String) throws {
        let bytes = try FixtureFiles.bytes(file)
        let reader = XMLPlistReader()
        switch Result(catching: { try reader.decode(bytes) }) {
        case .success(let tree):
            let document = try reader.binaryDocument(bytes)
            #expect(try document.decodeTopObject() == tree, "\(file)")
        case .failure(let treeError):
            let error = #expect(throws: PlistError.self, "\(file)") { try reader.binaryDocument(bytes) }
            #expect(error == treeError as? PlistError, "\(file)")
        }
    }

    @Test func stringsIntegersAndUIDsAreWrittenOnce() throws {
        let xml = """
            <plist version="1.0"><array><string>a</string><string>a</string><integer>7</integer><integer>7</integer>
            <dict><key>CF$UID</key><integer>7</integer></dict><dict><key>CF$UID</key><integer>7</integer></dict>
            <true/><true/><real>1</real></array></plist>
            """
        let document = try XMLPlistReader().binaryDocument(Array(xml.utf8))
        #expect(try document.decodeTopObject() == .array([
            "a", "a", .integer(PlistInteger(7)), .integer(PlistInteger(7)), .uid(PlistUID(7)), .uid(PlistUID(7)),
            .bool(true), .bool(true), .real(1),
        ]))
        // "a", 7, UID 7, true, 1.0 and the array (a UID's CF$UID key is never written): the top object comes last.
        #expect(document.objectCount == 6)
        #expect(document.topObject == 5)
    }

    @Test func anUnclosedArrayKeepsItsLineAndOffset() throws {
        let xml = Array("<plist version=\"1.0\">\n<array><string>x</string>\n".utf8)
        let error = #expect(throws: PlistError.self) { try XMLPlistReader().binaryDocument(xml) }
        #expect(error?.code == .invalidXML)
        #expect(error?.byteOffset == 22)
        #expect(error?.reason == "line 2, column 1: unterminated <array>")
    }
}
