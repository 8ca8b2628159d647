import BinaryPlist
import Foundation
import KeyedArchive
import Testing

/// `NSTimeZone` as ``ArchivedTimeZone``: its name and its tzfile, kept whole, written back as Apple wrote them.
@Suite("NSTimeZone")
struct NSTimeZoneTests {
    typealias H = HostileArchive
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    /// Apple's ISO8601DateFormatter archive holds a GMT zone with its tzfile.
    @Test func applesZoneInAFormatterDecodesWithItsTzfileAndIsWrittenBackTheSame() throws {
        let apple = try KeyedFixtures.bytes("keyed/swift-corelibs-foundation/macOS-10.14/ISO8601DateFormatter-Default.archive")
        let formatter = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: apple,
                                                                           registry: Self.generic, requiresSecureCoding: false))
        #expect(formatter.className == "NSISO8601DateFormatter")
        guard case .object(let value?)? = formatter["NS.timeZone"], let zone = value as? ArchivedTimeZone else {
            Issue.record("NS.timeZone is not an ArchivedTimeZone")
            return
        }
        #expect(zone.name == "GMT")
        let tzfile = try #require(zone.data)
        #expect(tzfile.count == 118)
        #expect(Array(tzfile.prefix(4)) == Array("TZif".utf8))
        #expect(zone.timeZone?.secondsFromGMT() == 0)
        // Written back: the same archive as Apple's, object for object (the tzfile an NSMutableData as Apple
        // wrote it); only the order of keys within a dictionary may differ.
        let again: [UInt8] = try KeyedArchiver.archivedData(withRootObject: formatter)
        #expect(try PropertyList.decode(again) == (try PropertyList.decode(apple)))
    }

    @Test func aSwiftTimeZoneIsWrittenByItsIdentifier() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: try #require(TimeZone(identifier: "Europe/Paris")))
        let zone = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ArchivedTimeZone.self, from: bytes))
        #expect(zone == ArchivedTimeZone(name: "Europe/Paris"))
        #expect(zone.timeZone?.identifier == "Europe/Paris")
        #expect(ArchivedTimeZone(name: "Nowhere/Atlantis").timeZone == nil)
    }

    @Test func aZoneWithoutAStringNameOrWithOtherDataIsAnInvalidValue() throws {
        for fields in [[("NS.data", H.uid(3))], [("NS.name", H.uid(3))]] as [[(String, PlistValue)]] {
            var d = PlistDictionary()
            d["$class"] = H.uid(2)
            for (k, v) in fields { d[k] = v }
            let bytes = try H.bytes(["$null", .dictionary(d), H.classEntry("NSTimeZone"), .integer(5)])
            let error = expectKeyedError(.invalidValue) { try KeyedUnarchiver.unarchivedObject(ofType: ArchivedTimeZone.self, from: bytes) }
            #expect(error?.objectIndex == 1)
        }
        var d = PlistDictionary()
        d["$class"] = H.uid(2)
        d["NS.name"] = H.uid(3)
        d["NS.data"] = H.uid(4)
        let bytes = try H.bytes(["$null", .dictionary(d), H.classEntry("NSTimeZone"), "GMT", .integer(5)])
        let error = expectKeyedError(.invalidValue) { try KeyedUnarchiver.unarchivedObject(ofType: ArchivedTimeZone.self, from: bytes) }
        #expect(error?.reason == "NS.data of NSTimeZone is not data")
    }
}
