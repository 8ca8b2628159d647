import KeyedArchive
import Testing

/// The NSCoding-style example of README.md, kept compiling and true.
@Suite("README example: keyed archives")
struct ReadmeKeyedExampleTests {
    class Rectangle: KeyedArchivable {
        var width = 0.0, height = 0.0
        init(width: Double, height: Double) { (self.width, self.height) = (width, height) }
        required init(coder: KeyedUnarchiver) throws {
            width = try coder.decode(Double.self, forKey: "size.width")
            height = try coder.decode(Double.self, forKey: "size.height")
        }
        func encode(with coder: KeyedArchiver) {
            coder.encode(width, forKey: "size.width")
            coder.encode(height, forKey: "size.height")
        }
    }

    final class RoundedRectangle: Rectangle {
        var cornerRadius = 0.0
        init(width: Double, height: Double, cornerRadius: Double) {
            self.cornerRadius = cornerRadius
            super.init(width: width, height: height)
        }
        required init(coder: KeyedUnarchiver) throws {
            cornerRadius = try coder.decode(Double.self, forKey: "cornerRadius")
            try super.init(coder: coder)
        }
        override func encode(with coder: KeyedArchiver) {
            super.encode(with: coder)
            coder.encode(cornerRadius, forKey: "cornerRadius")
        }
    }

    @Test func subclassRoundTripsWithItsConcreteTypeAndARenamedClass() throws {
        let shapes: [Rectangle] = [Rectangle(width: 2, height: 3), RoundedRectangle(width: 4, height: 5, cornerRadius: 1)]
        // Written as an older build wrote it: the subclass under its old name, "OldApp.RoundedRect".
        let archiver = KeyedArchiver()
        archiver.setClassName("OldApp.RoundedRect", for: RoundedRectangle.self)
        archiver.encodeObject(shapes, forKey: "root")
        let bytes: [UInt8] = try archiver.finishEncoding()
        let graph = try ArchiveGraph(bytes: bytes)
        let chains = graph.objects.indices.compactMap { graph.classChain(of: $0) }
        #expect(chains == [["NSArray", "NSObject"], ["Rectangle", "NSObject"], ["OldApp.RoundedRect", "Rectangle", "NSObject"]])

        // Without the rename the old name is an unknown class.
        let unrenamed = ClassRegistry([Rectangle.self, RoundedRectangle.self])
        let unknown = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: [Rectangle].self, from: bytes, registry: unrenamed)
        }
        #expect(unknown?.code == .unknownClass)

        let registry = unrenamed.renaming("OldApp.RoundedRect", to: RoundedRectangle.self)
        let restored = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Rectangle].self, from: bytes, registry: registry))
        #expect(restored.count == 2)
        #expect(type(of: restored[0]) == Rectangle.self)
        let rounded = try #require(restored[1] as? RoundedRectangle)
        #expect(rounded.cornerRadius == 1 && rounded.width == 4 && rounded.height == 5)
        #expect(RoundedRectangle.archivedSuperclassNames == ["Rectangle", "NSObject"])
    }
}
