import BinaryPlist
import Testing
@testable import KeyedArchive

/// A scratch remembers the class dictionaries its decodes resolved (``ClassMemo``): a later archive of the same
/// names resolves as a first read would, and anything else is read in full.
@Suite("Class memo of a reused unarchiver state")
struct ClassMemoTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    func archive(_ chain: [String], _ value: Int = 1) throws -> [UInt8] {
        try KeyedArchiver.archivedData(withRootObject: ArchivedObject(classChain: chain, fields: [("v", .value(.integer(PlistInteger(value))))]))
    }

    func chain(_ bytes: [UInt8], _ scratch: KeyedUnarchiver.Scratch) throws -> [String]? {
        try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, requiresSecureCoding: false,
                                             scratch: scratch)?.classChain
    }

    @Test func theSameNamesAreMatchedAndAnotherChainOfTheSameClassNameIsNot() throws {
        let scratch = KeyedUnarchiver.Scratch(registry: Self.generic)
        #expect(try chain(archive(["Thing", "NSObject"]), scratch) == ["Thing", "NSObject"])
        #expect(scratch.classMemo.count == 1)
        #expect(try chain(archive(["Thing", "NSObject"], 2), scratch) == ["Thing", "NSObject"])
        #expect(scratch.classMemo.count == 1)   // matched, not remembered again
        // Same $classname, another $classes: read in full, and remembered beside the first.
        #expect(try chain(archive(["Thing", "Base", "NSObject"]), scratch) == ["Thing", "Base", "NSObject"])
        #expect(try chain(archive(["Thing"]), scratch) == ["Thing"])
        #expect(scratch.classMemo.count == 3)
        #expect(try chain(archive(["Thing", "NSObject"]), scratch) == ["Thing", "NSObject"])
        #expect(try chain(archive(["Thing", "Base", "NSObject"]), scratch) == ["Thing", "Base", "NSObject"])
        #expect(scratch.classMemo.count == 3)
    }

    @Test func aNameThatIsNotASCIIIsReadEachTime() throws {
        let scratch = KeyedUnarchiver.Scratch(registry: Self.generic)
        #expect(try chain(archive(["Café", "NSObject"]), scratch) == ["Café", "NSObject"])
        #expect(try chain(archive(["Café", "NSObject"]), scratch) == ["Café", "NSObject"])
        #expect(scratch.classMemo.count == 0)
    }

    /// A scratch resolves with its own registry: a class its registry does not know stays unknown, whatever
    /// another scratch resolved.
    @Test func eachScratchResolvesWithItsOwnRegistry() throws {
        let bytes = try archive(["Thing", "NSObject"])
        let known = KeyedUnarchiver.Scratch(registry: Self.generic)
        let strict = KeyedUnarchiver.Scratch(registry: .standard)
        for _ in 0..<2 {
            #expect(try chain(bytes, known) == ["Thing", "NSObject"])
            let error = #expect(throws: KeyedArchiveError.self) { _ = try chain(bytes, strict) }
            #expect(error?.code == .unknownClass)
        }
        #expect(strict.classMemo.count == 1)   // the unknown class is remembered as unknown
    }

    func hexagon() throws -> [UInt8] {
        let archiver = KeyedArchiver()
        archiver.setClassName("Hexagon", for: Circle.self)
        archiver.encode(Circle(centerX: 0, centerY: 0, radius: 1), forKey: "root")
        return try archiver.finishEncoding()
    }

    /// The registry's contract: the fallback is asked once per class in each archive. A class that reached it is
    /// not remembered, whatever it answered: a fallback that answered nil is asked again for the next archive.
    @Test func aFallbackThatAnsweredNilIsAskedAgainForTheNextArchive() throws {
        let bytes = try hexagon()
        func registry(_ log: FallbackLog) -> ClassRegistry {
            shapeRegistry.resolvingUnknownClasses { name, _ in
                log.withLock { names -> (any ArchivableClass.Type)? in
                    names.append(name)
                    return names.count >= 2 ? Circle.self : nil   // "a plug-in loaded since"
                }
            }
        }
        // Without a scratch: asked once per archive; the second archive decodes.
        let freshLog = FallbackLog()
        let fresh = registry(freshLog)
        #expect(throws: KeyedArchiveError.self) { _ = try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: fresh, requiresSecureCoding: false) }
        let freshSecond = try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, registry: fresh, requiresSecureCoding: false)
        #expect(freshSecond?.radius == 1)
        #expect(freshLog.withLock { $0.count } == 2)
        // With a kept scratch: the same two decodes must end the same way.
        let keptLog = FallbackLog()
        let scratch = KeyedUnarchiver.Scratch(registry: registry(keptLog))
        #expect(throws: KeyedArchiveError.self) { _ = try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, requiresSecureCoding: false, scratch: scratch) }
        let keptSecond = try KeyedUnarchiver.unarchivedObject(ofType: Circle.self, from: bytes, requiresSecureCoding: false, scratch: scratch)
        #expect(keptSecond?.radius == 1)
        #expect(keptLog.withLock { $0.count } == 2)
    }

    /// A Circle's archive, and the same archive with its class dictionary's entries changed by `change`.
    func circleArchive(changingItsClass change: ([PlistDictionary.Entry]) -> [PlistDictionary.Entry]) throws -> (plain: [UInt8], changed: [UInt8]) {
        let plain = try KeyedArchiver.archivedData(withRootObject: Circle(centerX: 0, centerY: 0, radius: 1)) as [UInt8]
        guard case .dictionary(var top) = try PropertyList.decode(plain), case .array(var objects)? = top["$objects"],
              let classIndex = objects.firstIndex(where: { $0.dictionaryValue?["$classname"] != nil }),
              case .dictionary(let classDictionary) = objects[classIndex] else {
            Issue.record("unexpected archive shape")
            return (plain, plain)
        }
        objects[classIndex] = .dictionary(PlistDictionary(entries: change(classDictionary.entries)))
        top["$objects"] = .array(objects)
        return (plain, try PropertyList.encode(.dictionary(top)))
    }

    /// How `changed` decodes fresh and with a scratch that read `plain` before: the root's type or the error's code.
    func outcomes(_ archives: (plain: [UInt8], changed: [UInt8]), registry: ClassRegistry) throws -> (fresh: String, kept: String) {
        let scratch = KeyedUnarchiver.Scratch(registry: registry)
        _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archives.plain, requiresSecureCoding: false, scratch: scratch)
        #expect(scratch.classMemo.count == 1)
        func outcome(_ body: () throws -> Any?) -> String {
            do {
                return try body().map { "\(type(of: $0))" } ?? "nil"
            } catch let error as KeyedArchiveError {
                return "\(error.code)"
            } catch {
                return "\(type(of: error))"
            }
        }
        let fresh = outcome {
            try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archives.changed, registry: registry, requiresSecureCoding: false)
        }
        let kept = outcome {
            try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archives.changed, requiresSecureCoding: false, scratch: scratch)
        }
        return (fresh, kept)
    }

    /// A class dictionary with `$classname` twice whose two names resolve differently (a registered type, an
    /// unknown class; the last one read wins): the kept scratch ends as the fresh decode does.
    @Test func aClassNameTwiceThatResolvesDifferently() throws {
        let archives = try circleArchive { $0 + [PlistDictionary.Entry(key: .string("$classname"), value: .string("Other"))] }
        // The written plist really holds the key twice.
        guard case .dictionary(let top) = try PropertyList.decode(archives.changed), case .array(let objects)? = top["$objects"],
              let classDictionary = objects.first(where: { $0.dictionaryValue?["$classname"] != nil })?.dictionaryValue else {
            Issue.record("unexpected archive shape")
            return
        }
        #expect(classDictionary.entries.filter { $0.key == .string("$classname") }.count == 2)
        let (fresh, kept) = try outcomes(archives, registry: shapeRegistry.allowingUnknownClasses())
        #expect(fresh == "ArchivedObject")
        #expect(kept == fresh)
    }

    /// `$classname` or `$classes` twice, the first bad and the second good: the full read fails on the first,
    /// so the kept scratch fails too (what the memo's guard against a key twice is for).
    @Test(arguments: ["$classname", "$classes"])
    func aBadFirstCopyOfAClassKey(_ key: String) throws {
        let archives = try circleArchive { [PlistDictionary.Entry(key: .string(key), value: .integer(PlistInteger(7)))] + $0 }
        let (fresh, kept) = try outcomes(archives, registry: shapeRegistry.allowingUnknownClasses())
        #expect(fresh == "invalidClass")
        #expect(kept == fresh)
    }
}
