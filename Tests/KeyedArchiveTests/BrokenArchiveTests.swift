import KeyedArchive
import ArchiveInspection
import Testing

/// The deliberately malformed archives under Fixtures/keyed/**/broken fail with typed errors.
@Suite("Broken keyed archive fixtures")
struct BrokenArchiveTests {
    /// Archives whose only defect is a missing `root` key: the inspector prints their `$top` instead.
    static let missingRoot: Set<String> = [
        "keyed/bpylist2/broken/no_root_archive.plist",
        "keyed/kiler129-NSKeyedUnarchiver/broken/missingRoot.bin.plist",
        "keyed/kiler129-NSKeyedUnarchiver/broken/xml/missingRoot.xml.plist",
    ]

    @Test func thereAreBrokenFixtures() {
        #expect(KeyedFixtures.brokenArchives.count >= 25)
    }

    @Test(arguments: KeyedFixtures.brokenArchives)
    func typedDecodingFailsWithAKeyedArchiveError(_ path: String) throws {
        let bytes = try KeyedFixtures.bytes(path)
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: .standard.allowingUnknownClasses())
        }
    }

    @Test(arguments: KeyedFixtures.brokenArchives)
    func inspectorRenderingFailsUnlessOnlyTheRootIsMissing(_ path: String) throws {
        let bytes = try KeyedFixtures.bytes(path)
        if Self.missingRoot.contains(path) {
            #expect(try ArchiveJSON.render(bytes).hasPrefix(#"{"$top": {"#))
        } else {
            #expect(throws: KeyedArchiveError.self) { try ArchiveJSON.render(bytes) }
        }
    }

    @Test func specificBrokenFixturesReportTheirDefect() throws {
        let cases: [(String, KeyedArchiveError.Code)] = [
            ("keyed/bpylist2/broken/invalid_version_archive.plist", .invalidHeader),
            ("keyed/bpylist2/broken/no_objects_archive.plist", .invalidHeader),
            ("keyed/bpylist2/broken/no_top_archive.plist", .invalidHeader),
            ("keyed/bpylist2/broken/invalid_uid_archive.plist", .invalidReference),
            ("keyed/bpylist2/broken/missing_uid_archive.plist", .invalidClass),
            ("keyed/bpylist2/broken/no_class_name_archive.plist", .invalidClass),
            ("keyed/bpylist2/broken/no_root_archive.plist", .valueNotFound),
            ("keyed/danielpaulus-nskeyedarchiver/broken/xml/broken_plist.xml", .invalidPlist),
            ("keyed/danielpaulus-nskeyedarchiver/broken/xml/wrong_archiver.xml", .foreignArchiver),
            ("keyed/kiler129-NSKeyedUnarchiver/broken/objectWithNonArrayClassChain.bin.plist", .invalidClass),
            ("keyed/kiler129-NSKeyedUnarchiver/broken/objectWithNonStringClassName.bin.plist", .invalidClass),
            ("keyed/kiler129-NSKeyedUnarchiver/broken/invalidReference.bin.plist", .invalidReference),
        ]
        for (path, code) in cases {
            let bytes = try KeyedFixtures.bytes(path)
            expectKeyedError(code) {
                try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: .standard.allowingUnknownClasses())
            }
        }
    }
}
