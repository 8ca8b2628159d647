import BinaryPlist
import KeyedArchive
import Testing

/// The public API over `$objects` that the inspector's model (ArchiveInspection) is built on:
/// `ArchiveObjectTable`, `ArchivedClassKind`, `KeyedArchiver.encode(_:forArchivedKey:)`, the ordered
/// collections and `ArchiveGraph.encodedInArchiverOrder(format:)`.
@Suite("Reading and writing an archive's graph")
struct GraphReadingAndWritingTests {
    final class Tagged: KeyedArchivable {
        static var archivedClassName: String { "Tagged" }
        init() {}
        init(coder: KeyedUnarchiver) throws {}
        func encode(with coder: KeyedArchiver) {
            coder.encode(.value(7), forArchivedKey: "$raw")
            coder.encode(8, forKey: "$escaped")
            coder.encode(.objects(["a", nil]), forArchivedKey: "list")
        }
    }

    @Test func theTableReadsTheEntriesTheGraphHolds() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charles"])
        let graph = try ArchiveGraph(bytes: bytes)
        try ArchiveObjectTable.read(bytes) { table in
            #expect(table.archiver == "NSKeyedArchiver")
            #expect(table.objectCount == graph.objects.count)
            #expect(table.byteCount == bytes.count)
            #expect(table.elementBudget == 65_536)
            #expect(table.topCount == 1)
            #expect(try table.topKey(at: 0) == .string("root"))
            #expect(try table.topValue(at: 0) == .uid(PlistUID(1)))
            for uid in 0..<table.objectCount {
                #expect(try table.object(at: uid) == graph.objects[uid])
            }
            let descriptions = try (0..<table.objectCount).filter { try table.isClassDescription(at: $0) }
            #expect(descriptions == [4])
            #expect(graph.objects[4].dictionaryValue?["$classname"] == .string("NSArray"))
        }
    }

    @Test func anIndexOutsideTheObjectsIsAnInvalidReference() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: "x")
        try ArchiveObjectTable.read(bytes) { table in
            for uid in [-1, table.objectCount] {
                let error = #expect(throws: KeyedArchiveError.self) { try table.object(at: uid) }
                #expect(error?.code == .invalidReference)
                #expect(error?.reason == "UID \(uid) is not below the \(table.objectCount) objects")
            }
        }
    }

    @Test func theTableRefusesAnotherArchiverUnlessAsked() throws {
        let foreign: [UInt8] = try ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: ["$null", "hello"],
                                       archiver: "MSArchiver").encoded()
        let error = #expect(throws: KeyedArchiveError.self) { try ArchiveObjectTable.read(foreign) { _ in } }
        #expect(error?.code == .foreignArchiver)
        let archiver = try ArchiveObjectTable.read(foreign, acceptedArchivers: .any) { $0.archiver }
        #expect(archiver == "MSArchiver")
    }

    @Test func classKindsFollowTheClassClusters() {
        #expect(ArchivedClassKind(className: "NSMutableArray") == .array)
        #expect(ArchivedClassKind(className: "__NSCFString") == .string)
        #expect(ArchivedClassKind(className: "__NSDictionaryM") == .dictionary)
        #expect(ArchivedClassKind(className: "NSMutableOrderedSet") == .orderedSet)
        #expect(ArchivedClassKind(className: "NSNumber") == nil)
        #expect(ArchivedClassKind(className: "NSAttributedString") == nil)
        #expect(ArchivedClassKind(className: "Circle") == nil)
        #expect(ArchivedClassKind.allCases.count == 10)
    }

    @Test func archivedKeysAreWrittenAsGivenAndUserKeysEscaped() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Tagged())
        let graph = try ArchiveGraph(bytes: bytes)
        let fields = graph.fields(of: 1)
        #expect(fields.map(\.key) == ["$raw", "$$escaped", "list"])
        #expect(fields[0].value == 7 && fields[1].value == 8)
        guard case .array(let list) = fields[2].value, list.count == 2, case .uid(let first) = list[0] else {
            Issue.record("list is \(fields[2].value)")
            return
        }
        #expect(graph.objects[Int(first.value)] == .string("a"))
        #expect(list[1] == .uid(PlistUID(0)))
    }

    @Test func orderedCollectionsKeepTheirOrder() throws {
        let dictionary = OrderedArchiveDictionary(keys: ["b", "a"], values: [2, 1])
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: dictionary)
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.classChain(of: 1) == ["NSDictionary", "NSObject"])
        let keys = graph.instance(1)?["NS.keys"]?.arrayValue?.compactMap(\.uidValue).map { graph.objects[Int($0.value)] }
        #expect(keys == [.string("b"), .string("a")])
        let decoded = try KeyedUnarchiver.unarchivedObject(ofType: [String: Int].self, from: bytes)
        #expect(decoded == ["b": 2, "a": 1])

        let set: [UInt8] = try KeyedArchiver.archivedData(withRootObject: OrderedArchiveSet(members: ["z", "y"]))
        let setGraph = try ArchiveGraph(bytes: set)
        #expect(setGraph.classChain(of: 1) == ["NSSet", "NSObject"])
        let members = setGraph.instance(1)?["NS.objects"]?.arrayValue?.compactMap(\.uidValue)
            .map { setGraph.objects[Int($0.value)] }
        #expect(members == [.string("z"), .string("y")])
    }

    @Test func theGraphWrittenInArchiverOrderGivesBackTheArchive() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Tagged())
        #expect(try ArchiveGraph(bytes: bytes).encodedInArchiverOrder() == bytes)
        let strings: [UInt8] = try KeyedArchiver.archivedData(withRootObject: ["Ada", "Charles", "Ada"])
        #expect(try ArchiveGraph(bytes: strings).encodedInArchiverOrder() == strings)
    }

    @Test func theArchiverOrderWriterRefusesAGraphItCannotWrite() {
        let noNull = ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: ["x", "y"])
        let header = #expect(throws: KeyedArchiveError.self) { try noNull.encodedInArchiverOrder() }
        #expect(header?.code == .invalidHeader)

        let dangling = ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: ["$null", .array([.uid(PlistUID(9))])])
        let reference = #expect(throws: KeyedArchiveError.self) { try dangling.encodedInArchiverOrder() }
        #expect(reference?.code == .invalidReference)
        #expect(reference?.objectIndex == 1)

        let numericKey = ArchiveGraph(top: PlistDictionary([(.integer(1), .uid(PlistUID(0)))]), objects: ["$null"])
        let key = #expect(throws: KeyedArchiveError.self) { try numericKey.encodedInArchiverOrder() }
        #expect(key?.code == .invalidHeader)
    }
}
