import Foundation
import Testing
@testable import BinaryPlist

/// Our codec against the toolchain's `PropertyListSerialization`, both ways.
@Suite("Differential: PropertyListSerialization")
struct DifferentialTests {
    @Test func foundationReadsWhatWeWrite() throws {
        var random = RandomPlist(seed: 2024, profile: .foundation)
        for i in 0..<300 {
            let value = random.value()
            let bytes = try PropertyList.encode(value, format: .binary)
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            #expect(try FoundationBridge.plistValue(object) == value, "value \(i): \(value)")
        }
    }

    @Test func weReadWhatFoundationWrites() throws {
        var random = RandomPlist(seed: 99, profile: .foundation)
        for i in 0..<300 {
            let value = random.value()
            let object = try FoundationBridge.object(value)
            let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
            let back = try PropertyList.decode([UInt8](data))
            #expect(back == value, "value \(i): wrote \(value), read \(back)")
        }
    }
}
