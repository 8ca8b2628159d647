import BinaryPlist
import Foundation
import KeyedArchive
import ArchiveInspection
import Testing

/// Content a person can check against each fixture's `.expected.txt` (plistlib's dump of the raw plist).
@Suite("Fixture contents")
struct FixtureContentTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    func root<T>(_ path: String, as: T.Type = Any.self) throws -> T? {
        try KeyedUnarchiver.unarchivedObject(ofType: T.self, from: KeyedFixtures.bytes(path), registry: Self.generic)
    }

    @Test func complexTestHoldsNullStringNumberDictionaryURLAndUUID() throws {
        let d = try #require(try root("keyed/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist",
                                      as: [AnyHashable: Any].self))
        #expect(d["string"] as? String == "hello")
        let array = try #require(d["array"] as? [Any])
        #expect(array.count == 4)
        #expect(array[0] is ArchivedNull)
        #expect(array[1] as? String == "hello")
        #expect(array[2] as? Int == 34545)
        #expect((array[3] as? [AnyHashable: Any])?["key"] as? String == "val")
        let url = try #require(d["url"] as? URL)
        #expect(url.absoluteString == "https://www.swift.org/index.xml")
        #expect(url.relativeString == "index.xml")
        #expect((d["uuid"] as? UUID)?.uuidString == "71DC068E-3420-45FF-919E-3A267D55EC22")
    }

    @Test func xmlValueFixturesDecodeToRangesRectsAndEdgeInsets() throws {
        let base = "keyed/swift-corelibs-foundation/xml/NSKeyedUnarchiver-"
        #expect(try root(base + "RangeTest.plist", as: ArchivedValue.self) == .range(location: 97345, length: 98345))
        #expect(try root(base + "RectTest.plist", as: ArchivedValue.self) == .rect(x: 400, y: 300, width: 200, height: 300))
        #expect(try root(base + "EdgeInsetsTest.plist", as: ArchivedValue.self)
                == .edgeInsets(top: 1, left: 2, bottom: 3, right: 4))
        let concrete = try #require(try root(base + "ConcreteValueTest.plist", as: ArchivedObject.self))
        #expect(concrete.classChain == ["NSValue", "NSObject"])
        guard case .object(let type as String)? = concrete["$0"] else { Issue.record("no $0"); return }
        #expect(type == "[3i]")
    }

    @Test func xmlCollectionsURLAndUUIDFixtures() throws {
        let base = "keyed/swift-corelibs-foundation/xml/NSKeyedUnarchiver-"
        #expect(try root(base + "ArrayTest.plist", as: [String].self) == ["baa", "baa", "black", "sheep"])
        let ordered = try #require(try root(base + "OrderedSetTest.plist", as: ArchivedOrderedSet.self))
        #expect(ordered.elements == ["valgeir", "nico", "puzzle"])
        #expect(try root(base + "URLTest.plist", as: URL.self)?.absoluteString == "https://www.example.com/foo.xml")
        #expect(try root(base + "UUIDTest.plist", as: UUID.self)?.uuidString == "0AD863BA-7584-40CF-8896-BD87B3280C34")
        let note = try #require(try root(base + "NotificationTest.plist", as: ArchivedObject.self))
        #expect(note.className == "NSNotification")
    }

    @Test func kilerScalarTypesKeepIntRealBoolStringAndData() throws {
        for path in ["keyed/kiler129-NSKeyedUnarchiver/scalarTypes.bin.plist",
                     "keyed/kiler129-NSKeyedUnarchiver/xml/scalarTypes.xml.plist"] {
            let o = try #require(try root(path, as: ArchivedObject.self))
            // The class dictionary has no $classes, and every scalar is a reference to an NSNumber object.
            #expect(o.classChain == ["TestDummy"])
            guard case .object(let i as Int)? = o["typeInt"], case .object(let r as Double)? = o["typeFloat"],
                  case .object(let b as Bool)? = o["typeBool"], case .object(let s as String)? = o["typeString"],
                  case .object(let d as Data)? = o["data"]
            else { Issue.record("unexpected fields in \(path)"); continue }
            #expect(i == 42 && r == 3.14 && b && s == "foo bar" && String(decoding: d, as: UTF8.self) == "foobar")
        }
    }

    @Test func kilerReferenceSharesOneURLObject() throws {
        let graph = try ArchiveGraph(bytes: KeyedFixtures.bytes("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist"))
        let root = try #require(graph.topObject())
        let d = try #require(graph.instance(root))
        let objects = try #require(d["NS.objects"]?.arrayValue)
        #expect(objects.count == 2 && objects[0] == objects[1])
        let dict = try #require(try self.root("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist", as: [String: URL].self))
        #expect(dict["copyOne"] == dict["copyTwo"])
    }

    @Test func kilerDateNullAndUUIDRoots() throws {
        let date = try #require(try root("keyed/kiler129-NSKeyedUnarchiver/date.bin.plist", as: Date.self))
        #expect(date.timeIntervalSinceReferenceDate == 1_210_536_312)
        #expect(try root("keyed/kiler129-NSKeyedUnarchiver/null.bin.plist") == nil)
        #expect(try root("keyed/kiler129-NSKeyedUnarchiver/UUIDv4.bin.plist", as: UUID.self)?.uuidString
                == "E98A110A-1409-47AB-B9C9-66F2633F570F")
    }

    @Test func kilerCollectionsInACustomObject() throws {
        let o = try #require(try root("keyed/kiler129-NSKeyedUnarchiver/collections.bin.plist", as: ArchivedObject.self))
        guard case .object(let ints as [Any])? = o["arrayOfInts"], case .object(let set as Set<AnyHashable>)? = o["set"]
        else { Issue.record("fields"); return }
        #expect(ints.compactMap { $0 as? Int } == [1, 2, 3])
        #expect(set == ["is", "ordered", "not", "set"])
    }

    @Test func michaelwrightNoteHasIntBoolAndMixedArray() throws {
        let note = try #require(try root("keyed/michaelwright235-nskeyedunarchiver/note.plist", as: ArchivedObject.self))
        #expect(note.className == "Note")
        guard case .value(.integer(let year))? = note["date"], case .value(.bool(true))? = note["published"],
              case .object(let array as [Any])? = note["array"]
        else { Issue.record("fields"); return }
        #expect(year == 2025)
        #expect(array.count == 3 && array[0] as? String == "Hello, World!" && array[1] as? Int == 42 && array[2] as? Bool == true)
    }

    @Test func michaelwrightPlainRoots() throws {
        let base = "keyed/michaelwright235-nskeyedunarchiver/"
        #expect(try root(base + "plainString.plist", as: String.self) == "Some string!")
        #expect(try root(base + "nsData.plist", as: Data.self) == Data("Some data!".utf8))
        let d = try #require(try root(base + "simpleDict.plist", as: [String: Any].self))
        #expect(d["First key"] as? String == "First value")
        #expect(d["Array key"] as? [Int] == [1, 2, 3])
    }

    @Test func selfContainingArrayIsACycleError() throws {
        let bytes = try KeyedFixtures.bytes("keyed/michaelwright235-nskeyedunarchiver/circularReference.plist")
        expectKeyedError(.cycle) { try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: bytes) }
    }

    @Test func libnskeyedarchiverScalarRootsAndSets() throws {
        let base = "keyed/libnskeyedarchiver-LGPL/"
        #expect(try root(base + "bool_true.bplist", as: Bool.self) == true)
        #expect(try root(base + "integer_10.bplist", as: Int.self) == 10)
        #expect(try root(base + "nsstring_setconfig.bplist", as: String.self) == "setConfig:")
        let energy = try #require(try root(base + "nsset_energy.bplist", as: Set<AnyHashable>.self))
        #expect(energy.count == 7 && energy.contains("energy.GPU"))
    }

    @Test func goIOSDictionaryKeyedByNumbersAndUInt64Values() throws {
        let d = try #require(try root("keyed/go-ios/uint64-key-dictionary.bin", as: [AnyHashable: Any].self))
        #expect(d.keys.contains(40400))
        let ids = try #require(try root("keyed/go-ios/xctestidentifier.bin", as: ArchivedObject.self))
        #expect(ids.className == "XCTTestIdentifier")
    }

    @Test func danielpaulusUnkeyedTopLevelValues() throws {
        let bytes = try KeyedFixtures.bytes("keyed/danielpaulus-nskeyedarchiver/primitives.bin")
        let keys = try ArchiveGraph(bytes: bytes).top.keys.compactMap(\.stringValue)
        #expect(keys.allSatisfy { $0.hasPrefix("$") })
        #expect(try ArchiveJSON.render(bytes).hasPrefix(#"{"$top": {"#))
    }

    @Test func bpylistCircularCustomObjectKeepsTheCycle() throws {
        let foo = try #require(try root("keyed/bpylist2/circular_archive.plist", as: ArchivedObject.self))
        guard case .object(let inner as ArchivedObject)? = foo["recursive"] else { Issue.record("field"); return }
        #expect(inner === foo)
    }

    @Test func nibDecodesWithTheGenericObjectsOfAppKit() throws {
        let json = try ArchiveJSON.render(KeyedFixtures.bytes("keyed/HexFiend-nib/JumpToOffsetBanner.keyedobjects.nib"))
        #expect(json.contains(#""IB.objectdata": {"class": "NSIBObjectData""#))
    }

    @Test func macOSMeasurementAndSetFixtures() throws {
        let base = "keyed/swift-corelibs-foundation/macOS-10.14/"
        #expect(try ArchiveJSON.render(KeyedFixtures.bytes(base + "NSMeasurement-Length.archive")).contains(#""NS.symbol": "mi""#))
        #expect(try root(base + "NSSet-Numbers.archive", as: Set<Int>.self) == [1, 2, 3, 4, 5])
        #expect(try root(base + "NSOrderedSet-Numbers.archive", as: ArchivedOrderedSet.self)?.elements == [1, 2, 3, 4, 5])
    }
}
