import Foundation
import Testing
import TestSupport
@testable import BinaryPlist

@Suite("Binary plist appender")
struct BinaryPlistAppenderTests {
    /// The object number of the value under `key` in the top dictionary.
    func member(_ document: BinaryPlistDocument, _ key: String) throws -> Int {
        guard case .dictionary(let keys, let values) = try document.object(document.topObject) else {
            throw PlistError(.invalidKey, "the top object is not a dictionary")
        }
        for i in 0..<keys.count where try document.decodeObject(keys[i]) == .string(key) { return values[i] }
        throw PlistError(.invalidKey, "no key \(key)")
    }

    /// `bytes` with `values` appended to the array under "list" of the top dictionary.
    func appending(_ values: [PlistValue], to bytes: [UInt8]) throws -> [UInt8]? {
        let document = try BinaryPlistDocument(bytes)
        let list = try member(document, "list")
        var appender = try BinaryPlistAppender(document)
        var refs = try appender.references(ofArray: list)
        for value in values { refs.append(try appender.append(value)) }
        try appender.replaceArray(list, with: refs)
        return appender.serialize()
    }

    /// A top dictionary with a list among random values; 300 distinct integers make the references two
    /// bytes wide, so that appending a few random values never outgrows them (that case has its own test).
    func base(_ random: inout RandomPlist, listCount: Int) -> PlistValue {
        .dictionary(PlistDictionary([
            (.string("padding"), .array((0..<300).map { .integer(PlistInteger(100_000 + $0)) })),
            (.string("before"), random.value()),
            (.string("list"), .array((0..<listCount).map { _ in random.value() })),
            (.string("after"), random.value()),
        ]))
    }

    func expected(_ value: PlistValue, appending values: [PlistValue]) -> PlistValue {
        guard var d = value.dictionaryValue, let list = d["list"]?.arrayValue else { return value }
        d["list"] = .array(list + values)
        return .dictionary(d)
    }

    @Test("appended values read back after the old ones, and everything else is kept", arguments: 0..<40)
    func appendedValuesFollowTheOldOnes(seed: UInt64) throws {
        var random = RandomPlist(seed: seed, profile: .binary)
        let value = base(&random, listCount: Int(seed % 6))
        let added = (0..<3).map { _ in random.value() }
        let bytes = try BinaryPlistWriter().encode(value)
        let result = try #require(try appending(added, to: bytes))
        #expect(try PropertyList.decode(result) == expected(value, appending: added))
    }

    /// A scalar's value, or a collection's references.
    func shape(_ object: BinaryPlistDocument.Object) -> PlistValue {
        func refs(_ r: BinaryPlistDocument.References) -> PlistValue { .array(r.map { .integer(PlistInteger($0)) }) }
        switch object {
        case .scalar(let value): return value
        case .array(let r): return ["array": refs(r)]
        case .set(let r): return ["set": refs(r)]
        case .dictionary(let keys, let values): return ["keys": refs(keys), "values": refs(values)]
        }
    }

