import Testing
@testable import KeyedArchive

/// The archiver finds the class of a value held in an `Any` by the runtime's conformance lookup once per
/// type, then through ``RecentArchivableTypes`` by a cast to that class; an object encoded under a
/// `(any KeyedArchivable)?` key needs no cast at all. Neither changes a byte of the archive.
@Suite("Archiver's recent archivable types")
struct ArchivableTypeCacheTests {
    /// A mixed, shared graph: three classes (one a subclass of another), a struct, a shared style.
    static func graph() -> (Contents, [Any]) {
        let style = Style(name: "shared", strokeWidth: 2)
        var shapes: [any Shape] = []
        for i in 0..<90 {
            let styled = i % 2 == 0 ? style : nil
            switch i % 3 {
            case 0: shapes.append(Circle(centerX: Double(i), centerY: 1, radius: 3, style: styled))
            case 1: shapes.append(Rectangle(x: Double(i), y: 2, width: 4, height: 5, style: styled))
            default: shapes.append(RoundedRectangle(x: Double(i), y: 3, width: 6, height: 7, cornerRadius: 1, style: styled))
            }
        }
        let mixed: [Any] = shapes.map { $0 as Any } + [Point(x: 1, y: 2), "text", 7, Point(x: 3, y: 4), style]
        return (Contents(shapes: shapes), mixed)
    }

    /// The archive written with a `willEncode` hook that changes nothing: that path takes no shortcut.
    static func hookedArchive(_ root: Any) throws -> [UInt8] {
        let archiver = KeyedArchiver()
        archiver.willEncode = { $0 }
        archiver.encodeObject(root, forKey: "root")
        return try archiver.finishEncoding()
    }

    @Test func writesTheBytesThePathWithoutShortcutsWrites() throws {
        let (contents, mixed) = Self.graph()
        #expect(try KeyedArchiver.archivedData(withRootObject: contents) == Self.hookedArchive(contents))
        #expect(try KeyedArchiver.archivedData(withRootObject: mixed) == Self.hookedArchive(mixed))
    }

    /// The cached path casts to the exact class found before: a value boxed as a superclass (`[Rectangle]`
    /// holding rounded ones), as a protocol existential or as a struct gets its own class in the archive,
    /// in whichever order the types come.
    @Test func writesEachValueAsItsOwnClassHoweverItIsBoxed() throws {
        let rounded = RoundedRectangle(x: 1, y: 2, width: 3, height: 4, cornerRadius: 5, style: nil)
        let plain = Rectangle(x: 6, y: 7, width: 8, height: 9, style: nil)
        let asSuperclass: [Rectangle] = [plain, rounded, plain, rounded, rounded, plain]
        let asExistential: [any Shape] = [rounded, plain, rounded]
        let mixed: [Any] = [rounded as Rectangle, Point(x: 1, y: 2), plain, rounded, Point(x: 3, y: 4), plain as Any]
        for root in [asSuperclass as Any, asExistential, mixed, [asSuperclass, asExistential, mixed] as [Any]] {
            let bytes = try KeyedArchiver.archivedData(withRootObject: root)
            #expect(bytes == (try Self.hookedArchive(root)))
        }
        let bytes = try KeyedArchiver.archivedData(withRootObject: Contents(shapes: asSuperclass))
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry))
        #expect(back.shapes.map { "\(type(of: $0))" } == ["Rectangle", "RoundedRectangle", "Rectangle",
                                                          "RoundedRectangle", "RoundedRectangle", "Rectangle"])
        #expect(back.shapes.compactMap { ($0 as? RoundedRectangle)?.cornerRadius } == [5, 5, 5])
    }

    @Test func restoresEveryClassAndTheSharedInstance() throws {
        let (contents, _) = Self.graph()
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry))
        #expect(back.shapes.map { "\(type(of: $0))" } == contents.shapes.map { "\(type(of: $0))" })
        let styles = back.shapes.compactMap(\.style)
        #expect(styles.count == 45)
        #expect(styles.allSatisfy { $0 === styles[0] })
    }

    @Test func findsOnlyTheTypeThatWasInserted() {
        var cache = RecentArchivableTypes()
        let types: [any KeyedArchivable.Type] = [Circle.self, Rectangle.self, RoundedRectangle.self, Style.self,
                                                 Contents.self, Point.self, Sampler.self, TreeNode.self, Link.self, Unkeyed.self]
        for type in types {
            #expect(cache[ObjectIdentifier(type)] == nil || cache[ObjectIdentifier(type)].map(ObjectIdentifier.init) == ObjectIdentifier(type))
            cache.insert(ObjectIdentifier(type), type)
            #expect(cache[ObjectIdentifier(type)].map(ObjectIdentifier.init) == ObjectIdentifier(type))
        }
        // A slot another type took since holds that type, never the one asked for.
        for type in types {
            if let found = cache[ObjectIdentifier(type)] { #expect(ObjectIdentifier(found) == ObjectIdentifier(type)) }
        }
        #expect(cache[ObjectIdentifier(Int.self)] == nil)
    }

    @Test func keepsTwoTypesThatShareASet() throws {
        // Ten types in eight sets: two of them share one (a direct-mapped slot let them evict each other at
        // every object). Both stay; a third type of that set, if there is one, evicts the older of the two.
        let types: [any KeyedArchivable.Type] = [Circle.self, Rectangle.self, RoundedRectangle.self, Style.self,
                                                 Contents.self, Point.self, Sampler.self, TreeNode.self, Link.self, Unkeyed.self]
        let bySet = Dictionary(grouping: types, by: { RecentArchivableTypes.set(of: ObjectIdentifier($0)) })
        let shared = try #require(bySet.values.first { $0.count >= 2 })
        var cache = RecentArchivableTypes()
        for type in shared.prefix(2) { cache.insert(ObjectIdentifier(type), type) }
        for type in shared.prefix(2) {
            #expect(cache[ObjectIdentifier(type)].map(ObjectIdentifier.init) == ObjectIdentifier(type))
        }
        if shared.count >= 3 {
            cache.insert(ObjectIdentifier(shared[2]), shared[2])
            #expect(cache[ObjectIdentifier(shared[0])] == nil)
            #expect(cache[ObjectIdentifier(shared[1])].map(ObjectIdentifier.init) == ObjectIdentifier(shared[1]))
            #expect(cache[ObjectIdentifier(shared[2])].map(ObjectIdentifier.init) == ObjectIdentifier(shared[2]))
        }
    }
}
