import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TypedStream

/// One named test for every input the typedstream fuzzer (Fuzz/run.sh typedstream) found.
@Suite("Typedstream fuzz regressions")
struct FuzzRegressionTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    /// The fuzzer's property: what is read writes again, reads again, and converts to the same keyed archive.
    func checkRoundTrip(_ bytes: [UInt8]) throws {
        let values = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic).decodeAllValues()
        let archiver = TypedStreamArchiver()
        for v in values { archiver.encodeObject(v) }
        let rewritten = try archiver.finishEncoding()
        #expect(try TypedStreamUnarchiver(forReadingWith: rewritten, registry: Self.generic).decodeAllValues().count == values.count)
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: Self.generic)
        let again = try TypedStreamConversion.keyedArchive(fromTypedStream: rewritten, registry: Self.generic)
        if keyed != again { Issue.record("the stream and its rewrite convert to different keyed archives") }
    }

    /// crash-3da5a7b7: a Messages body whose NSString class name was garbled, so its attribute names are
    /// unknown-class objects; dictionaries keyed by such objects were written in hash order (every
    /// ArchivedObject described alike), by both archivers.
    @Test func dictionaryKeyedByUnknownObjectsConvertsTheSameAfterARewrite() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZIHoA4QBQISEhBlOhAFpdGFibGVBdHRyaWJ1dGVkU3RyaW5nAISEEk5TQXR0cmlidXRlZFN0cmluZwCEhAhOU09iamVjdACFkoSEhA9OU011dGFibGVTdHJpbmcBhIQITlNTdIVpbmcBlYQBKwPvv7yGhAJpSQEBkoSEhAxOU0RpY3Rpb25hcnkAlYQBaQaShJiYIl9fa0lNRmlsZVRyYW5zZmVyR1VJREF0dHJpYnV0ZS5hbWWGkoSYmClhdF8wX0JFNTg4Nzk5LUM0QkMtNDdERi1BNTZELTdFRTkwQzc0OTExRIaShJiYI19fa0lNSW5saW5lTWVkaWFIZWlnaHRBdHRyaWJ1dGVOYW1lhpKEhIQITlNOdW1iZXIAhIQHTlNWYWx1ZQCVhAEqhIQBcZ+BWAKGkoSYmCZfX2tJTUJhc2VXcml0aW5nRGlyZWN0aW9uQXR0cmlidXRlTmFtZYaShJ+eoZ//hpKEmJgdX19rSU1NZXNzYWdlUGFydEF0dHJpYnV0ZU5hbWWGkoSfnqGfAYaShJiYGl9fa0lNRmlsZW5hbWVBdHRyaWJ1dGVOYW1lhpKEmJgpYnJpbGxpYW50LWtpZHMtdGVzdC1hbnN3ZXJzLTMyLTkzMDQyLmpwZWeGkoSYmCJfX2tJTUlubGluZU1lZGlhV2lkdGhBdHRyaWJ1dGVOYW1lhpKEn56hn4GUAoaGhg==")!))
    }

    /// crash-b35a0ae3: two classes named NSValue with different superclasses (one garbled) in one stream;
    /// the archiver numbered classes by name, so the second was written as a reference to the first.
    @Test func oneClassNameWithTwoSuperclassChainsKeepsBoth() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZIHoA4QBQISEhAdOU0E7cmF5AISECE5TTyNqZWN0AIWEAWkFkoSEhAdOU1ZhbHVlAJSEASqEhA17X05TUmFuZ2U9UVF9mAMEhpKElpeEhAx7Q0dQb2lufD1kZH2Z/wGGkoSWl4SEC3tDR1NpemU9ZGR9mgMEhpKElpeEhCB7Q0dSZWN0PXtDR1BvaW50PWRkfXtDR1NpemU9ZGR9fZsBAgMEhpKElpeEhBN7TlNFZGdlSW5zZXRzPWRkZGR9nAECAwSGhg==")!))
    }

    /// crash-199e91f7: a dictionary whose two keys are unknown-class objects of the same contents (a garbled
    /// NSString class); entries whose keys tie are now ordered by their values, in both archivers.
    @Test func dictionaryWithTwoEqualLookingKeysWritesInOneOrder() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZIHoA4QBQISEhAxOU0RpY3Rpb25hcnkAhIQITlNPYmplY3QAhYQBaQKShISECE5TU3RyaWVnAZSEASsCazGGkoSWlwF2hpKElpcCazGGkoSEhAhOU1N1bWJlcgCEhAdOU1ZhbHVlAJSEASqEhAFxmwGGhg==")!))
    }

    @Test func dictionaryKeyedByUnknownObjectsWritesTheSameBytesWhateverItsHashOrder() throws {
        func key(_ name: String) -> ArchivedObject {
            ArchivedObject(classChain: ["Key", "NSObject"], fields: [("$0", .value(.string(name)))])
        }
        let names = (0..<12).map { "name\($0)" }
        var a: [AnyHashable: Any] = [:]
        for n in names { a[key(n)] = n }
        var b: [AnyHashable: Any] = [:]
        b.reserveCapacity(100)
        for n in names.reversed() { b[key(n)] = n }
        #expect(try TypedStreamArchiver.archivedData(withRootObject: a) as [UInt8] == TypedStreamArchiver.archivedData(withRootObject: b) as [UInt8])
        #expect(try KeyedArchiver.archivedData(withRootObject: a) as [UInt8] == KeyedArchiver.archivedData(withRootObject: b) as [UInt8])
    }
}
