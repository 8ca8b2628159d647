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

    /// A class dictionary holding `$classname` twice is never matched: it is read in full, as without a memo.
    @Test func aClassDictionaryWithAKeyTwiceIsReadInFull() throws {
        let scratch = KeyedUnarchiver.Scratch(registry: Self.generic)
        let plain = try archive(["Thing", "NSObject"])
        #expect(try chain(plain, scratch) == ["Thing", "NSObject"])
        guard case .dictionary(var top) = try PropertyList.decode(plain), case .array(var objects)? = top["$objects"],
              let classIndex = objects.firstIndex(where: { $0.dictionaryValue?["$classname"] != nil }),
              case .dictionary(let classDictionary) = objects[classIndex] else {
            Issue.record("unexpected archive shape")
            return
        }
        var entries = classDictionary.entries
        entries.append(PlistDictionary.Entry(key: .string("$classname"), value: .string("Other")))
        objects[classIndex] = .dictionary(PlistDictionary(entries: entries))
        top["$objects"] = .array(objects)
        let twice = try PropertyList.encode(.dictionary(top))
        let fresh = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: twice, registry: Self.generic,
                                                         requiresSecureCoding: false)?.classChain
        #expect(try chain(twice, scratch) == fresh)
    }
}
