import BinaryPlist
import Testing

/// Our binary codec against the toolchain's `PropertyListSerialization`, both ways (the XML codec's
/// counterpart is `XMLPlistFoundationTests`).
@Suite("Differential: PropertyListSerialization")
struct DifferentialTests {
    @Test func foundationReadsWhatWeWrite() throws {
        try FoundationBridge.expectFoundationReadsWhatWeWrite(.binary, seed: 2024)
    }

    @Test func weReadWhatFoundationWrites() throws {
        try FoundationBridge.expectWeReadWhatFoundationWrites(.binary, seed: 99)
    }
}
