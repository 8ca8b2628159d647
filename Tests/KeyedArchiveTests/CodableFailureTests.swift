import Foundation
import KeyedArchive
import Testing

private struct Named: Codable { var name: String; var size: Double }
/// Archived under the same class name as `Named`, with another type for `name`.
private struct Measured: ArchiveCodable {
    static var archivedClassName: String { "Named" }
    var name: Double
    var size: Double
}
private struct Tiny: ArchiveCodable {
    static var archivedClassName: String { "Wide" }
    var value: Int8
}
private struct Wide: Codable { var value: Int }
private struct Holder: Codable { @Polymorphic var shape: any CodableShape }

private final class Node: Codable {
    var name: String
    var next: Node?
    init(name: String) { self.name = name }
}

@Suite("Codable bridge: every failure is a DecodingError with the coding path and the object index")
struct CodableFailureTests {
    @Test func unregisteredTypeNamesTheClassThePathAndTheRegisteredClasses() throws {
        let bytes = try ArchiveEncoder().encode(makeCodableContents(count: 3))
        let registry = ClassRegistry([CodableContents.self, CodableRectangle.self])
        let error = try #require(expectDecodingError { try ArchiveDecoder(registry: registry).decode(CodableContents.self, from: bytes) })
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }
        #expect(error.path == "shapes.Index 0")
        let text = error.context?.debugDescription ?? ""
        #expect(text.contains("\"Circle\"") && text.contains("object 3"))
        #expect(text.contains("registered classes: Contents, Rectangle"))
    }

    @Test func typeMismatchHasThePathAndTheObject() throws {
        let bytes = try ArchiveEncoder().encode([Named(name: "a", size: 1)])
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode([Measured].self, from: bytes) })
        guard case .typeMismatch(let type, _) = error else { Issue.record("\(error)"); return }
        #expect(type == Double.self && error.path == "Index 0.name", "\(error)")
        #expect(error.context?.debugDescription.contains("object 2 (Named < NSObject)") == true)
    }

    @Test func missingKeyIsKeyNotFound() throws {
        struct Partial: Codable { var name: String }
        struct Full: ArchiveCodable {
            static var archivedClassName: String { "Partial" }
            var name: String
            var extra: Int
        }
        let bytes = try ArchiveEncoder().encode(Partial(name: "x"))
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(Full.self, from: bytes) })
        guard case .keyNotFound(let key, _) = error else { Issue.record("\(error)"); return }
        #expect(key.stringValue == "extra")
        #expect(error.context?.debugDescription.contains("object 1") == true)
    }

    @Test func wrongClassChainIsATypeMismatch() throws {
        let bytes = try ArchiveEncoder().encode(CodableCircle(centerX: 1, centerY: 2, radius: 3))
        // The archived Circle cannot pass for a Rectangle, registered or not.
        let registered = try #require(expectDecodingError {
            try ArchiveDecoder(registry: codableShapeRegistry).decode(CodableRectangle.self, from: bytes)
        })
        guard case .typeMismatch = registered else { Issue.record("\(registered)"); return }
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(CodableRectangle.self, from: bytes) })
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }
        #expect(error.context?.debugDescription.contains("$classes do not include \"Rectangle\"") == true)
    }

    @Test func renamedClassesDecodeThroughTheRegistry() throws {
        struct Old: Codable { var value: Int }
        struct New: ArchiveCodable { var value: Int }
        let bytes = try ArchiveEncoder().encode(Old(value: 4))
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(New.self, from: bytes) })
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }
        let registry = ClassRegistry.standard.renaming("Old", to: New.self)
        #expect(try ArchiveDecoder(registry: registry).decode(New.self, from: bytes).value == 4)
    }

    @Test func registeredTypeThatIsNotTheExpectedOneIsATypeMismatch() throws {
        let bytes = try ArchiveEncoder().encode(Holder(shape: CodableCircle(centerX: 0, centerY: 0, radius: 1)))
        struct WantsStyle: ArchiveCodable {
            static var archivedClassName: String { "Holder" }
            @Polymorphic var shape: CodableStyle
        }
        let error = try #require(expectDecodingError {
            try ArchiveDecoder(registry: codableShapeRegistry).decode(WantsStyle.self, from: bytes)
        })
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }
        #expect(error.path == "shape")
    }

    @Test func nullWhereAValueIsRequiredIsValueNotFound() throws {
        let bytes = try ArchiveEncoder().encode([nil, 1] as [Int?])
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode([Int].self, from: bytes) })
        guard case .valueNotFound = error else { Issue.record("\(error)"); return }
        #expect(error.path == "Index 0")
    }

    @Test func numberThatDoesNotFitIsDataCorrupted() throws {
        let bytes = try ArchiveEncoder().encode(Wide(value: 300))
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(Tiny.self, from: bytes) })
        guard case .dataCorrupted = error else { Issue.record("\(error)"); return }
        #expect(error.path == "value")
    }

    @Test func malformedBytesAreDataCorruptedWithTheArchiveError() throws {
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(Named.self, from: Array("not an archive".utf8)) })
        guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
        #expect(context.underlyingError is KeyedArchiveError)
    }

    @Test func archiveWithoutRootIsValueNotFound() throws {
        let archiver = KeyedArchiver()
        archiver.encode(1, forKey: "other")
        let bytes = try archiver.finishEncoding()
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(Int.self, from: bytes) })
        guard case .valueNotFound = error else { Issue.record("\(error)"); return }
    }

    @Test func cycleOfClassInstancesFailsWithoutLooping() throws {
        let a = Node(name: "a"), b = Node(name: "b")
        a.next = b
        b.next = a
        let bytes = try ArchiveEncoder().encode(a)
        a.next = nil
        let error = try #require(expectDecodingError { try ArchiveDecoder().decode(Node.self, from: bytes) })
        #expect(error.context?.debugDescription.contains("cycle") == true)
        #expect(error.path == "next.next")
    }

    @Test func valuesThatCannotBeArchivedAreEncodingErrors() throws {
        struct Opaque {}
        #expect(throws: EncodingError.self) { try ArchiveEncoder().encode(Opaque()) }
        #expect(throws: EncodingError.self) { try ArchiveEncoder().encode([Opaque()]) }
    }

    @Test func polymorphicCollectionsOfExistentialsNeedTheArchiveCoders() throws {
        struct Many: Codable { @Polymorphic var shapes: [any CodableShape] }
        let many = Many(shapes: [CodableCircle(centerX: 0, centerY: 0, radius: 1)])
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(many) }
        // A single existential whose dynamic type is Codable still encodes with other encoders.
        let one = Holder(shape: CodableCircle(centerX: 0, centerY: 0, radius: 1))
        #expect(try JSONEncoder().encode(one).isEmpty == false)
    }

    @Test func depthLimitIsAnError() throws {
        let nested = (0..<20).reduce([Int]() as Any) { inner, _ in [inner] }
        var encoder = ArchiveEncoder()
        encoder.maxDepth = 10
        #expect(throws: EncodingError.self) { try encoder.encode(nested) }
    }
}
