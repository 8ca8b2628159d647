import Testing
@testable import BinaryPlist
import ArchiveInspection

/// One test per input that the libFuzzer harnesses in `Fuzz/` flagged (see `Fuzz/README.md`), each feeding the
/// exact bytes that were found, named for the behaviour it pins down.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// Bytes from a hex string (whitespace ignored).
    static func bytes(hex: String) -> [UInt8] {
        let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }.map { UInt8($0.value) }
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { i in
            UInt8(String(decoding: digits[i...(i + 1)], as: UTF8.self), radix: 16)
        }
    }

    /// Binary target, found after 409 executions: `{"a": +inf, "b": NaN with sign and payload (0xFFF0000020000000)}`.
    /// plist-JSON writes every NaN as `"nan"`, so the payload does not survive a plist-JSON round trip, while the
    /// binary writer keeps reals by bit pattern. The harness expected too much; the library is right.
    static let nanWithPayload = bytes(hex: """
        62706c6973743030 d201020304 5161 5162 237ff0000000000000 23fff0000020000000
        08 0d 0f 11 1a 000000000000 0101 0000000000000005 0000000000000000 0000000000000023
        """)

    @Test func nanPayloadSurvivesBinaryButPlistJSONKeepsTheDefaultNaN() throws {
        let value = try PropertyList.decode(Self.nanWithPayload)
        let payload = Double(bitPattern: 0xFFF0_0000_2000_0000)
        #expect(value == ["a": .real(.infinity), "b": .real(payload)])
        #expect(try PropertyList.decode(try PropertyList.encode(value, format: .binary)) == value)
        let fromJSON = try PlistJSON.parse(PlistJSON.render(value))
        #expect(fromJSON["b"]?.realValue?.bitPattern == Double.nan.bitPattern)
        #expect(fromJSON["a"] == .real(.infinity))
    }

    /// 512 nested one-element arrays (the default depth limit), the innermost holding `UID(1)`: 513 objects,
    /// 2-byte offsets and references. Object `i < 512` is `A1 <i+1 as 2 bytes>`, object 512 is `80 01`.
    static let uidAtDepthLimit: [UInt8] = {
        var builder = BPlistBuilder()
        builder.offsetWidth = 2
        builder.referenceWidth = 2
        for i in 0..<512 { _ = builder.add([0xA1] + bigEndian(UInt64(i + 1), width: 2)) }
        _ = builder.add([0x80, 0x01])
        return builder.build()
    }()

    /// Found by the binary harness's XML round trip (input made by hand from the invariant): the XML writer
    /// writes a UID as `<dict><key>CF$UID</key>...`, and the XML reader counted that `<dict>` as one more level of
    /// nesting, so it refused (`depthLimitExceeded`) what the binary reader and the XML writer accept.
    @Test func uidInsideTheDeepestArrayRoundTripsThroughXML() throws {
        let value = try PropertyList.decode(Self.uidAtDepthLimit)
        var innermost = value
        for _ in 0..<512 { innermost = innermost.arrayValue?.first ?? .null }
        #expect(innermost == .uid(PlistUID(1)))
        let xml = try PropertyList.encode(value, format: .xml)
        #expect(try PropertyList.decode(xml) == value)
    }

    /// `<array>` nested `levels` deep around `inner`.
    static func nestedXML(_ levels: Int, around inner: String) -> [UInt8] {
        Array(("<plist>" + String(repeating: "<array>", count: levels) + inner
            + String(repeating: "</array>", count: levels) + "</plist>").utf8)
    }

    @Test func dictionaryPastTheDepthLimitIsStillRefusedWhenItIsNotAUID() {
        for inner in [
            "<dict><key>a</key><integer>1</integer></dict>",
            "<dict/>",
            "<dict><key>CF$UID</key><integer>-1</integer></dict>",
            "<dict><key>CF$UID</key><string>1</string></dict>",
            "<array/>",
            "<dict><key>CF$UID</key><dict/></dict>",
        ] {
            let error = #expect(throws: PlistError.self, "\(inner)") {
                try XMLPlistReader().decode(Self.nestedXML(512, around: inner))
            }
            #expect(error?.code == .depthLimitExceeded, "\(inner)")
        }
    }

    @Test func uidPastTheDepthLimitIsAcceptedAsTheScalarItIs() throws {
        let value = try XMLPlistReader().decode(Self.nestedXML(512, around: "<dict><key>CF$UID</key><integer>7</integer></dict>"))
        var innermost = value
        for _ in 0..<512 { innermost = innermost.arrayValue?.first ?? .null }
        #expect(innermost == .uid(PlistUID(7)))
    }
}
