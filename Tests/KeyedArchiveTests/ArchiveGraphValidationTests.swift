import BinaryPlist
import KeyedArchive
import Testing

/// `ArchiveGraph.validate()`: UIDs in range and well-formed class descriptions, on real and hand-made graphs.
@Suite("Archive graph validation")
struct ArchiveGraphValidationTests {
    typealias H = HostileArchive

    /// Broken fixtures whose only defect is a missing `root` key: their structure is sound.
    static let missingRoot = BrokenArchiveTests.missingRoot

    /// The broken fixtures that read as a graph (their top level is sound), with the defect validation finds.
    static let structuralDefects: [String: (KeyedArchiveError.Code, String)] = [
        "keyed/bpylist2/broken/invalid_uid_archive.plist":
            (.invalidReference, "keyed archive: at root: UID 10 is not below the 3 objects"),
        "keyed/bpylist2/broken/missing_uid_archive.plist":
            (.invalidClass, "keyed archive: object 1: a dictionary with neither $class nor $classname"),
        "keyed/bpylist2/broken/no_class_meta_archive.plist":
            (.invalidClass, "keyed archive: object 1: $class refers to object 3, which is a string, not a class description"),
        "keyed/bpylist2/broken/no_class_name_archive.plist":
            (.invalidClass, "keyed archive: object 1: $class refers to object 3, which has no $classname"),
        "keyed/kiler129-NSKeyedUnarchiver/broken/invalidObjectDeclarationContainer.bin.plist":
            (.invalidClass, "keyed archive: object 1: $class refers to object 2, which is a bool, not a class description"),
        "keyed/kiler129-NSKeyedUnarchiver/broken/invalidReference.bin.plist":
            (.invalidReference, "keyed archive: at root: UID 5 is not below the 3 objects"),
        "keyed/kiler129-NSKeyedUnarchiver/broken/objectWithNoClassName.bin.plist":
            (.invalidClass, "keyed archive: object 1: $class refers to object 2, which has no $classname"),
        "keyed/kiler129-NSKeyedUnarchiver/broken/objectWithNonArrayClassChain.bin.plist":
            (.invalidClass, "keyed archive: object 1: $class refers to object 2, whose $classes is a string, not an array"),
        "keyed/kiler129-NSKeyedUnarchiver/broken/objectWithNonStringClassName.bin.plist":
            (.invalidClass, "keyed archive: object 1: $class refers to object 2, whose $classname is an integer, not a string"),
    ]

    @Test(arguments: KeyedFixtures.appleArchives + KeyedFixtures.dataFiles(under: "keyed").filter { $0.contains("/non-apple/") })
    func everyGoodArchiveFixtureValidates(file: String) throws {
        let graph = try ArchiveGraph(bytes: try KeyedFixtures.bytes(file))
        #expect(throws: Never.self) { try graph.validate() }
    }

    @Test(arguments: KeyedFixtures.brokenArchives)
    func everyBrokenFixtureFailsToReadOrToValidateUnlessOnlyTheRootIsMissing(file: String) throws {
        let bytes = try KeyedFixtures.bytes(file)
        let xmlTwin = file.replacingOccurrences(of: "/broken/xml/", with: "/broken/")
            .replacingOccurrences(of: ".xml.plist", with: ".bin.plist")
        let graph: ArchiveGraph
        do {
            graph = try ArchiveGraph(bytes: bytes)
        } catch let error as KeyedArchiveError {
            // A defect of the top level (covered by BrokenArchiveTests): it must not be one of the files below.
            #expect(Self.structuralDefects[xmlTwin] == nil && !Self.missingRoot.contains(file), "\(file): \(error)")
            return
        }
        if Self.missingRoot.contains(file) {
            #expect(throws: Never.self) { try graph.validate() }
            return
        }
        let (code, message) = try #require(Self.structuralDefects[xmlTwin], "\(file) has no expected defect")
        let error = expectKeyedError(code) { try graph.validate() }
        #expect(error?.description == message)
    }

    @Test func aUIDPastTheEndInsideAFieldNamesTheObjectAndItsPath() throws {
        let graph = ArchiveGraph(top: ["root": H.uid(1)], objects: [
            "$null",
            .dictionary(["$class": H.uid(2), "NS.objects": .array([H.uid(0), H.uid(1), H.uid(9)])]),
            H.classEntry("NSArray"),
        ])
        let error = expectKeyedError(.invalidReference) { try graph.validate() }
        #expect(error?.objectIndex == 1)
        #expect(error?.keyPath == "NS.objects.2")
        #expect(error?.description == "keyed archive: object 1 at NS.objects.2: UID 9 is not below the 3 objects")
    }

    @Test func malformedClassReferencesAndDescriptionsAreInvalidClass() throws {
        let cases: [(PlistValue, PlistValue, String)] = [
            ("Foo", H.classEntry("Foo"), "$class is a string, not a UID"),
            (H.uid(0), H.classEntry("Foo"), "$class is $null"),
            (H.uid(7), H.classEntry("Foo"), "UID 7 is not below the 3 objects"),
            (H.uid(2), .dictionary(["$classname": "Foo", "$classes": .array(["Foo", 3])]),
             "$class refers to object 2, whose $classes holds an integer, not only strings"),
        ]
        for (reference, description, reason) in cases {
            let graph = ArchiveGraph(top: ["root": H.uid(1)],
                                     objects: ["$null", .dictionary(["$class": reference]), description])
            let error = #expect(throws: KeyedArchiveError.self) { try graph.validate() }
            #expect(error?.reason == reason)
            #expect(error?.objectIndex == 1)
        }
    }

    @Test func anUnreferencedClassDescriptionIsCheckedToo() throws {
        let graph = ArchiveGraph(top: ["root": H.uid(1)], objects: ["$null", "text", .dictionary(["$classname": 5])])
        let error = expectKeyedError(.invalidClass) { try graph.validate() }
        #expect(error?.description == "keyed archive: object 2: $classname is an integer, not a string")
    }

    @Test func aClassDescriptionWithoutClassesAndSharedClassesAreAccepted() throws {
        let graph = ArchiveGraph(top: ["root": H.uid(1), "other": H.uid(3), "inline": 42], objects: [
            "$null",
            .dictionary(["$class": H.uid(2), "next": H.uid(3)]),
            .dictionary(["$classname": "Node"]),
            .dictionary(["$class": H.uid(2), "next": H.uid(0)]),
        ])
        #expect(throws: Never.self) { try graph.validate() }
    }

    @Test func aFirstObjectOtherThanNullIsAnInvalidHeader() {
        let error = expectKeyedError(.invalidHeader) { try ArchiveGraph(top: [:], objects: []).validate() }
        #expect(error?.reason == #"$objects[0] is not "$null""#)
        expectKeyedError(.invalidHeader) { try ArchiveGraph(top: [:], objects: ["nil"]).validate() }
    }

    @Test func valuesNestedPastTheDepthLimitFailInsteadOfRecursingOn() {
        var value: PlistValue = H.uid(1)
        for _ in 0..<600 { value = .array([value]) }
        let graph = ArchiveGraph(top: ["root": value], objects: ["$null", "x"])
        let error = expectKeyedError(.depthLimitExceeded) { try graph.validate() }
        #expect(error?.keyPath?.hasPrefix("root.0.0.") == true)
    }
}
