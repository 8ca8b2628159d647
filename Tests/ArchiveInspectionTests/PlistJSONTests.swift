import TestSupport
import BinaryPlist
import ArchiveInspection
import Testing

@Suite struct PlistJSONTests {
    private func dict(_ pairs: [(PlistValue, PlistValue)]) -> PlistValue { .dictionary(PlistDictionary(pairs)) }

    @Test(arguments: [
        (PlistValue.string("a\"b"), #""a\"b""#),
        (.integer(PlistInteger(-26)), "-26"),
        (.real(1.5), #"{"real": 1.5}"#),
        (.real(1.0), #"{"real": 1.0}"#),
        (.real(1e20), #"{"real": 1e+20}"#),
        (.real(-0.0), #"{"real": -0.0}"#),
        (.real(.nan), #"{"real": "nan"}"#),
        (.real(.infinity), #"{"real": "inf"}"#),
        (.real(-.infinity), #"{"real": "-inf"}"#),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.date(PlistDate(secondsSinceReferenceDate: 0)), #"{"date": 0.0}"#),
        (.date(PlistDate(secondsSinceReferenceDate: -1.25)), #"{"date": -1.25}"#),
        (.data([0, 1, 2, 0xFF]), #"{"data": "AAEC/w=="}"#),
        (.uid(PlistUID(7)), #"{"uid": 7}"#),
        (.array([1, "x"]), #"[1, "x"]"#),
        (.array([]), "[]"),
        (.set([1]), #"{"set": [1]}"#),
        (.null, "null"),
        (PlistValue(dictionaryLiteral: ("b", 1), ("a", [true])), #"{"dict": {"b": 1, "a": [true]}}"#),
        (.dictionary(PlistDictionary()), #"{"dict": {}}"#),
    ])
    func rendersEachContractFormAndParsesItBack(value: PlistValue, json: String) throws {
        #expect(PlistJSON.render(value) == json)
        #expect(try PlistJSON.parse(json) == value)
    }

    @Test func prettyOutputMatchesPythonIndentOne() {
        let value: PlistValue = ["k": [1, .real(2.5)], "e": [], "d": .dictionary(PlistDictionary())]
        let expected = "{\n \"dict\": {\n  \"k\": [\n   1,\n   {\n    \"real\": 2.5\n   }\n  ],\n  \"e\": [],\n  \"d\": {\n   \"dict\": {}\n  }\n }\n}"
        #expect(PlistJSON.render(value, pretty: true) == expected)
    }

    @Test func dictionaryKeysKeepFileOrder() throws {
        let value = try PlistJSON.parse(#"{"dict": {"z": 1, "a": 2, "m": 3}}"#)
        #expect(value.dictionaryValue?.keys == ["z", "a", "m"])
        #expect(PlistJSON.render(value) == #"{"dict": {"z": 1, "a": 2, "m": 3}}"#)
    }

    @Test func nonStringKeysUsePairForm() throws {
        let value = dict([(.integer(1), "one"), (.data([1]), .null), ("s", .real(.nan))])
        let json = #"{"dict": [[1, "one"], [{"data": "AQ=="}, null], ["s", {"real": "nan"}]]}"#
        #expect(PlistJSON.render(value) == json)
        let parsed = try PlistJSON.parse(json)
        #expect(parsed == value)
        #expect(parsed.dictionaryValue?.keys == [.integer(1), .data([1]), "s"])
    }

    @Test(arguments: [
        ("170141183460469231731687303715884105727", PlistInteger(high: .max, low: .max)),  // 2^127 - 1
        ("-170141183460469231731687303715884105728", PlistInteger(high: .min, low: 0)),  // -2^127
        ("18446744073709551615", PlistInteger(UInt64.max)),
        ("18446744073709551616", PlistInteger(high: 1, low: 0)),  // 2^64
        ("9223372036854775808", PlistInteger(UInt64(1) << 63)),
        ("-9223372036854775808", PlistInteger(Int64.min)),
        ("-18446744073709551616", PlistInteger(high: -1, low: 0)),  // -2^64
        ("-1", PlistInteger(-1)),
        ("0", PlistInteger(0)),
        ("-0", PlistInteger(0)),
    ])
    func integersOfEverySizeStayIntegers(text: String, expected: PlistInteger) throws {
        #expect(try PlistJSON.parse(text) == .integer(expected))
        #expect(try PlistJSON.parse("[\(text)]") == .array([.integer(expected)]))
        if text != "-0" { #expect(PlistJSON.render(.integer(expected)) == text) }
    }

    @Test(arguments: ["170141183460469231731687303715884105728", "-170141183460469231731687303715884105729",
                      "340282366920938463463374607431768211456", "99999999999999999999999999999999999999999"])
    func integersPastTheInt128RangeAreRejected(text: String) {
        let error = #expect(throws: PlistError.self) { try PlistJSON.parse(text) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.reason.contains("outside the 128-bit range") == true)
    }

    @Test func realWrapperAcceptsIntegersNumbersAndSpecialNames() throws {
        #expect(try PlistJSON.parse(#"{"real": 1}"#) == .real(1.0))
        #expect(try PlistJSON.parse(#"{"real": -2.5e-3}"#) == .real(-0.0025))
        #expect(try PlistJSON.parse(#"{"real": 5e-324}"#) == .real(.leastNonzeroMagnitude))
        #expect(try PlistJSON.parse(#"{"real": 1.7976931348623157e308}"#) == .real(.greatestFiniteMagnitude))
        #expect(try PlistJSON.parse(#"{"real": -0.0}"#).realValue?.sign == .minus)
        #expect(try PlistJSON.parse(#"{"real": "nan"}"#).realValue?.isNaN == true)
        #expect(try PlistJSON.parse(#"{"real": "-inf"}"#) == .real(-.infinity))
        #expect(try PlistJSON.parse(#"{"date": "inf"}"#) == .date(PlistDate(secondsSinceReferenceDate: .infinity)))
    }

    @Test func realsRoundTripBitForBit() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<2000 {
            let r = Double(bitPattern: generator.next())
            let value = PlistValue.real(r)
            let back = try PlistJSON.parse(PlistJSON.render(value))
            // plist-JSON writes every NaN as "nan": the payload is not kept.
            if r.isNaN { #expect(back.realValue?.isNaN == true) } else { #expect(back == value, "\(r)") }
        }
        for r in [0.1, 1e16, 1e-5, 123456789012345680, Double(Float.greatestFiniteMagnitude), .leastNonzeroMagnitude] {
            #expect(try PlistJSON.parse(PlistJSON.render(.real(r))) == .real(r))
        }
    }

    @Test func stringsHandleEveryEscapeAndSurrogatePairs() throws {
        let json = #""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9 \ud83d\ude00 raw😀é""#
        #expect(try PlistJSON.parse(json) == .string("q\" b\\ s/ \u{8}\u{c}\n\r\t Aé 😀 raw😀é"))
        let controls = PlistValue.string("\u{0}\u{1}\u{1f}\u{7f}\u{2028}")
        #expect(PlistJSON.render(controls) == #""\u0000\u0001\u001f"# + "\u{7f}\u{2028}\"")
        #expect(try PlistJSON.parse(PlistJSON.render(controls)) == controls)
    }

    @Test func everyValueKindRoundTripsCompactAndPretty() throws {
        let value: PlistValue = [
            "s": "text", "i": .integer(PlistInteger(UInt64.max)), "r": .real(3.25), "b": false,
            "d": .date(PlistDate(secondsSinceReferenceDate: 123456.789)), "x": .data(Array(0...255)),
            "u": .uid(PlistUID(UInt64.max)), "a": [.null, .set(["a", 2])],
            "n": dict([(.real(1), "real key"), (.bool(true), "bool key")]),
        ]
        #expect(try PlistJSON.parse(PlistJSON.render(value)) == value)
        #expect(try PlistJSON.parse(PlistJSON.render(value, pretty: true)) == value)
    }

    @Test(arguments: [
        // (name, text, byte offset of the error)
        ("empty input", "", 0),
        ("only whitespace", "  \n", 3),
        ("trailing data", "1 2", 2),
        ("trailing comma in array", "[1,]", 3),
        ("missing comma", "[1 2]", 3),
        ("unclosed array", "[1", 2),
        ("bare real", "1.5", 0),
        ("bare exponent", "1e3", 0),
        ("leading zero", "01", 0),
        ("lone minus", "-", 1),
        ("dot without digits", "[1.]", 3),
        ("exponent without digits", "[1e+]", 4),
        ("plus sign", "+1", 0),
        ("bad literal", "nul", 0),
        ("True capitalized", "True", 0),
        ("single quotes", "'a'", 0),
        ("unterminated string", "\"abc", 0),
        ("raw newline in string", "\"a\nb\"", 2),
        ("bad escape", #""\x""#, 1),
        ("short unicode escape", #""\u12""#, 1),
        ("non-hex unicode escape", #""\u12g4""#, 1),
        ("lone high surrogate", #""\ud800""#, 1),
        ("high surrogate then letter", #""\ud800x""#, 1),
        ("lone low surrogate", #""\udc00""#, 1),
        ("plain object", #"{"a": 1}"#, 1),
        ("empty object", "{}", 0),
        ("two keys", #"{"real": 1, "date": 2}"#, 10),
        ("real not a number", #"{"real": "one"}"#, 9),
        ("real out of range", #"{"real": 1e400}"#, 9),
        ("uid negative", #"{"uid": -1}"#, 8),
        ("uid too large", #"{"uid": 18446744073709551616}"#, 8),
        ("uid real", #"{"uid": 1.0}"#, 8),
        ("data not base64", #"{"data": "a*=="}"#, 9),
        ("data not a string", #"{"data": 1}"#, 9),
        ("dict of number", #"{"dict": 1}"#, 9),
        ("dict non-string key in object form", #"{"dict": {1: 2}}"#, 10),
        ("dict duplicate key", #"{"dict": {"a": 1, "a": 2}}"#, 18),
        ("dict pair of three", #"{"dict": [[1, 2, 3]]}"#, 10),
        ("dict pair of one", #"{"dict": [[1]]}"#, 10),
        ("dict collection key", #"{"dict": [[[1], 2]]}"#, 10),
        ("set of object", #"{"set": {}}"#, 8),
        ("missing colon", #"{"real" 1}"#, 8),
    ])
    func malformedJSONIsRejectedWithItsOffset(name: String, text: String, offset: Int) {
        let error = #expect(throws: PlistError.self, "\(name)") { try PlistJSON.parse(text) }
        #expect(error?.code == .invalidJSON, "\(name)")
        #expect(error?.format == "plist-json", "\(name)")
        #expect(error?.byteOffset == offset, "\(name): \(String(describing: error))")
    }

    @Test func invalidUTF8IsRejected() {
        for bytes: [UInt8] in [[0x22, 0xC3, 0x28, 0x22], [0x22, 0xFF, 0x22]] {
            let error = #expect(throws: PlistError.self) { try PlistJSON.parse(bytes) }
            #expect(error?.code == .invalidJSON)
            #expect(error?.reason == "string is not valid UTF-8")
        }
    }

    @Test func depthLimitCountsPlistCollectionsNotWrappers() throws {
        var limits = PlistLimits()
        limits.maxDepth = 3
        #expect(try PlistJSON.parse(#"[{"dict": {"a": {"set": [1]}}}]"#, limits: limits) != .null)
        #expect(try PlistJSON.parse(#"{"dict": [[1, [[2]]]]}"#, limits: limits) != .null)
        let error = #expect(throws: PlistError.self) { try PlistJSON.parse("[[[[1]]]]", limits: limits) }
        #expect(error?.code == .depthLimitExceeded)
        #expect(error?.byteOffset == 3)
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let deepError = #expect(throws: PlistError.self) { try PlistJSON.parse(deep) }
        #expect(deepError?.code == .depthLimitExceeded)
    }

    @Test func elementLimitStopsHugeInputs() {
        var limits = PlistLimits()
        limits.maxElements = 3
        let error = #expect(throws: PlistError.self) { try PlistJSON.parse("[1, 2, 3]", limits: limits) }
        #expect(error?.code == .elementLimitExceeded)
    }
}
