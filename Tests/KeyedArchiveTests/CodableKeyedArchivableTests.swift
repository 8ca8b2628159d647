import Foundation
import KeyedArchive
import Testing

private struct RoomReading: KeyedArchivable, Codable, Equatable {
    var room: String
    var celsius: Double
    var tags: [String]
}

/// A Codable value that is also KeyedArchivable: encode(with:) and init(coder:) come from its Codable conformance.
private final class RoomSensor: KeyedArchivable, Codable {
    let name: String
    let last: RoomReading
    init(name: String, last: RoomReading) { (self.name, self.last) = (name, last) }
}

@Suite("Codable KeyedArchivable defaults")
struct CodableKeyedArchivableTests {
    fileprivate let reading = RoomReading(room: "kitchen", celsius: 21.5, tags: ["ground floor", "é"])

    @Test func aCodableValueArchivesThroughTheNSCodingAPIWithoutCoderMethods() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: reading)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: RoomReading.self, from: bytes, registry: ClassRegistry([RoomReading.self]))
        #expect(back == reading)
        // The same object the Codable bridge writes for the value.
        #expect(bytes == (try ArchiveEncoder().encode(reading)))
        #expect(try ArchiveDecoder().decode(RoomReading.self, from: bytes) == reading)
    }

    @Test func nestedCodableArchivablesKeepTheirClassNames() throws {
        let sensor = RoomSensor(name: "s1", last: reading)
        let bytes = try KeyedArchiver.archivedData(withRootObject: sensor)
        let graph = try ArchiveGraph(bytes: bytes)
        let names = graph.objects.compactMap { object -> String? in
            guard case .dictionary(let d) = object, case .string(let name)? = d["$classname"] else { return nil }
            return name
        }
        #expect(Set(names) == ["RoomSensor", "RoomReading", "NSArray"])
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: RoomSensor.self, from: bytes, registry: ClassRegistry([RoomSensor.self, RoomReading.self])))
        #expect(back.name == "s1")
        #expect(back.last == reading)
    }
}
