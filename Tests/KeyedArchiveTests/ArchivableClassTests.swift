import KeyedArchive
import Testing

/// A plain Codable superclass: archivable by the Codable bridge only.
class CodableBase: Codable {
    var name = ""
}

final class CodableChild: CodableBase, ArchiveCodable {}

final class NSCodingChild: CodableBase, KeyedArchivable {
    override init() { super.init() }
    required init(from decoder: any Decoder) throws { try super.init(from: decoder) }
    init(coder: KeyedUnarchiver) throws { super.init() }
    func encode(with coder: KeyedArchiver) {}
}

struct CodablePoint: ArchiveCodable {
    var x = 0
}

@Suite("ArchivableClass")
struct ArchivableClassTests {
    @Test func bothCodingProtocolsShareTheMetadataProtocol() {
        let types: [any ArchivableClass.Type] = [CodableChild.self, NSCodingChild.self, CodablePoint.self]
        #expect(types.map { $0.archivedClassName } == ["CodableChild", "NSCodingChild", "CodablePoint"])
        #expect(CodablePoint.archivedSuperclassNames == ["NSObject"])
    }

    @Test func aCodableTypeNamesItsEncodableSuperclassesAnNSCodingTypeItsArchivableOnes() {
        #expect(CodableChild.archivedSuperclassNames == ["CodableBase", "NSObject"])
        #expect(NSCodingChild.archivedSuperclassNames == ["NSObject"])
    }

    @Test func identityIsTheInstanceForAClassAndNoneForAValue() {
        let child = CodableChild()
        #expect(child.archiveIdentity === child)
        #expect(NSCodingChild().archiveIdentity != nil)
        #expect(CodablePoint().archiveIdentity == nil)
    }
}
