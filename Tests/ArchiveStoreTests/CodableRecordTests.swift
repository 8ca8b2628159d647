import Foundation
import KeyedArchive
import Testing
import TestSupport
@testable import ArchiveStore

/// A record type that is only a Codable model: no `encode(with:)`, no `init(coder:)`.
struct Measurement: ArchiveRecord, Codable, Equatable {
    struct Sample: Codable, Equatable {
        var label: String
        var value: Double
    }

    var id: String
    var site: String
    var count: Int
    var ratio: Double
    var valid: Bool
    var tags: [String]
    var note: String?
    var samples: [Sample]
}

/// A Codable record archived under another class name than its Swift name.
struct RenamedReading: ArchiveRecord, Codable, Equatable {
    static var archivedClassName: String { "Reading" }
    var id: Int
    var value: Double
}

@Suite("Codable ArchiveRecord")
struct CodableRecordTests {
    let first = Measurement(id: "m1", site: "north", count: 3, ratio: 0.25, valid: true, tags: ["a", "b"],
                            note: "calibrated", samples: [.init(label: "t0", value: 1.5), .init(label: "t1", value: -2)])
    let second = Measurement(id: "m2", site: "south", count: -7, ratio: 1e-3, valid: false, tags: [],
                             note: nil, samples: [])

    func repository(_ directory: TemporaryDirectory) -> ArchiveRepository<Measurement> {
        ArchiveRepository(path: directory.file("data/Measurement.archive"))
    }

    @Test func aCodableRecordIsStoredUpdatedRemovedAndReadBackAfterReopening() throws {
        let directory = try TemporaryDirectory()
        let store = repository(directory)
        try store.add(first)
        try store.add(second)
        #expect(try store.get("m1") == first)
        #expect(try store.get("m2") == second)
        #expect(try store.get("m3") == nil)

        var changed = first
        changed.count = 4
        changed.note = nil
        changed.tags.append("c")
        changed.samples[1].value = 2.75
        try store.update(changed)
        #expect(try store.get("m1") == changed)
        #expect(try store.records() == [second, changed])   // in the order of their last write

        #expect(try store.remove("m2") == second)
        #expect(try store.remove("m2") == nil)
        #expect(try store.records() == [changed])

        // A second repository on the same file reads the same records, field for field.
        let reopened = try repository(directory).records()
        #expect(reopened == [changed])
        let record = try #require(reopened.first)
        #expect(record.id == "m1")
        #expect(record.site == "north")
        #expect(record.count == 4)
        #expect(record.ratio == 0.25)
        #expect(record.valid == true)
        #expect(record.tags == ["a", "b", "c"])
        #expect(record.note == nil)
        #expect(record.samples == [.init(label: "t0", value: 1.5), .init(label: "t1", value: 2.75)])
    }

    @Test func aCodableRecordArchivesWithTheKeysOfItsCodableEncoding() throws {
        let keyed = try KeyedArchiver.archivedData(withRootObject: first) as [UInt8]
        let codable = try ArchiveEncoder().encode(first)

        // Both archives hold one object of class Measurement with the Codable keys (`note` too, as its
        // synthesized `encodeIfPresent` writes it when set).
        let registry = ClassRegistry.standard.allowingUnknownClasses()
        let keyedObject = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: keyed, registry: registry))
        let codableObject = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: codable, registry: registry))
        let keys = ["id", "site", "count", "ratio", "valid", "tags", "note", "samples"]
        #expect(keyedObject.fields.map(\.key) == keys)
        #expect(codableObject.fields.map(\.key) == keys)
        #expect(keyedObject.classChain == codableObject.classChain)
        #expect(keyedObject.classChain.first == "Measurement")

        // Each decodes as the other's format.
        #expect(try ArchiveDecoder().decode(Measurement.self, from: keyed) == first)
        let registered = ClassRegistry([Measurement.self])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Measurement.self, from: codable, registry: registered) == first)
    }

    @Test func aCodableRecordIsArchivedUnderItsArchivedClassNameByBothEncoders() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/Reading.archive")
        try ArchiveRepository<RenamedReading>(path: path).add(RenamedReading(id: 7, value: 0.5))
        #expect(try ArchiveRepository<RenamedReading>(path: path).get(7) == RenamedReading(id: 7, value: 0.5))

        let registry = ClassRegistry.standard.allowingUnknownClasses()
        for bytes in [try KeyedArchiver.archivedData(withRootObject: RenamedReading(id: 7, value: 0.5)) as [UInt8],
                      try ArchiveEncoder().encode(RenamedReading(id: 7, value: 0.5))] {
            let object = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: registry))
            #expect(object.classChain == ["Reading", "NSObject"])
            #expect(object.fields.map(\.key) == ["id", "value"])
            #expect(try KeyedUnarchiver.unarchivedObject(ofType: RenamedReading.self, from: bytes,
                                                         registry: ClassRegistry([RenamedReading.self])) == RenamedReading(id: 7, value: 0.5))
        }
    }
}
