import ArchiveModel
import Testing

/// The one list of Foundation classes (`StandardClass`) made of the classes' own files: every case described
/// by exactly one file, every name read back as its class, and the `NSArchiver` versions as Apple writes them.
@Suite("Foundation class list")
struct FoundationClassListTests {
    @Test func everyCaseIsDescribedOnceByItsFile() {
        for standard in StandardClass.allCases {
            #expect(standard.info.standard == standard)
            #expect(StandardClass(className: standard.className) == standard)
            #expect(standard.classChain.first == standard.className)
            #expect(standard.classChain.last == "NSObject")
            if let chain = standard.typedStreamChain { #expect(chain.map(\.name) == standard.classChain) }
        }
    }

    @Test func privateSubclassesAreReadAsTheirPublicClass() {
        #expect(StandardClass(className: "__NSCFConstantString") == .string)
        #expect(StandardClass(className: "__NSArrayM") == .mutableArray)
        #expect(StandardClass(className: "__NSLocalTimeZone") == .timeZone)
        #expect(StandardClass(className: "NSConcreteMutableAttributedString") == .mutableAttributedString)
        #expect(StandardClass(className: "NSObject") == nil)
    }

    @Test func typedStreamVersionsAreApples() {
        #expect(StandardClass.mutableString.typedStreamChain?.map(\.version) == [1, 1, 0])
        #expect(StandardClass.number.typedStreamChain?.map(\.name) == ["NSNumber", "NSValue", "NSObject"])
        #expect(StandardClass.mutableArray.typedStreamChain?.map(\.version) == [0, 0, 0])
        #expect(StandardClass.indexPath.typedStreamChain == nil)
        #expect(StandardClass.uuid.typedStreamChain == nil)
    }
}
