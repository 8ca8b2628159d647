import Testing
@testable import BinaryPlist

/// The one object accessor: views of one object at a time, errors with the object and the byte.
@Suite("Binary plist objects")
struct BinaryPlistObjectsTests {
    /// `{"a": [1, "b"], "c": UID 7, "d": 2.5}` as this package writes it.
    static let sample: [UInt8] = {
        let value: PlistValue = .dictionary(PlistDictionary(entries: [
            .init(key: "a", value: .array([.integer(PlistInteger(1)), .string("b")])),
            .init(key: "c", value: .uid(PlistUID(7))),
            .init(key: "d", value: .real(2.5)),
        ]))
        return (try? PropertyList.encode(value, format: .binary)) ?? []
    }()

    /// Found by the `decoder` fuzz target (session 6): `string(_:)` took a UTF-16 string (marker `0x6n`)
    /// for ASCII, reading its count of UTF-16 units as bytes, so "é" read as "\0" and "kא" as "\0k"; every
    /// non-ASCII string `ArchiveDecoder` read came back wrong.
    @Test func aUTF16StringIsNotReadAsASCII() throws {
        for text in ["é", "kא", "k\u{80}\u{02}", "😀 emoji", "plain"] {
            let bytes = try PropertyList.encode(.array([.string(text)]), format: .binary)
            let read = try BinaryPlistDocument(bytes).withObjects { objects -> String? in
                guard case .array(let array) = try objects.value(objects.topObject) else { return nil }
                return try objects.string(objects.elementReference(array, 0))
            }
            #expect(read == text)
        }
    }

    @Test func viewsReadOneObjectAtATime() throws {
        let document = try BinaryPlistDocument(Self.sample)
        let found: [String] = try document.withObjects { objects in
            guard case .dictionary(let top) = try objects.value(objects.topObject) else { return ["not a dictionary"] }
            #expect(top.count == 3)
            var found: [String] = []
            for i in 0..<top.count {
                let key = try #require(try objects.string(objects.keyReference(top, i)))
                let value = try objects.valueReference(top, i)
                switch try objects.value(value) {
                case .array(let array):
                    #expect(array.count == 2)
                    guard case .integer(let one) = try objects.value(objects.elementReference(array, 0)) else {
                        Issue.record("element 0 is not an integer"); continue
                    }
                    #expect(one == PlistInteger(1))
                    #expect(try objects.string(objects.elementReference(array, 1)) == "b")
                    found.append("\(key)=array")
                case .uid(let uid): found.append("\(key)=uid \(uid)")
                case .real(let real): found.append("\(key)=\(real)")
                default: found.append("\(key)=?")
                }
                let bytes = Array(key.utf8)
                #expect(try bytes.withUnsafeBufferPointer { try objects.isString(objects.keyReference(top, i), equalTo: $0) })
            }
            return found
        }
        #expect(found == ["a=array", "c=uid 7", "d=2.5"])
    }

    @Test func aReferenceOutOfRangeNamesItsByte() throws {
        var bytes = Self.sample
        let document = try BinaryPlistDocument(bytes)
        // The top dictionary's first key reference, one byte wide here, made to point past the objects.
        let position = try document.offset(ofObject: document.topObject) + 1
        #expect(document.trailer.referenceWidth == 1)
        bytes[position] = UInt8(document.objectCount)
        let broken = try BinaryPlistDocument(bytes)
        let error = #expect(throws: PlistError.self) {
            try broken.withObjects { objects throws(PlistError) in
                guard case .dictionary(let top) = try objects.value(objects.topObject) else { return }
                _ = try objects.keyReference(top, 0)
            }
        }
        #expect(error?.code == .invalidReference)
        #expect(error?.byteOffset == position)
        #expect(error?.reason == "reference \(document.objectCount) is not below the object count \(document.objectCount)")
    }

    @Test func aCountPastTheObjectAreaIsRefusedBeforeAnythingIsRead() throws {
        // An array (0xAF) whose extended count (0x13: an 8-byte integer) claims 2^62 references.
        var bytes = Array("bplist00".utf8) + [0xAF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]
        let table = bytes.count
        bytes.append(8)  // offset of object 0
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let document = try BinaryPlistDocument(bytes)
        let error = #expect(throws: PlistError.self) {
            try document.withObjects { objects throws(PlistError) in _ = try objects.value(0) }
        }
        #expect(error?.code == .invalidCount)
        #expect(error?.objectIndex == 0)
        #expect(error?.byteOffset == 8)
        #expect(error?.reason == "count 2^62 exceeds the 0 bytes left")
    }

    @Test func everyWriterEndsWithTheSameTrailer() throws {
        let document = try BinaryPlistDocument(Self.sample)
        let trailer = BinaryPlistTrailer(objectCount: document.objectCount, topObject: 0,
                                         offsetTableOffset: document.trailer.offsetTableOffset,
                                         referenceWidth: document.trailer.referenceWidth)
        #expect(trailer == document.trailer)
        #expect(trailer.encoded == Array(Self.sample.suffix(32)))
    }

    /// `isString(_:equalTo:)` on strings of 15 bytes or more (marker `0x5F` and a length after it), which it
    /// compares as bytes: equal only to the same bytes, of any length, and a UTF-16 string or a name that is not
    /// ASCII is compared as text.
    @Test func longStringsCompareWithNamesExactly() throws {
        let texts = ["NSKeyedArchiver", String(repeating: "k", count: 16), String(repeating: "long key ", count: 40),
                     "ça c'est une clé assez longue", "fifteen bytes!!"]
        let bytes = try PropertyList.encode(.array(texts.map { PlistValue.string($0) }), format: .binary)
        let names = texts + ["NSKeyedArchives", "NSKeyedArchiverX", "NSKeyedArchive", String(repeating: "k", count: 17),
                             "ca c'est une cle assez longue", ""]
        let answers: [[Bool]] = try BinaryPlistDocument(bytes).withObjects { objects in
            guard case .array(let array) = try objects.value(objects.topObject) else { return [] }
            return try (0..<array.count).map { i in
                let ref = try objects.elementReference(array, i)
                return try names.map { name in try Array(name.utf8).withUnsafeBufferPointer { try objects.isString(ref, equalTo: $0) } }
            }
        }
        #expect(answers.count == texts.count)
        for (i, row) in answers.enumerated() {
            #expect(row == names.map { $0 == texts[i] }, "string \(i)")
        }
    }
}
