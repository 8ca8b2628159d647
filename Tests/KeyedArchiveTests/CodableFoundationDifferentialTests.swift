import Foundation
import KeyedArchive
import Testing

/// Archives of standard types written by ArchiveEncoder decode in the toolchain's NSKeyedUnarchiver to the
/// same values, and Foundation's archives of them decode here.
@Suite("Codable bridge: differential against Foundation's NSKeyedArchiver / NSKeyedUnarchiver")
struct CodableFoundationDifferentialTests {
    struct Sample: @unchecked Sendable, CustomTestStringConvertible {
        let name: String
        let encode: () throws -> [UInt8]
        let value: Any
        var testDescription: String { name }
    }

    static let date = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
    static let uuid = UUID(uuid: (0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))
    static let url = URL(string: "https://example.com/path?q=1")!

    static func sample<T: Encodable>(_ name: String, _ value: T) -> Sample {
        Sample(name: name, encode: { try ArchiveEncoder().encode(value) }, value: value)
    }

    static let samples: [Sample] = [
        sample("string", "héllo"),
        sample("int", 42),
        sample("double", 2.5),
        sample("strings", ["a", "b", "a"]),
        sample("numbers", [1, 2, 3]),
        sample("dictionary", ["one": 1, "two": 2]),
        sample("nested", ["list": [[1, 2], [3]], "empty": []]),
        sample("dictionary of arrays", ["x": ["p", "q"], "y": []]),
        sample("date", [date]),
        sample("data", Data([1, 2, 3, 255])),
        sample("uuid", [uuid]),
        sample("url", [url]),
        sample("set", Set(["m", "n"])),
    ]

    static let foundationClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSUUID.self,
        NSURL.self, NSNull.self, NSSet.self,
    ]

    @Test(arguments: samples)
    func ourArchivesDecodeEqualInFoundation(_ sample: Sample) throws {
        let bytes = try sample.encode()
        let theirs = try NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.foundationClasses, from: Data(bytes))
        #expect(Canonical.text(theirs) == Canonical.text(sample.value))
    }

    @Test func foundationArchivesOfStandardTypesDecodeHere() throws {
        let record: NSDictionary = ["name": "Ada", "scores": [1, 2, 3], "when": Self.date, "id": Self.uuid as NSUUID,
                                    "link": Self.url as NSURL, "blob": Data([9, 8])]
        struct Record: Decodable, Equatable {
            var name: String, scores: [Int], when: Date, id: UUID, link: URL, blob: Data
        }
        let data = try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: false)
        // A Codable struct reads an NSDictionary through its keyed container.
        let decoded = try ArchiveDecoder().decode(Record.self, from: data)
        #expect(decoded == Record(name: "Ada", scores: [1, 2, 3], when: Self.date, id: Self.uuid, link: Self.url, blob: Data([9, 8])))
        let typed = try ArchiveDecoder().decode([String: [Int]].self,
                                                from: NSKeyedArchiver.archivedData(withRootObject: ["k": [4, 5]] as NSDictionary,
                                                                                   requiringSecureCoding: false))
        #expect(typed == ["k": [4, 5]])
    }
}
