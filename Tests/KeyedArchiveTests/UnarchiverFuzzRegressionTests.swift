import Testing
@testable import BinaryPlist
@testable import KeyedArchive

/// Findings of the `unarchiver` fuzz target (Fuzz/README.md), each kept as a test.
@Suite struct UnarchiverFuzzRegressionTests {
    typealias H = HostileArchive

    /// The plist value of a field, `nil` when the field is missing or an object.
    func plist(_ object: ArchivedObject, _ key: String) -> PlistValue? {
        guard case .value(let value) = object[key] else { return nil }
        return value
    }

    /// An unknown-class object whose plist field holds a UID that is not a reference (in an array that also holds
    /// a number): archiving the decoded object again sized a table by the UID's value (2^37 entries here, an
    /// out-of-memory abort under the fuzzer). Such UIDs are now written by value.
    @Test func aUIDValueInAPlistFieldIsArchivedAgainByValue() throws {
        let huge: UInt64 = 0x2E_B032_0058
        let objects: [PlistValue] = [
            "$null", .dictionary(["$class": H.uid(2), "mixed": .array([H.uid(huge), 1])]), H.classEntry("Mystery"),
        ]
        let registry = ClassRegistry.standard.allowingUnknownClasses()
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: try H.bytes(objects), registry: registry, requiresSecureCoding: false))
        #expect(plist(decoded, "mixed") == .array([H.uid(huge), 1]))

        let again = try KeyedArchiver.archivedData(withRootObject: decoded)
        #expect(again.count < 1_000)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: again, registry: registry, requiresSecureCoding: false))
        #expect(back.classChain == ["Mystery", "NSObject"])
        #expect(plist(back, "mixed") == .array([H.uid(huge), 1]))
    }

    /// A UID above `Int.max` is refused where it is read, with its object and byte; one set in code on an
    /// `ArchivedObject` is written (it was cut to a negative table index, a trap) and refused when read back.
    /// (The field was a plist set, which the archiver wrote as an array until the `diff` fuzz target found it;
    /// it is an array here, and a set now comes back as the set it was.)
    @Test func aUIDAboveIntMaxIsWrittenButNotRead() throws {
        let inSet = ArchivedObject(classChain: ["Mystery"])
        inSet.fields = [("set", .value(.set([H.uid(.max)])))]
        let setBack = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: try KeyedArchiver.archivedData(withRootObject: inSet),
            registry: ClassRegistry.standard.allowingUnknownClasses(), requiresSecureCoding: false))
        #expect(plist(setBack, "set") == .set([H.uid(.max)]))
        let object = ArchivedObject(classChain: ["Mystery"])
        object.fields = [("set", .value(.array([H.uid(.max)])))]
        let bytes = try KeyedArchiver.archivedData(withRootObject: object)
        let registry = ClassRegistry.standard.allowingUnknownClasses()
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: registry,
                                                 requiresSecureCoding: false)
        }
        #expect(error?.code == .invalidPlist)
        #expect(error?.underlying?.code == .unsupportedValue)
        #expect(error?.underlying?.reason == "UID 18446744073709551615 is above 9223372036854775807")
        let document = try BinaryPlistDocument(bytes)
        let uidObject = try #require(error?.underlying?.objectIndex)
        #expect(try document.decodeObject(uidObject) == H.uid(.max))
    }
}
