import BinaryPlist
import Foundation
import Testing

private func xml(_ value: PlistValue, limits: PlistLimits = .default) throws -> String {
    String(decoding: try XMLPlistWriter(limits: limits).encode(value), as: UTF8.self)
}

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">

    """

/// The error encoding `value` throws.
private func encodeError(_ value: PlistValue, limits: PlistLimits = .default,
                         sourceLocation: SourceLocation = #_sourceLocation) -> PlistError? {
    #expect(throws: PlistError.self, sourceLocation: sourceLocation) { try XMLPlistWriter(limits: limits).encode(value) }
}

/// Foundation's XML for the same value.
private func foundationXML(_ value: PlistValue) throws -> String {
    let data = try PropertyListSerialization.data(
        fromPropertyList: try FoundationBridge.object(value), format: .xml, options: 0)
    return String(decoding: data, as: UTF8.self)
}

@Suite("XML plist writer: layout")
struct XMLPlistWriterLayoutTests {
    @Test func writesApplesHeaderIndentationAndClosingTag() throws {
        let value: PlistValue = [
            "name": "Ada", "tags": ["a", [] as PlistValue], "empty": .dictionary([:]), "on": true, "off": false,
            "n": 42, "r": 1.5, "when": .date(PlistDate(secondsSinceReferenceDate: 0)), "raw": .data([1, 2, 3]),
            "ref": .uid(PlistUID(9)),
        ]
        let expected =
            header + """
            <dict>
            \t<key>empty</key>
            \t<dict/>
            \t<key>n</key>
            \t<integer>42</integer>
            \t<key>name</key>
            \t<string>Ada</string>
            \t<key>off</key>
            \t<false/>
            \t<key>on</key>
            \t<true/>
            \t<key>r</key>
            \t<real>1.5</real>
            \t<key>raw</key>
            \t<data>
            \tAQID
            \t</data>
            \t<key>ref</key>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>9</integer>
            \t</dict>
            \t<key>tags</key>
            \t<array>
            \t\t<string>a</string>
            \t\t<array/>
            \t</array>
            \t<key>when</key>
            \t<date>2001-01-01T00:00:00Z</date>
            </dict>
            </plist>

            """
        #expect(try xml(value) == expected)
    }

    @Test func topLevelScalarAndEmptyData() throws {
        #expect(try xml("x") == header + "<string>x</string>\n</plist>\n")
        #expect(try xml(.data([])) == header + "<data>\n</data>\n</plist>\n")
        #expect(try xml([.data([])]) == header + "<array>\n\t<data>\n\t</data>\n</array>\n</plist>\n")
    }

    @Test func escapesOnlyAmpersandAndAngleBrackets() throws {
        #expect(try xml("a&b<c>d\"e'f\r\n\u{1}") == header + "<string>a&amp;b&lt;c&gt;d\"e'f\r\n\u{1}</string>\n</plist>\n")
        #expect(try xml(["<k&>": true]).contains("<key>&lt;k&amp;&gt;</key>"))
    }

    @Test(arguments: 0...10)
    func base64LinesShrinkWithIndentation(_ indentation: Int) throws {
        var value: PlistValue = .data((0..<200).map { UInt8($0) })
        for _ in 0..<indentation { value = [value] }
        let lines = try xml(value).split(separator: "\n", omittingEmptySubsequences: false)
        let tabs = min(indentation, 8)
        let dataLines = lines.filter { !$0.contains("<") && !$0.isEmpty }
        let width = 76 - 8 * tabs
        #expect(dataLines.count == (268 + width - 1) / width)  // 200 bytes are 268 base64 characters
        for (i, line) in dataLines.enumerated() {
            #expect(line.prefix(tabs).allSatisfy { $0 == "\t" })
            #expect(line.dropFirst(tabs).first != "\t")
            #expect(line.count - tabs == (i == dataLines.count - 1 ? 268 - width * i : width))
        }
        let joined = dataLines.map { $0.dropFirst(tabs) }.joined()
        #expect(joined == Base64.encode((0..<200).map { UInt8($0) }))
    }

    @Test func realsUseTheShortestRoundTrippingText() throws {
        let cases: [(Double, String)] = [
            (3.14, "3.14"), (2, "2"), (-0.0, "-0"), (0, "0"), (1e20, "1e+20"), (0.1, "0.1"), (-2.5e-8, "-2.5e-08"),
            (.nan, "nan"), (.infinity, "+infinity"), (-.infinity, "-infinity"), (123_456_789, "123456789"),
            (.leastNonzeroMagnitude, "5e-324"), (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        ]
        for (real, text) in cases {
            #expect(try xml(.real(real)) == header + "<real>\(text)</real>\n</plist>\n", "\(real)")
        }
    }

    @Test func integersCoverAll128Bits() throws {
        let cases: [(PlistInteger, String)] = [
            (0, "0"), (-1, "-1"), (PlistInteger(UInt64.max), "18446744073709551615"),
            (PlistInteger(Int64.min), "-9223372036854775808"),
            (PlistInteger(high: .max, low: .max), "170141183460469231731687303715884105727"),
            (PlistInteger(high: .min, low: 0), "-170141183460469231731687303715884105728"),
        ]
        for (n, text) in cases {
            #expect(try xml(.integer(n)) == header + "<integer>\(text)</integer>\n</plist>\n")
        }
    }

    @Test func datesAreUTCWholeSecondsRoundedDown() throws {
        let cases: [(Double, String)] = [
            (0, "2001-01-01T00:00:00Z"), (0.999, "2001-01-01T00:00:00Z"), (-0.5, "2000-12-31T23:59:59Z"),
            (-978_307_200, "1970-01-01T00:00:00Z"), (730_902_615.5, "2024-02-29T12:30:15Z"),
            (-63_113_904_000, "0001-01-01T00:00:00Z"), (-63_113_904_001, "0000-12-31T23:59:59Z"),
            (-63_113_904_000 - 367 * 86_400, "-0001-12-31T00:00:00Z"), (252_423_993_600, "10000-01-01T00:00:00Z"),
        ]
        for (seconds, text) in cases {
            #expect(try xml(.date(PlistDate(secondsSinceReferenceDate: seconds))) == header + "<date>\(text)</date>\n</plist>\n")
        }
    }

    @Test func dictionaryKeysAreSortedByUTF16CodeUnits() throws {
        let value: PlistValue = ["ｚ": 1, "😀": 2, "z": 3, "Z": 4, "é": 5, "": 6]
        let keys = try xml(value).split(separator: "\n").filter { $0.contains("<key>") }
        #expect(keys == ["\t<key></key>", "\t<key>Z</key>", "\t<key>z</key>", "\t<key>é</key>", "\t<key>😀</key>", "\t<key>ｚ</key>"])
    }

    @Test func sameValueAlwaysWritesTheSameBytes() throws {
        var random = RandomPlist(seed: 7, profile: .xml)
        for _ in 0..<50 {
            let value = random.value()
            let shuffled = Self.reversingDictionaries(value)
            #expect(try XMLPlistWriter().encode(value) == XMLPlistWriter().encode(shuffled))
        }
    }

    static func reversingDictionaries(_ value: PlistValue) -> PlistValue {
        switch value {
        case .array(let items): .array(items.map(reversingDictionaries))
        case .dictionary(let d):
            .dictionary(PlistDictionary(d.entries.reversed().map { ($0.key, reversingDictionaries($0.value)) }))
        default: value
        }
    }
}

@Suite("XML plist writer: refusals")
struct XMLPlistWriterRefusalTests {
    @Test func nullIsUnsupported() {
        #expect(encodeError(["a": [.null]])?.code == .unsupportedValue)
        #expect(encodeError(["a": [.null]])?.reason.contains(".a[0]") == true)
    }

    @Test func setsAreUnsupported() {
        #expect(encodeError(.set([1, 2]))?.code == .unsupportedValue)
    }

    @Test func nonStringKeysAreInvalid() {
        #expect(encodeError(.dictionary(PlistDictionary([(.integer(1), "x")])))?.code == .invalidKey)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -5e18])
    func datesWithoutISO8601TextAreUnsupported(_ seconds: Double) {
        #expect(encodeError(.date(PlistDate(secondsSinceReferenceDate: seconds)))?.code == .unsupportedValue)
    }

    @Test func depthLimitAppliesWhenWriting() throws {
        var limits = PlistLimits.default
        limits.maxDepth = 3
        var value: PlistValue = [1]
        for _ in 0..<2 { value = [value] }
        #expect(throws: Never.self) { try XMLPlistWriter(limits: limits).encode(value) }
        #expect(encodeError([value], limits: limits)?.code == .depthLimitExceeded)
        var deep: PlistValue = []
        for _ in 0..<600 { deep = [deep] }
        #expect(encodeError(deep)?.code == .depthLimitExceeded)
    }
}

@Suite("XML plist writer: round trips")
struct XMLPlistRoundTripTests {
    @Test func generatedValuesReadBackEqual() throws {
        var random = RandomPlist(seed: 2024, profile: .xml)
        for n in 0..<600 {
            let value = random.value()
            let bytes = try XMLPlistWriter().encode(value)
            #expect(try XMLPlistReader().decode(bytes) == value, "value \(n)")
            #expect(try PropertyList.decode(bytes) == value)
        }
    }

    @Test func extremeScalarsReadBackEqual() throws {
        let values: [PlistValue] = [
            .integer(PlistInteger(high: .min, low: 0)), .integer(PlistInteger(high: .max, low: .max)),
            .real(.leastNonzeroMagnitude), .real(-.greatestFiniteMagnitude), .real(-0.0), .real(.nan),
            .date(PlistDate(secondsSinceReferenceDate: ISO8601Bound.max)), .date(PlistDate(secondsSinceReferenceDate: -ISO8601Bound.max)),
            .date(PlistDate(secondsSinceReferenceDate: -63_113_904_000 - 400 * 365 * 86_400)),
            .uid(PlistUID(.max)), .uid(PlistUID(0)), "", " \t\r\n ", "\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}\u{7}\u{8}\u{B}\u{C}",
            .data((0...255).map { UInt8($0) }),
        ]
        for value in values {
            #expect(try XMLPlistReader().decode(XMLPlistWriter().encode([value])) == [value])
        }
    }

    /// 2^62 seconds: the farthest date that has text.
    enum ISO8601Bound {
        static let max: Double = 4_611_686_018_427_387_904
    }
}

@Suite("XML plist writer: against Foundation")
struct XMLPlistFoundationTests {
    @Test func handPickedValuesMatchFoundationByteForByte() throws {
        let values: [PlistValue] = [
            "plain", "a&b<c>d", "", true, false, 0, -1, 42, .integer(PlistInteger(UInt64.max)),
            .integer(PlistInteger(Int64.min)), 1.5, -2.25, 1e20, .real(.nan), .real(.infinity), .real(-.infinity),
            .date(PlistDate(secondsSinceReferenceDate: 12)), .date(PlistDate(secondsSinceReferenceDate: -1_000_000_000)),
            .data([]), .data([7]), .data(Array(repeating: 7, count: 100)), [], [:], [[[.data(Array(repeating: 1, count: 60))]]],
            ["z": 1, "é": 2, "😀": 3, "ｚ": 4, "Z": 5],
            ["b": true, "nested": ["k": ["x", 1, 2.5]], "empty": [], "d": .data(Array(repeating: 9, count: 57))],
        ]
        for value in values {
            #expect(try xml(value) == foundationXML(value))
        }
    }

    @Test func generatedValuesMatchFoundationByteForByte() throws {
        var random = RandomPlist(seed: 99, profile: .foundationXMLBytes)
        for _ in 0..<200 {
            let value = random.value()
            let ours = try xml(value)
            let theirs = try foundationXML(value)
            #expect(ours == theirs, "\(ours.utf8.count) vs \(theirs.utf8.count) bytes:\n\(ours)\n\(theirs)")
        }
    }

    /// The one documented difference: CoreFoundation writes 17 significant digits, we write the shortest
    /// text; each reader reads both to the same Double.
    @Test func realTextDiffersFromCoreFoundationOnlyInDigits() throws {
        let ours = try xml(.real(0.1))
        let theirs = try foundationXML(.real(0.1))
        #expect(ours.contains("<real>0.1</real>"))
        #expect(theirs.contains("<real>0.10000000000000001</real>"))
        #expect(try XMLPlistReader().decode(Array(theirs.utf8)) == .real(0.1))
        let read = try PropertyListSerialization.propertyList(from: Data(ours.utf8), options: [], format: nil)
        #expect(try FoundationBridge.plistValue(read) == .real(0.1))
    }

    /// Known reader differences of swift-corelibs-foundation, not followed here: it drops a U+FEFF that
    /// starts a string, and writes -0.0 as "0.0". We keep both.
    @Test func leadingByteOrderMarkCharacterAndNegativeZeroAreKept() throws {
        let bytes = try XMLPlistWriter().encode(["\u{FEFF}key": .real(-0.0)])
        #expect(try XMLPlistReader().decode(bytes) == ["\u{FEFF}key": .real(-0.0)])
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        #expect(try FoundationBridge.plistValue(object) == ["key": .real(-0.0)])
    }

    @Test func foundationReadsWhatWeWrite() throws {
        try FoundationBridge.expectFoundationReadsWhatWeWrite(.xml, seed: 31337)
    }

    @Test func weReadWhatFoundationWrites() throws {
        try FoundationBridge.expectWeReadWhatFoundationWrites(.xml, seed: 4242)
    }

    @Test func foundationReadsOurUIDsAsKeyedArchiverUIDs() throws {
        let bytes = try XMLPlistWriter().encode(["root": .uid(PlistUID(3))])
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        let root = try #require((object as? [String: Any])?["root"])
        #expect(String(describing: type(of: root)).contains("KeyedArchiverUID"))
    }
}
