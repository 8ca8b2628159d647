import TestSupport
import BinaryPlist
import Foundation
import Testing

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

    """

private func decode(_ text: String, limits: PlistLimits = .default) throws -> PlistValue {
    try XMLPlistReader(limits: limits).decode(Array(text.utf8))
}

/// `body` inside Apple's header and a `<plist>` element.
private func plist(_ body: String) -> String { header + "<plist version=\"1.0\">\n" + body + "\n</plist>\n" }

/// The error decoding `text` throws (and a failed expectation when it throws none or another type).
private func decodeError(_ text: String, limits: PlistLimits = .default, sourceLocation: SourceLocation = #_sourceLocation)
    -> PlistError?
{
    #expect(throws: PlistError.self, sourceLocation: sourceLocation) { try decode(text, limits: limits) }
}

@Suite("XML plist reader: fixtures")
struct XMLPlistReaderFixtureTests {
    @Test func fixtureFolderHoldsXMLPlists() {
        #expect(FixtureFiles.xmlPlistsWithJSON.count >= 30)
        #expect(FixtureFiles.xmlPlistsWithJSON.contains("keyed/dracula-terminal-app/embedded/Dracula.terminal"))
    }

    @Test(arguments: FixtureFiles.xmlPlistsWithJSON)
    func fixtureDecodesToItsJSONRendering(_ fixture: String) throws {
        let value = try XMLPlistReader().decode(try FixtureFiles.bytes(fixture))
        let reference = try #require(try PlistlibReference.value(of: fixture))
        #expect(PlistlibReference.matches(value, reference, format: .xml))
    }

    @Test(arguments: FixtureFiles.xmlPlistsWithJSON)
    func fixtureIsDetectedAsXMLByPropertyList(_ fixture: String) throws {
        let (value, format) = try PropertyList.decodeWithFormat(try FixtureFiles.bytes(fixture))
        #expect(format == .xml)
        let reference = try #require(try PlistlibReference.value(of: fixture))
        #expect(PlistlibReference.matches(value, reference, format: .xml))
    }

    @Test func fixtureThatIsNotWellFormedIsRejected() throws {
        let bytes = try FixtureFiles.bytes("keyed/danielpaulus-nskeyedarchiver/broken/xml/broken_plist.xml")
        let error = #expect(throws: PlistError.self) { try XMLPlistReader().decode(bytes) }
        #expect(error?.code == .invalidXML)
    }

    @Test func cfUIDDictionariesReadAsUIDs() throws {
        let fixture = "keyed/kiler129-NSKeyedUnarchiver/xml/date.xml.plist"
        let value = try XMLPlistReader().decode(try FixtureFiles.bytes(fixture))
        #expect(value["$top"]?["root"] == .uid(PlistUID(1)))
    }

    @Test func terminalProfileDataHoldsBinaryArchives() throws {
        let fixture = "keyed/dracula-terminal-app/embedded/Dracula.terminal"
        let value = try XMLPlistReader().decode(try FixtureFiles.bytes(fixture))
        let color = try #require(value["ANSIBlackColor"]?.dataValue)
        #expect(color.starts(with: Array("bplist00".utf8)))
    }
}

@Suite("XML plist reader: elements")
struct XMLPlistReaderElementTests {
    @Test func readsEveryElementKind() throws {
        let value = try decode(
            plist(
                """
                <dict>
                \t<key>a</key><array><true/><false/><integer>-12</integer><real>2.5</real></array>
                \t<key>d</key><date>2001-01-02T00:00:01Z</date>
                \t<key>b</key><data>AAEC</data>
                \t<key>s</key><string>text</string>
                </dict>
                """))
        let expected: PlistValue = [
            "a": [true, false, -12, 2.5], "d": .date(PlistDate(secondsSinceReferenceDate: 86_401)),
            "b": .data([0, 1, 2]), "s": "text",
        ]
        #expect(value == expected)
    }

    @Test func selfClosingElementsAreEmptyValues() throws {
        let value = try decode(plist("<array><string/><dict/><array/><data/><true/><false/></array>"))
        #expect(value == [.string(""), .dictionary([:]), .array([]), .data([]), true, false])
    }

    @Test func emptyKeyIsAllowed() throws {
        #expect(try decode(plist("<dict><key/><integer>1</integer><key></key><integer>2</integer></dict>")) == ["": 2])
    }

    @Test func plistWrapperIsOptionalAndItsAttributesIgnored() throws {
        #expect(try decode("<string>x</string>") == "x")
        #expect(try decode("<plist version=\"9\" extra='y'><integer>3</integer></plist>") == 3)
        #expect(try decode("  \n<plist><true/></plist>  \n") == true)
    }

    @Test func predefinedEntitiesAndCharacterReferencesAreReplaced() throws {
        let value = try decode(plist("<string>&amp;&lt;&gt;&apos;&quot;&#65;&#x42;&#x43;&#x1F600;&#233;</string>"))
        #expect(value == "&<>'\"ABC😀é")
    }

    @Test func cdataCommentsAndProcessingInstructionsInsideStrings() throws {
        let value = try decode(plist("<string>a<![CDATA[<b>&amp;]]>c<!-- gone -->d<?pi x?>e</string>"))
        #expect(value == "a<b>&amp;cde")
    }

    @Test func stringContentIsKeptVerbatim() throws {
        let value = try decode(plist("<array><string>  two\r\n lines\t</string></array>"))
        #expect(value == ["  two\r\n lines\t"])
    }

    @Test func whitespaceAndCommentsBetweenElementsAreIgnored() throws {
        let value = try decode("<!-- c --><?pi?>\n<plist>\n\t<!-- c -->\n<array>\n  <integer>1</integer>\n<!-- c -->\t</array>\n</plist>\n<!-- end -->\n")
        #expect(value == [1])
    }

    @Test func textBetweenElementsIsRejected() throws {
        #expect(decodeError(plist("<array>x<true/></array>"))?.code == .invalidXML)
    }

    @Test func rawControlCharactersInStringsAreKept() throws {
        #expect(try decode(plist("<string>\u{1}\u{8}</string>")) == "\u{1}\u{8}")
        #expect(try decode(plist("<string>&#1;</string>")) == "\u{1}")
    }

    @Test func integersInEveryAcceptedForm() throws {
        let value = try decode(
            plist(
                """
                <array><integer> 42 </integer><integer>+7</integer><integer>- 5</integer><integer>0x1F</integer>
                <integer>-0X10</integer><integer>18446744073709551615</integer><integer>-9223372036854775808</integer>
                <integer>170141183460469231731687303715884105727</integer>
                <integer>-170141183460469231731687303715884105728</integer></array>
                """))
        #expect(
            value == [
                42, 7, -5, 31, -16, .integer(PlistInteger(UInt64.max)), .integer(PlistInteger(Int64.min)),
                .integer(PlistInteger(high: .max, low: .max)), .integer(PlistInteger(high: .min, low: 0)),
            ])
    }

    @Test func realsInEveryAcceptedForm() throws {
        let value = try decode(
            plist(
                "<array><real>3.1400000000000001</real><real>-2</real><real>1e+20</real><real> 1.5E-3 </real>"
                    + "<real>nan</real><real>NaN</real><real>+infinity</real><real>-infinity</real><real>inf</real>"
                    + "<real>-inf</real><real>-0</real></array>"))
        #expect(
            value == [3.14, -2.0, 1e20, 1.5e-3, .real(.nan), .real(.nan), .real(.infinity), .real(-.infinity), .real(.infinity), .real(-.infinity), .real(-0.0)])
    }

    @Test func hexadecimalRealsAreRejected() {
        #expect(decodeError(plist("<real>0x1p3</real>"))?.code == .invalidXML)
        #expect(decodeError(plist("<real></real>"))?.code == .invalidXML)
        #expect(decodeError(plist("<real>1.2.3</real>"))?.code == .invalidXML)
    }

    @Test func datesInCoreFoundationFormAndLenientVariants() throws {
        let value = try decode(
            plist(
                "<array><date>2001-01-01T00:00:00Z</date><date>2000-12-31T23:59:59Z</date><date>2024-02-29T12:30:15.5Z</date>"
                    + "<date>0000-01-01T00:00:00Z</date><date>-0001-12-31T00:00:00Z</date><date>12345-06-07T08:09:10Z</date></array>"))
        let seconds = try #require(value.arrayValue).map { $0.dateValue?.secondsSinceReferenceDate }
        let yearOne: Double = -63_113_904_000  // 0001-01-01T00:00:00Z
        let expected: [Double?] = [0, -1, 730_902_615.5, yearOne - 366 * 86_400, yearOne - 367 * 86_400, 326_438_669_350]
        #expect(seconds == expected)
    }

    @Test func base64DataIgnoresWhitespace() throws {
        #expect(try decode(plist("<data>\n\tAAEC\n\tAwQF\n</data>")) == .data([0, 1, 2, 3, 4, 5]))
    }

    @Test func cfUIDDictionaryWithOneIntegerKeyIsAUID() throws {
        #expect(try decode(plist("<dict><key>CF$UID</key><integer>7</integer></dict>")) == .uid(PlistUID(7)))
        #expect(
            try decode(plist("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>"))
                == .uid(PlistUID(.max)))
    }

    @Test func cfUIDDictionaryOfAnotherShapeStaysADictionary() throws {
        #expect(try decode(plist("<dict><key>CF$UID</key><integer>-1</integer></dict>")) == ["CF$UID": -1])
        #expect(try decode(plist("<dict><key>CF$UID</key><string>1</string></dict>")) == ["CF$UID": "1"])
        #expect(
            try decode(plist("<dict><key>CF$UID</key><integer>1</integer><key>x</key><true/></dict>"))
                == ["CF$UID": 1, "x": true])
    }

    @Test func duplicateKeyKeepsTheLastValueAtTheFirstPosition() throws {
        let value = try decode(plist("<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict>"))
        let dict = try #require(value.dictionaryValue)
        #expect(dict.keys == ["a", "b"])
        #expect(dict["a"] == 3)
    }

    @Test func canonicallyEquivalentKeysAreNotMerged() throws {
        let value = try decode(plist("<dict><key>é</key><integer>1</integer><key>e\u{301}</key><integer>2</integer></dict>"))
        #expect(value.dictionaryValue?.count == 2)
    }

    @Test func utf8ByteOrderMarkIsAccepted() throws {
        #expect(try XMLPlistReader().decode([0xEF, 0xBB, 0xBF] + Array(plist("<true/>").utf8)) == true)
    }

    @Test func utf16InputAndDeclarationsAreRejected() throws {
        let utf16 = [0xFF, 0xFE] + Array("<".utf8) + [0]
        #expect(throws: PlistError.self) { try XMLPlistReader().decode(utf16) }
        let declared = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>"
        let error = decodeError(declared)
        #expect(error?.code == .invalidXML)
        #expect(error?.reason.contains("utf-16") == true)
        #expect(try decode("<?xml version='1.0' encoding='us-ascii'?><plist><true/></plist>") == true)
    }

    @Test func invalidUTF8FollowsTheStringPolicy() throws {
        let bytes = Array("<plist><string>a".utf8) + [0xFF] + Array("b</string></plist>".utf8)
        #expect(try XMLPlistReader().decode(bytes) == "a\u{FFFD}b")
        var strict = PlistLimits.default
        strict.stringPolicy = .strict
        let error = #expect(throws: PlistError.self) { try XMLPlistReader(limits: strict).decode(bytes) }
        #expect(error?.code == .invalidString)
    }

    @Test func errorsNameLineColumnAndByteOffset() throws {
        let text = "<plist>\n<array>\n  <integer>x</integer>\n</array></plist>"
        let error = try #require(decodeError(text))
        #expect(error.format == "xml plist")
        #expect(error.byteOffset == 18)
        #expect(error.reason.hasPrefix("line 3, column 3:"))
    }
}

@Suite("XML plist reader: hostile input")
struct XMLPlistReaderHostileTests {
    @Test func refusesEntityDeclarationsBillionLaughs() {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol \"lol\">\n"
        for i in 1...9 { text += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">\n" }
        text += "]>\n<plist><string>&lol9;</string></plist>"
        #expect(decodeError(text)?.code == .forbiddenDTD)
    }

    @Test func refusesDoctypeWithInternalSubset() {
        let text = "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x.dtd\" [ <!ATTLIST plist a CDATA #IMPLIED> ]><plist><true/></plist>"
        #expect(decodeError(text)?.code == .forbiddenDTD)
    }

    @Test func refusesEntityDeclarationOutsideADoctype() {
        #expect(decodeError("<!ENTITY x \"y\"><plist><true/></plist>")?.code == .forbiddenDTD)
        #expect(decodeError("<plist><string><!ENTITY x \"y\"></string></plist>")?.code == .forbiddenDTD)
    }

    @Test func acceptsOnlyOneExternalDoctypeInTheProlog() throws {
        #expect(try decode("<!DOCTYPE plist SYSTEM \"file:///x.dtd\"><plist><true/></plist>") == true)
        #expect(decodeError("<plist><!DOCTYPE plist><true/></plist>")?.code == .invalidXML)
        #expect(decodeError("<!DOCTYPE plist><!DOCTYPE plist><plist><true/></plist>")?.code == .invalidXML)
    }

    @Test func refusesNestingTenThousandDeep() {
        let text = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
        #expect(decodeError(text)?.code == .depthLimitExceeded)
    }

    @Test func depthLimitCountsContainersFromOne() throws {
        var limits = PlistLimits.default
        limits.maxDepth = 3
        #expect(try decode("<array><array><array><true/></array></array></array>", limits: limits) == [[[true]]])
        #expect(decodeError("<array><array><array><array/></array></array></array>", limits: limits)?.code == .depthLimitExceeded)
        #expect(decodeError("<array><array><array><array></array></array></array></array>", limits: limits)?.code == .depthLimitExceeded)
    }

    @Test func refusesMoreValuesThanTheElementLimit() {
        var limits = PlistLimits.default
        limits.maxElements = 100
        let text = "<array>" + String(repeating: "<true/>", count: 100) + "</array>"
        #expect(decodeError(text, limits: limits)?.code == .elementLimitExceeded)
    }

    @Test func refusesInputLargerThanTheLimit() {
        var limits = PlistLimits.default
        limits.maxInputBytes = 10
        #expect(decodeError("<plist><true/></plist>", limits: limits)?.code == .invalidCount)
    }

    @Test(arguments: [
        "<plist><array><true/></array>", "<plist><string>abc", "<plist><dict><key>a</key>", "<plist><array",
        "<plist><string>a</strin", "<plist><data>AA", "<plist><!-- x", "<plist><string><![CDATA[x</string></plist>",
        "<plist", "<", "<plist><dict><key>a</key></dict></plist>", "<plist></plist>", "<plist/>", "",
        "<plist><integer a=\"1></integer></plist>",
    ])
    func refusesUnterminatedOrIncompleteDocuments(_ text: String) {
        #expect(decodeError(text)?.code == .invalidXML)
    }

    @Test(arguments: [
        "<plist><array></dict></plist>", "<plist><string>x</key></plist>", "<plist><dict></array></plist>",
        "<plist><true/></array>", "<array><true/></array></plist>", "<plist><true/><false/></plist>",
        "<plist><dict><integer>1</integer></dict></plist>", "<plist><array><key>a</key></array></plist>",
        "<plist><dict><key>a</key><key>b</key></dict></plist>", "<plist><plist><true/></plist></plist>",
        "<plist><unknown/></plist>", "<plist><string><b>x</b></string></plist>", "<plist><true>x</true></plist>",
    ])
    func refusesMismatchedOrMisplacedTags(_ text: String) {
        #expect(decodeError(text)?.code == .invalidXML)
    }

    @Test(arguments: ["AA=A", "A", "AA*A", "AAA=A===", "====", "AAAAA"])
    func refusesBadBase64(_ text: String) {
        #expect(decodeError(plist("<data>\(text)</data>"))?.code == .invalidXML)
    }

    @Test(arguments: [
        "", "2001-01-01", "2001-01-01T00:00:00", "2001-13-01T00:00:00Z", "2001-00-01T00:00:00Z", "2001-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z", "2001-04-31T00:00:00Z", "2001-01-01T24:00:00Z", "2001-01-01T00:60:00Z",
        "2001-01-01T00:00:60Z", "2001-1-01T00:00:00Z", "2001-01-01 00:00:00Z", "2001-01-01T00:00:00+01:00",
        "2001-01-01T00:00:00.Z", "9999999999999-01-01T00:00:00Z", "-2001-01-01T00:00:00ZZ", "x",
    ])
    func refusesInvalidDates(_ text: String) {
        #expect(decodeError(plist("<date>\(text)</date>"))?.code == .invalidXML)
    }

    @Test(arguments: [
        "170141183460469231731687303715884105728", "-170141183460469231731687303715884105729",
        "999999999999999999999999999999999999999999", "0x80000000000000000000000000000000", "", "12a", "0x", "--1", "1.0",
    ])
    func refusesIntegerOverflowAndMalformedIntegers(_ text: String) {
        #expect(decodeError(plist("<integer>\(text)</integer>"))?.code == .invalidXML)
    }

    @Test(arguments: ["&#0;", "&#xD800;", "&#xDFFF;", "&#x110000;", "&#99999999999;", "&#;", "&#x;", "&#12a;", "&#xG;", "&#X43;"])
    func refusesInvalidCharacterReferences(_ reference: String) {
        #expect(decodeError(plist("<string>\(reference)</string>"))?.code == .invalidXML)
    }

    @Test(arguments: ["&nbsp;", "&lol;", "&amp", "& ", "&AMP;"])
    func refusesUnknownOrUnterminatedEntityReferences(_ reference: String) {
        #expect(decodeError(plist("<string>\(reference)</string>"))?.code == .invalidXML)
    }

    @Test func truncationAtEveryLengthNeverTraps() throws {
        let full = Array(
            plist(
                "<dict><key>k&amp;</key><array><integer>1</integer><real>2.5</real><date>2001-01-01T00:00:00Z</date>"
                    + "<data>AAEC</data><string><![CDATA[x]]></string><dict><key>CF$UID</key><integer>3</integer></dict>"
                    + "<true/></array></dict>"
            ).utf8)
        let complete = full.count - 1  // everything but the final newline still holds </plist>
        for length in 0..<full.count {
            let prefix = Array(full.prefix(length))
            if length >= complete {
                #expect(throws: Never.self) { try XMLPlistReader().decode(prefix) }
            } else {
                #expect(throws: PlistError.self, "length \(length)") { try XMLPlistReader().decode(prefix) }
            }
        }
    }

    @Test func seededMutationsOfFixturesNeverTrap() throws {
        var random = SeededGenerator(seed: 0x584D_4C21)
        var decoded = 0
        var refused = 0
        for fixture in FixtureFiles.xmlPlists {
            let original = try FixtureFiles.bytes(fixture)
            guard !original.isEmpty else { continue }
            for _ in 0..<40 {
                var bytes = original
                for _ in 0..<(1 + random.below(4)) {
                    let i = random.below(bytes.count)
                    switch random.below(4) {
                    case 0: bytes[i] = UInt8(truncatingIfNeeded: random.next())
                    case 1: bytes[i] = Array("<>&/;![]\"'=".utf8)[random.below(11)]
                    case 2: bytes.remove(at: i)
                    default: bytes.insert(contentsOf: bytes[i..<min(bytes.count, i + random.below(40))], at: i)
                    }
                    if bytes.isEmpty { bytes = original }
                }
                do {
                    _ = try XMLPlistReader().decode(bytes)
                    decoded += 1
                } catch is PlistError {
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
        #expect(decoded + refused == FixtureFiles.xmlPlists.count * 40)
    }
}
