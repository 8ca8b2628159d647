import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TestSupport
import TypedStream

/// Every typedstream fixture: read whole, its classes kept, written back and read again to the same
/// keyed-archive conversion.
@Suite("Typedstream fixtures")
struct FixtureSweepTests {
    static let files: [String] = RepositoryFixtures.dataFiles(under: "typedstream").filter {
        (try? TypedStreamHeader.isTypedStream(RepositoryFixtures.bytes($0))) == true
    }
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    @Test func thereAreFixtures() {
        #expect(Self.files.count >= 40)
    }

    @Test(arguments: files)
    func readsToTheEndAndConvertsTheSameAfterARoundTrip(_ path: String) throws {
        let bytes = try RepositoryFixtures.bytes(path)
        if path.hasSuffix("broken/ExtraData") {
            let error = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic).decodeAllValues() }
            #expect(error?.code == .truncated)
            #expect(error?.offset == 121)
            #expect(error?.className == "NSMutableString")
            return
        }
        let values = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic).decodeAllValues()
        #expect(!values.isEmpty)
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes)
        let rewritten = try rewrittenKeepingClasses(bytes, registry: Self.generic)
        let again = try TypedStreamConversion.keyedArchive(fromTypedStream: rewritten)
        if again != keyed { Issue.record("\(path): the rewritten stream converts differently") }
        // typedstream -> keyed -> typedstream -> keyed: the same keyed bytes (classes, groups and sharing kept).
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        if try TypedStreamConversion.keyedArchive(fromTypedStream: back) != keyed {
            Issue.record("\(path): the keyed archive converts back to a stream that converts differently")
        }
    }
}
