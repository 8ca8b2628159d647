import Foundation
import KeyedArchive
import ArchiveInspection
import Testing

/// A Codable type holding NSCoding-style values.
private struct Sheet: Codable {
    @Polymorphic var style: Style
    @Polymorphic var shapes: [any Shape]
    var title: String
}

/// An NSCoding-style type holding Codable values.
private final class Folder: KeyedArchivable {
    var items: [any CodableShape]
    var label: String
    init(items: [any CodableShape], label: String) { (self.items, self.label) = (items, label) }
    init(coder: KeyedUnarchiver) throws {
        items = try coder.decode([any CodableShape].self, forKey: "items")
        label = try coder.decode(String.self, forKey: "label")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encodeObject(items, forKey: "items")
        coder.encode(label, forKey: "label")
    }
}

@Suite("Codable bridge: the same model through ArchiveEncoder and the NSCoding-style API, mixed graphs")
struct CodableInteropTests {
    @Test func archivesWrittenByArchiveEncoderReadWithKeyedUnarchiver() throws {
        let bytes = try ArchiveEncoder().encode(makeCodableContents(count: 30))
        let contents = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: shapeRegistry))
        #expect(contents.shapes.count == 30)
        let circle = try #require(contents.shapes[3] as? Circle)
        #expect(circle.centerX == 3 && circle.centerY == 3.5 && circle.radius == 1)
        let rounded = try #require(contents.shapes[5] as? RoundedRectangle)
        #expect(rounded.width == 3 && rounded.height == 4 && rounded.cornerRadius == 5.0 / 7)
        #expect(!(contents.shapes[4] is RoundedRectangle) && contents.shapes[4] is Rectangle)
        let styles = contents.shapes.compactMap(\.style)
        #expect(styles.count == 3 && styles.allSatisfy { $0 === styles[0] } && styles[0].name == "Default Stroke")
    }

    @Test func archivesWrittenByKeyedArchiverReadWithArchiveDecoder() throws {
        let (contents, _) = makeContents(count: 30)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        let decoded = try ArchiveDecoder(registry: codableShapeRegistry).decode(CodableContents.self, from: bytes)
        #expect(decoded.shapes.count == 30)
        let rounded = try #require(decoded.shapes[2] as? CodableRoundedRectangle)
        #expect(rounded.x == 2 && rounded.cornerRadius == 2.0 / 7)
        let rect = try #require(decoded.shapes[1] as? CodableRectangle)
        #expect(!(rect is CodableRoundedRectangle) && rect.y == -1 && rect.width == 2)
        let styles = decoded.shapes.compactMap(\.style)
        #expect(styles.count == 3 && styles.allSatisfy { $0 === styles[0] } && styles[0].strokeWidth == 1.5)
    }

    @Test func bothWritersGiveTheSameGraph() throws {
        let ours = try ArchiveEncoder().encode(makeCodableContents(count: 12))
        let theirs = try KeyedArchiver.archivedData(withRootObject: makeContents(count: 12).0)
        #expect(try ArchiveJSON.render(ours) == ArchiveJSON.render(theirs))
        // Same model, same keys, same object order: the very same bytes.
        #expect(ours == theirs)
    }

    @Test func aDictionaryGivesTheSameBytesThroughEitherAPI() throws {
        // "NS.keys" first appears in this dictionary: its plist object comes after both arrays in both writers.
        let value = ["b": [1, 2], "a": [3]]
        #expect(try ArchiveEncoder().encode(value) == KeyedArchiver.archivedData(withRootObject: value))
        let nested = ["outer": ["x": "y"]]
        #expect(try ArchiveEncoder().encode(nested) == KeyedArchiver.archivedData(withRootObject: nested))
    }

    @Test func codableTypeHoldsKeyedArchivableValues() throws {
        let style = Style(name: "Ink", strokeWidth: 2)
        let sheet = Sheet(style: style, shapes: [Circle(centerX: 1, centerY: 2, radius: 3, style: style)], title: "one")
        let bytes = try ArchiveEncoder().encode(sheet)
        let decoded = try ArchiveDecoder(registry: shapeRegistry).decode(Sheet.self, from: bytes)
        #expect(decoded.title == "one" && decoded.style.name == "Ink")
        let circle = try #require(decoded.shapes.first as? Circle)
        #expect(circle.radius == 3 && circle.style === decoded.style)
    }

    @Test func keyedArchivableTypeHoldsCodableValues() throws {
        let style = CodableStyle(name: "Shared", strokeWidth: 1)
        let folder = Folder(items: [CodableCircle(centerX: 1, centerY: 2, radius: 3, style: style),
                                    CodableRoundedRectangle(x: 0, y: 0, width: 1, height: 1, cornerRadius: 0.5, style: style)],
                            label: "mixed")
        let bytes = try KeyedArchiver.archivedData(withRootObject: folder)
        let registry = ClassRegistry([Folder.self, CodableCircle.self, CodableRectangle.self,
                                      CodableRoundedRectangle.self, CodableStyle.self])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Folder.self, from: bytes, registry: registry))
        #expect(decoded.label == "mixed" && decoded.items.count == 2)
        #expect((decoded.items[0] as? CodableCircle)?.radius == 3)
        #expect((decoded.items[1] as? CodableRoundedRectangle)?.cornerRadius == 0.5)
        #expect(decoded.items[0].style != nil && decoded.items[0].style === decoded.items[1].style)
        // And the same archive through ArchiveDecoder, Folder being an NSCoding type inside.
        let again = try ArchiveDecoder(registry: registry).decode(Folder.self, from: bytes)
        #expect(again.items.count == 2 && again.label == "mixed")
    }
}
