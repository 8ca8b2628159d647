import KeyedArchive
import Testing

@Suite struct ScratchTests {
    @Test(arguments: KeyedFixtures.appleArchives) func decodes(_ path: String) throws {
        let bytes = try KeyedFixtures.bytes(path)
        _ = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()) { u in
            try u.allKeys().map { try u.decodeIfPresent(Any.self, forKey: $0) }
        }
    }
}
