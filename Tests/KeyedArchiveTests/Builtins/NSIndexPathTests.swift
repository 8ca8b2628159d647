import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// `NSIndexPath` as `IndexPath`: Apple's three layouts (no index, one, packed), written back object for
/// object as Apple wrote them, and every malformed layout refused with the object's index.
@Suite("NSIndexPath")
struct NSIndexPathTests {
    typealias H = HostileArchive
    static let folder = "keyed/swift-corelibs-foundation/macOS-10.14/"

    func root(_ bytes: [UInt8]) throws -> IndexPath? {
        try KeyedUnarchiver.unarchivedObject(ofType: IndexPath.self, from: bytes)
    }

    @Test(arguments: [("NSIndexPath-Empty.archive", [Int]()), ("NSIndexPath-OneIndex.archive", [52]),
                      ("NSIndexPath-ManyIndices.archive", [4, 8, 15, 16, 23, 42])])
    func appleFixturesDecodeAndAreWrittenBackAsAppleWroteThem(_ name: String, _ indexes: [Int]) throws {
        let apple = try KeyedFixtures.bytes(Self.folder + name)
        let path = try #require(try root(apple))
        #expect(Array(path) == indexes)
        // Ours: the same archive as Apple's, object for object and field for field (the many-index path's
        // data an NSMutableData object); only the order of keys within a dictionary may differ.
        let ours: [UInt8] = try KeyedArchiver.archivedData(withRootObject: path)
        #expect(try PropertyList.decode(ours) == (try PropertyList.decode(apple)))
        #expect(try root(ours) == path)
    }

    static let malformed: [(String, [(String, PlistValue)], PlistValue?)] = [
        ("no length", [], nil),
        ("a negative length", [("NSIndexPathLength", -1)], nil),
        ("one index without its value", [("NSIndexPathLength", 1)], nil),
        ("a negative index", [("NSIndexPathLength", 1), ("NSIndexPathValue", -4)], nil),
        ("two indexes without data", [("NSIndexPathLength", 2)], nil),
        ("packed data cut off", [("NSIndexPathLength", 2)], .data([3, 0x84])),
        ("fewer indexes than the length", [("NSIndexPathLength", 3)], .data([3, 4])),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedIndexPathsAreInvalidValuesAtTheirObject(_ index: Int) throws {
        let (_, fields, data) = Self.malformed[index]
        var d = PlistDictionary()
        d["$class"] = H.uid(2)
        for (k, v) in fields { d[k] = v }
        var objects: [PlistValue] = ["$null", .dictionary(d), H.classEntry("NSIndexPath")]
        if let data {
            d["NSIndexPathData"] = H.uid(3)
            objects[1] = .dictionary(d)
            objects.append(data)
        }
        let bytes = try H.bytes(objects)
        let error = expectKeyedError(.invalidValue) { try root(bytes) }
        #expect(error?.objectIndex == 1)
    }
}
