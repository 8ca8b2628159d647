import BinaryPlist
import KeyedArchive
import Testing

/// The inline collections of an object's fields (plist arrays and dictionaries that are not arrays of UIDs) are
/// read by BinaryPlist's one reader, the tree it builds on its events: the reader's checks and errors, not a
/// traversal of the unarchiver's own.
@Suite("Inline collection fields")
struct InlineCollectionFieldTests {
    typealias H = HostileArchive
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    /// An archive whose root, of an unknown class, has the field `list` = `[[1], ["a": 2]]`.
    static func archive() throws -> [UInt8] {
        try H.bytes(["$null", .dictionary(["$class": H.uid(2), "list": .array([.array([1]), .dictionary(["a": 2])])]),
                     H.classEntry("Thing")])
    }

    @Test func nestedInlineCollectionsAreReadWhole() throws {
        let root = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: Self.archive(),
                                                                     registry: Self.generic))
        guard case .value(let list)? = root.fields.first(where: { $0.key == "list" })?.value else {
            Issue.record("no inline field: \(root.fields)")
            return
        }
        #expect(list == .array([.array([1]), .dictionary(["a": 2])]))
    }

    /// The inner array made to contain itself: the plist reader's cycle error, with its object index (the
    /// unarchiver's own walk used to recurse until its depth limit).
    @Test func anInlineArrayThatContainsItselfIsThePlistReadersCycle() throws {
        var bytes = try Self.archive()
        // The one-element array whose element is the integer 1: make its element itself.
        let (index, start): (Int, Int) = try BinaryPlistDocument(bytes).withObjects { objects throws(PlistError) in
            for i in 0..<objects.objectCount {
                let at = objects.offset(i)
                if bytes[at] == 0xA1, case .scalar(.integer(1)) = try objects.object(objects.elementReference(.init(refs: at + 1, count: 1), 0)) {
                    return (i, at)
                }
            }
            return (-1, -1)
        }
        let width = try BinaryPlistDocument(bytes).trailer.referenceWidth
        try #require(index >= 0 && width == 1)
        bytes[start + 1] = UInt8(index)
        let error = expectKeyedError(.invalidPlist) {
            try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: Self.generic)
        }
        #expect(error?.underlying?.code == .cycle)
        #expect(error?.underlying?.objectIndex == index)
        #expect(error?.underlying?.byteOffset == start)
    }
}
