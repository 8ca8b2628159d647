import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// What the archiver writes: Apple's layout, order, escaping and uniquing, deterministically.
@Suite("Archiver output format")
struct ArchiverFormatTests {
    func graph(_ root: Any?, format: PlistFormat = .binary) throws -> ArchiveGraph {
        try ArchiveGraph(bytes: KeyedArchiver.archivedData(withRootObject: root, format: format))
    }

    func names(_ g: ArchiveGraph) -> [String] {
        g.objects.indices.map { uid in
            if let chain = g.classChain(of: uid) { return chain[0] }
            if let d = g.objects[uid].dictionaryValue, let n = d["$classname"]?.stringValue { return "class:" + n }
            return g.objects[uid].stringValue ?? g.objects[uid].kindName
        }
    }

    @Test func topLevelKeysAreInApplesModernOrder() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: "x")
        let top = try BinaryPlistDocument(bytes).decodeTopObject().dictionaryValue
        #expect(top?.keys == ["$version", "$archiver", "$top", "$objects"])
        #expect(top?["$version"] == 100_000 && top?["$archiver"] == "NSKeyedArchiver")
        #expect(top?["$top"] == .dictionary(["root": .uid(PlistUID(1))]))
    }

    @Test func objectsAreNumberedDepthFirstWithClassesAfterTheirFirstInstance() throws {
        let style = Style(name: "Default Stroke", strokeWidth: 1.5)
        let contents = Contents(shapes: [Circle(centerX: 1, centerY: 2, radius: 3, style: style),
                                         Circle(centerX: 4, centerY: 5, radius: 6, style: style)])
        #expect(names(try graph(contents)) == [
            "$null", "Contents", "NSArray", "Circle", "Style", "Default Stroke", "class:Style", "class:Circle",
            "Circle", "class:NSArray", "class:Contents",
        ])
    }

    @Test func subclassesWriteTheirWholeClassChain() throws {
        let g = try graph(RoundedRectangle(x: 1, y: 2, width: 3, height: 4, cornerRadius: 5))
        #expect(g.classChain(of: 1) == ["RoundedRectangle", "Rectangle", "NSObject"])
        #expect(g.fields(of: 1).map(\.key) == ["origin.x", "origin.y", "size.width", "size.height", "cornerRadius"])
    }

    @Test func userKeysStartingWithDollarAreEscaped() throws {
        let g = try graph(Sampler())
        let keys = g.fields(of: 1).map(\.key)
        #expect(keys.contains("$$dollar") && !keys.contains("$dollar"))
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: Sampler.self, from: KeyedArchiver.archivedData(withRootObject: Sampler()), registry: ClassRegistry([Sampler.self])))
        #expect(decoded.dollar == 3)
    }

    @Test func unkeyedValuesGoToDollarZeroAndOne() throws {
        let g = try graph(Unkeyed())
        #expect(g.fields(of: 1).map(\.key) == ["$0", "$1"])
        let bytes = try KeyedArchiver.archivedData(withRootObject: Unkeyed())
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Unkeyed.self, from: bytes, registry: ClassRegistry([Unkeyed.self])))
        #expect(decoded.first == "one" && decoded.second == 2)
    }

    @Test func equalStringsAndNumbersAreUniquedButOneAndTrueStayApart() throws {
        let g = try graph(["same", "same", 1, true, 1, 1.0] as [Any])
        // $null, NSArray, "same", 1, true, 1.0, class
        #expect(g.objects.count == 7)
        let refs = try #require(g.instance(1)?["NS.objects"]?.arrayValue)
        #expect(refs[0] == refs[1] && refs[2] == refs[4])
        #expect(refs[2] != refs[3] && refs[2] != refs[5])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: g.encoded()))
        #expect(decoded[2] as? Int == 1 && decoded[3] as? Bool == true && decoded[5] as? Double == 1.0)
    }

    @Test func oneInstanceEncodedTwiceIsOneObjectAndEqualStructsAreTwo() throws {
        let style = Style(name: "s", strokeWidth: 1)
        let g = try graph([style, style, Point(x: 1, y: 1), Point(x: 1, y: 1)] as [Any])
        let refs = try #require(g.instance(1)?["NS.objects"]?.arrayValue)
        #expect(refs[0] == refs[1])
        #expect(refs[2] != refs[3])
    }

    @Test func sameGraphGivesTheSameBytes() throws {
        let a = try KeyedArchiver.archivedData(withRootObject: Sampler())
        let b = try KeyedArchiver.archivedData(withRootObject: Sampler())
        #expect(a == b)
        var d1: [String: Int] = [:]
        var d2: [String: Int] = [:]
        for i in 0..<50 { d1["k\(i)"] = i }
        for i in (0..<50).reversed() { d2["k\(i)"] = i }
        #expect(try KeyedArchiver.archivedData(withRootObject: d1) == KeyedArchiver.archivedData(withRootObject: d2))
    }

    @Test func xmlOutputDecodesToTheSameGraph() throws {
        let (contents, _) = makeContents(count: 12)
        let xml = try KeyedArchiver.archivedData(withRootObject: contents, format: .xml)
        #expect(PropertyList.detectFormat(xml) == .xml)
        #expect(try ArchiveGraph(bytes: xml) == graph(contents))
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: xml, registry: shapeRegistry))
        #expect(decoded.shapes.count == 12 && decoded.shapes[10].style != nil && decoded.shapes[10].style === decoded.shapes[0].style)
    }

    @Test func standardClassesUseApplesKeys() throws {
        let g = try graph(Sampler())
        func object(_ key: String) throws -> PlistDictionary {
            let uid = try #require(g.instance(1)?[key]?.uidValue)
            return try #require(g.instance(Int(uid.value)))
        }
        #expect(try object("date")["NS.time"] == .real(123.5))
        #expect(try object("uuid")["NS.uuidbytes"]?.dataValue?.count == 16)
        #expect(try object("url")["NS.relative"]?.uidValue != nil && object("url")["NS.base"]?.uidValue != nil)
        #expect(try object("scores").keys.compactMap(\.stringValue).sorted() == ["$class", "NS.keys", "NS.objects"])
        #expect(g.instance(1)?["bytes"] == .data([1, 2, 3]))
        #expect(g.instance(1)?["int64"] == .integer(PlistInteger(Int64.max)))
    }

    @Test func missingOptionalObjectsWriteNull() throws {
        let g = try graph(Sampler())
        #expect(g.instance(1)?["missing"] == .uid(PlistUID(0)))
    }

    @Test func conditionalObjectsAreNullUnlessEncodedElsewhere() throws {
        let root = TreeNode(name: "root")
        let child = TreeNode(name: "child")
        root.add(child)
        // Archiving only the child: its parent is conditional and never encoded.
        let g = try graph(child)
        #expect(g.instance(1)?["parent"] == .uid(PlistUID(0)))
        // Archiving the root: the child's parent is the root, UID 1.
        let full = try graph(root)
        let childUID = try #require(full.instance(1)?["children"]?.uidValue.flatMap { full.instance(Int($0.value))?["NS.objects"]?.arrayValue?.first?.uidValue })
        #expect(full.instance(Int(childUID.value))?["parent"] == .uid(PlistUID(1)))
    }

    @Test func conditionalObjectsUnderTopLevelKeysAreResolved() throws {
        // The conditional reference comes first, the object later: its UID is known only at the end.
        let style = Style(name: "S", strokeWidth: 1)
        let archiver = KeyedArchiver()
        archiver.encodeConditionalObject(style, forKey: "weak")
        archiver.encodeConditionalObject(Style(name: "gone", strokeWidth: 2), forKey: "never")
        archiver.encode(style, forKey: "strong")
        let g = try ArchiveGraph(bytes: archiver.finishEncoding())
        #expect(g.top["weak"] == .uid(PlistUID(1)))
        #expect(g.top["never"] == .uid(PlistUID(0)))
        #expect(g.top["strong"] == .uid(PlistUID(1)))
        #expect(g.classChain(of: 1) == ["Style", "NSObject"])
    }

    @Test func classNameOverridesAreWritten() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("MyApp.Circle", for: Circle.self)
        archiver.encode(Circle(centerX: 1, centerY: 2, radius: 3), forKey: "root")
        let bytes = try archiver.finishEncoding()
        #expect(try ArchiveGraph(bytes: bytes).classChain(of: 1) == ["MyApp.Circle", "NSObject"])
        // Resolved by the part after the last dot.
        let circle = try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: shapeRegistry)
        #expect(circle?.radius == 3)
    }

    @Test func encodingDeeperThanTheLimitFailsAtFinish() throws {
        var head: Link?
        for _ in 0..<10_000 { head = Link(next: head) }
        let archiver = KeyedArchiver()
        archiver.maxDepth = 100
        archiver.encode(head, forKey: "root")
        expectKeyedError(.depthLimitExceeded) { try archiver.finishEncoding() }
        // Unwind the list iteratively so its deinit does not recurse 10,000 deep.
        while let h = head { head = h.next; h.next = nil }
    }

    @Test func unsupportedValuesFailAtFinish() throws {
        struct NotArchivable {}
        expectKeyedError(.unsupportedType) { try KeyedArchiver.archivedData(withRootObject: NotArchivable()) }
    }
}