    @Test func existingObjectsKeepTheirNumbersAndValues() throws {
        var random = RandomPlist(seed: 99, profile: .binary)
        let value = base(&random, listCount: 4)
        let bytes = try BinaryPlistWriter().encode(value)
        let old = try BinaryPlistDocument(bytes)
        let new = try BinaryPlistDocument(try #require(try appending([.string("new"), .integer(7)], to: bytes)))
        let list = try member(old, "list")
        #expect(new.objectCount > old.objectCount)
        for index in 0..<old.objectCount where index != list {
            #expect(try shape(new.object(index)) == shape(old.object(index)), "object \(index)")
        }
    }

    @Test func repeatedAppendsStayAppendableAndLeaveNoGarbage() throws {
        var random = RandomPlist(seed: 5, profile: .binary)
        var value = base(&random, listCount: 2)
        var bytes = try BinaryPlistWriter().encode(value)
        for round in 0..<60 {
            let added = [random.value()]
            bytes = try #require(try appending(added, to: bytes), "round \(round)")
            value = expected(value, appending: added)
        }
        #expect(try PropertyList.decode(bytes) == value)
        // The old bytes of each replaced list were dropped: the objects fill the object area exactly.
        let document = try BinaryPlistDocument(bytes)
        let objectBytes = try document.withObjects { objects in
            try (0..<document.objectCount).reduce(0) { $0 + (try objects.extent($1).end - objects.offset($1)) }
        }
        #expect(objectBytes == document.trailer.offsetTableOffset - 8)
    }

    @Test("Foundation reads an appended plist", arguments: 0..<20)
    func foundationReadsTheResult(seed: UInt64) throws {
        var random = RandomPlist(seed: 1_000 + seed, profile: .foundation)
        let value = base(&random, listCount: 3)
        let added = (0..<4).map { _ in random.value() }
        let result = try #require(try appending(added, to: try BinaryPlistWriter().encode(value)))
        let object = try PropertyListSerialization.propertyList(from: Data(result), options: [], format: nil)
        #expect(try FoundationBridge.plistValue(object) == expected(value, appending: added))
    }

    @Test func appendsToAPlistWrittenByFoundation() throws {
        let value: PlistValue = ["before": "x", "list": [1, "two", 3.5], "after": ["nested": true]]
        let data = try PropertyListSerialization.data(
            fromPropertyList: try FoundationBridge.object(value), format: .binary, options: 0)
        let result = try #require(try appending(["four", 5], to: [UInt8](data)))
        #expect(try PropertyList.decode(result) == expected(value, appending: ["four", 5]))
    }

    @Test func everyReadableBinaryFixtureSurvivesAnAppenderThatChangesNothing() throws {
        var accepted = 0
        var refused = 0
        for file in RepositoryFixtures.dataFiles(under: "bplist") + RepositoryFixtures.dataFiles(under: "keyed") {
            let bytes = try RepositoryFixtures.bytes(file)
            guard PropertyList.detectFormat(bytes) == .binary, let document = try? BinaryPlistDocument(bytes),
                  let original = try? document.decodeTopObject()
            else { continue }
            do {
                let appender = try BinaryPlistAppender(document)
                let result = try #require(appender.serialize(), "\(file)")
                #expect(try PropertyList.decode(result) == original, "\(file)")
                accepted += 1
            } catch let error as PlistError {
                // Out-of-order or overlapping objects, which only hand-made files have: refused, not misread.
                #expect(error.code == .unsupportedValue || error.code == .invalidMarker, "\(file): \(error)")
                refused += 1
            }
        }
        #expect(accepted >= 100)
        #expect(refused <= accepted / 10)
    }

    @Test func refusesObjectsOutOfNumberOrder() throws {
        var b = BPlistBuilder()
        _ = b.add([0xA2, 1, 2])  // [1, 2]
        _ = b.add([0x10, 1])
        _ = b.add([0x10, 2])
        b.offsetOverrides = [1: 13, 2: 11]  // object 2 laid out before object 1
        let error = #expect(throws: PlistError.self) { try BinaryPlistAppender(BinaryPlistDocument(b.build())) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.objectIndex == 2)
    }

    @Test func refusesAnObjectInsideTheOneBeforeIt() throws {
        var b = BPlistBuilder()
        _ = b.add([0xA1, 1])  // [1]
        _ = b.add([0x53] + Array("abc".utf8))  // "abc"
        _ = b.add([0x10, 9])
        b.offsetOverrides = [2: 13]  // inside "abc"
        let error = #expect(throws: PlistError.self) { try BinaryPlistAppender(BinaryPlistDocument(b.build())) }
        #expect(error?.code == .unsupportedValue)
    }

    @Test func refusesAReferencePastTheObjects() throws {
        var b = BPlistBuilder()
        _ = b.add([0xA1, 7])  // [#7] in a two-object plist
        _ = b.add([0x10, 1])
        let error = #expect(throws: PlistError.self) { try BinaryPlistAppender(BinaryPlistDocument(b.build())) }
        #expect(error?.code == .invalidReference)
    }

    @Test func refusesToReplaceAnArrayReferencedTwice() throws {
        var b = BPlistBuilder()
        _ = b.add([0xD2, 1, 2, 3, 3])  // {"a": #3, "b": #3}
        _ = b.add([0x51, UInt8(ascii: "a")])
        _ = b.add([0x51, UInt8(ascii: "b")])
        _ = b.add([0xA1, 4])
        _ = b.add([0x10, 1])
        var appender = try BinaryPlistAppender(BinaryPlistDocument(b.build()))
        #expect(appender.referenceCount(of: 3) == 2)
        let error = #expect(throws: PlistError.self) { try appender.replaceArray(3, with: [4, 4]) }
        #expect(error?.code == .unsupportedValue)
    }

    @Test func givesNilWhenTheObjectsOutgrowTheReferenceWidth() throws {
        let value = PlistValue.array((0..<250).map { .integer(PlistInteger($0)) })
        let bytes = try BinaryPlistWriter().encode(value)
        let document = try BinaryPlistDocument(bytes)
        #expect(document.trailer.referenceWidth == 1)
        var appender = try BinaryPlistAppender(document)
        var refs = try appender.references(ofArray: document.topObject)
        for i in 0..<10 { refs.append(try appender.append(.integer(PlistInteger(1_000 + i)))) }
        #expect(throws: Never.self) { try appender.replaceArray(document.topObject, with: refs) }
        #expect(appender.serialize() == nil)
    }

    @Test func equalStringsAndUIDsAreWrittenOnceAndExistingStringsReused() throws {
        let bytes = try BinaryPlistWriter().encode(["list": ["x"]])
        let document = try BinaryPlistDocument(bytes)
        let list = try member(document, "list")
        var appender = try BinaryPlistAppender(document)
        let x = try appender.references(ofArray: list)[0]
        try appender.reuseString(x)
        #expect(try appender.append("x") == x)
        let y = try appender.append("y")
        #expect(try appender.append("y") == y)
        let uid = try appender.append(.uid(PlistUID(3)))
        #expect(try appender.append(.uid(PlistUID(3))) == uid)
        #expect(appender.objectCount == document.objectCount + 2)
        try appender.replaceArray(list, with: [x, y, uid])
        let result = try #require(appender.serialize())
        #expect(try PropertyList.decode(result) == ["list": ["x", "y", .uid(PlistUID(3))]])
    }

    @Test func extendingAnArrayWritesWhatReplacingItWithOldAndNewWrites() throws {
        var random = RandomPlist(seed: 77, profile: .binary)
        let bytes = try BinaryPlistWriter().encode(base(&random, listCount: 5))
        let document = try BinaryPlistDocument(bytes)
        let list = try member(document, "list")
        var replacing = try BinaryPlistAppender(document)
        var extending = try BinaryPlistAppender(document)
        let old = try replacing.references(ofArray: list)
        let a = try replacing.append("new")
        #expect(try extending.append("new") == a)
        try replacing.replaceArray(list, with: old + [a])
        try extending.extendArray(list, with: [a])
        #expect(replacing.serialize() == extending.serialize())
    }

    @Test func theResultIsCheckedObjectByObject() throws {
        var random = RandomPlist(seed: 8, profile: .binary)
        let bytes = try BinaryPlistWriter().encode(base(&random, listCount: 3))
        let document = try BinaryPlistDocument(bytes)
        let list = try member(document, "list")
        var appender = try BinaryPlistAppender(document)
        try appender.extendArray(list, with: [try appender.append("added")])
        let result = try #require(appender.serialize())
        #expect(appender.keepsExistingObjects(result))
        let newDocument = try BinaryPlistDocument(result)
        // A changed byte anywhere in the old objects, in the rewritten list, or in an offset: refused.
        for index in [0, 1, list, document.objectCount - 1] {
            var damaged = result
            damaged[try newDocument.offset(ofObject: index)] ^= 0x01
            #expect(!appender.keepsExistingObjects(damaged), "object \(index)")
        }
        var moved = result
        let entry = newDocument.trailer.offsetTableOffset + 2 * newDocument.trailer.offsetWidth + newDocument.trailer.offsetWidth - 1
        moved[entry] &+= 1
        #expect(!appender.keepsExistingObjects(moved))
    }

    @Test func largestUIDIsTheLargestAmongTheObjects() throws {
        let none = try BinaryPlistAppender(BinaryPlistDocument(BinaryPlistWriter().encode(["a", 1])))
        #expect(none.largestUID == nil)
        let some = try BinaryPlistAppender(BinaryPlistDocument(BinaryPlistWriter().encode(
            [.uid(PlistUID(3)), ["k": .uid(PlistUID(700))], .uid(PlistUID(5))])))
        #expect(some.largestUID == 700)
        var b = BPlistBuilder()
        _ = b.add([0xA2, 1, 2])
        _ = b.add([0x8F] + [UInt8](repeating: 0, count: 7) + [1] + [UInt8](repeating: 0, count: 8))  // 2^64
        _ = b.add([0x80, 9])
        #expect(try BinaryPlistAppender(BinaryPlistDocument(b.build())).largestUID == .max)
    }

    @Test func onlyStringsWrittenAsASCIIAreUsedAgain() throws {
        let bytes = try BinaryPlistWriter().encode(["list": ["caf\u{E9}", "plain"]])
        let document = try BinaryPlistDocument(bytes)
        var appender = try BinaryPlistAppender(document)
        let refs = try appender.references(ofArray: try member(document, "list"))
        for ref in refs { try appender.reuseString(ref) }
        #expect(try appender.append("plain") == refs[1])
        let accented = try appender.append("caf\u{E9}")
        #expect(accented != refs[0] && accented >= document.objectCount)
        #expect(try appender.append("cafe\u{301}") != accented)
    }
}
