import Foundation
import Testing
import BinaryPlist
@testable import KeyedArchive

/// An archiver kept from one archive to the next (`KeyedArchiver.reusable()`) and an unarchiver's state kept
/// in a `KeyedUnarchiver.Scratch` (what a store does for its records) give exactly what new ones give, whatever
/// came before: archives of other types and sizes, shared references, an archive that failed.
@Suite("Reused archiver and unarchiver state")
struct ReusedCoderStateTests {
    /// Roots of many shapes, one after another.
    static func roots() -> [Any?] {
        let (contents, _) = makeContents(count: 50)
        let (small, _) = makeContents(count: 3)
        let shared = Point(x: 1, y: 2)
        return [
            Point(x: 1.5, y: -2), contents, Sampler(), small, ["a", "b", "a"], [shared, shared], nil,
            Date(timeIntervalSinceReferenceDate: 5), Point(x: 3, y: 4), makeContents(count: 400).0, Sampler(),
            ["k": [1, 2, 3], "j": [4]] as [String: [Int]], "only a string", Point(x: 0, y: 0),
        ]
    }

    @Test func aReusedArchiverWritesWhatANewOneWrites() throws {
        let archiver = KeyedArchiver.reusable()
        for pass in 0..<2 {
            for (i, root) in Self.roots().enumerated() {
                let fresh = try KeyedArchiver.archivedData(withRootObject: root) as [UInt8]
                let reused = try KeyedArchiver.archivedData(withRootObject: root, refusingUnreadableValues: true, reusing: archiver)
                #expect(reused == fresh, "pass \(pass), root \(i)")
            }
            // A failed archive (a date the unarchiver refuses) leaves nothing behind for the next one.
            #expect(throws: KeyedArchiveError.self) {
                _ = try KeyedArchiver.archivedData(withRootObject: Date(timeIntervalSinceReferenceDate: .infinity),
                                                   refusingUnreadableValues: true, reusing: archiver)
            }
        }
    }

    /// A reused archiver keeps each type's `$classes` chain from one archive to the next; a class name set
    /// between two archives is written from the next one on, as a new archiver with that name writes it.
    @Test func aClassNameSetBetweenArchivesOfAReusedArchiverIsWritten() throws {
        let archiver = KeyedArchiver.reusable()
        let point = Point(x: 1, y: 2)
        let before = try KeyedArchiver.archivedData(withRootObject: point, refusingUnreadableValues: true, reusing: archiver)
        #expect(before == (try KeyedArchiver.archivedData(withRootObject: point) as [UInt8]))
        archiver.setClassName("RenamedPoint", for: Point.self)
        let after = try KeyedArchiver.archivedData(withRootObject: point, refusingUnreadableValues: true, reusing: archiver)
        let named = KeyedArchiver()
        named.setClassName("RenamedPoint", for: Point.self)
        named.encode(point, forKey: "root")
        #expect(after == (try named.finishEncoding() as [UInt8]))
        guard case .dictionary(let top) = try PropertyList.decode(after), case .array(let objects)? = top["$objects"] else {
            Issue.record("unexpected archive shape")
            return
        }
        let classNames = objects.compactMap { object -> String? in
            guard case .dictionary(let d) = object, case .string(let name)? = d["$classname"] else { return nil }
            return name
        }
        #expect(classNames == ["RenamedPoint"])
    }

    @Test func aScratchDecodesWhatANewUnarchiverDecodes() throws {
        let registry = shapeRegistry.registering(Point.self).registering(Sampler.self)
        let scratch = KeyedUnarchiver.Scratch(registry: registry)
        let archives = try Self.roots().compactMap { $0 }.map { try KeyedArchiver.archivedData(withRootObject: $0) as [UInt8] }
        for pass in 0..<2 {
            for (i, archive) in archives.enumerated() {
                let fresh = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archive, registry: registry,
                                                                requiresSecureCoding: false)
                let reused = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archive, requiresSecureCoding: false,
                                                                 scratch: scratch)
                #expect(describe(reused) == describe(fresh), "pass \(pass), archive \(i)")
            }
            // A decode that fails part way (a point whose x is a string) leaves nothing behind either.
            let bad = try KeyedArchiver.archivedData(withRootObject: Point(x: 1, y: 2)) as [UInt8]
            var value = try PropertyList.decode(bad)
            guard case .dictionary(var top) = value, case .array(var objects)? = top["$objects"],
                  case .dictionary(var point) = objects[1] else { Issue.record("unexpected archive shape"); return }
            point["x"] = .string("one")
            objects[1] = .dictionary(point)
            top["$objects"] = .array(objects)
            value = .dictionary(top)
            let broken = try PropertyList.encode(value)
            let error = #expect(throws: KeyedArchiveError.self) {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: Point.self, from: broken, requiresSecureCoding: false,
                                                         scratch: scratch)
            }
            #expect(error?.code == .typeMismatch)
        }
    }

    private func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let contents = value as? Contents { return "Contents(\(contents.shapes.map { "\(type(of: $0))" }))" }
        if let sampler = value as? Sampler {
            return "Sampler(\(sampler.int), \(sampler.names), \(sampler.scores.sorted { $0.key < $1.key }), \(sampler.date))"
        }
        if let dictionary = value as? [String: Any] { return "\(dictionary.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })" }
        return String(describing: value)
    }
}

/// `DecodingState.reuse(top:objectCount:uidCount:)` sets each field of a reused state as a new decode starts
/// it, one by one: a field added to the state must be added there too, which this count of the fields recalls.
@Suite("DecodingState fields")
struct DecodingStateFieldsTests {
    @Test func reuseSetsEveryFieldOfTheState() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: "a") as [UInt8]
        let names = try KeyedUnarchiver.withUnarchiver(for: bytes) { unarchiver in
            Mirror(reflecting: unarchiver.state.pointee).children.compactMap(\.label)
        }
        // Each of these is set in `reuse` (the kept tables emptied, the others given their first values).
        #expect(names == ["frame", "instances", "inProgress", "registeredKeys", "valid", "depth", "decodedCount", "keyPath",
                          "pending", "classCache", "keyObjects", "knownKeyObjects", "requestCaches", "requestCacheCount", "keyLookups",
                          "lookupClock", "elementCasts", "requested", "requestLists", "elements", "listSerial",
                          "typesNamingATypes", "allowedRequests", "hooked", "didDecode", "substituted", "hasSubstitutes",
                          "cycles", "fieldKeys", "keepsMutableClasses"])
    }
}
