import BinaryPlist
import KeyedArchive
import Testing
import TypedStream

/// `NSNumber` and `NSValue`, coded by their files in `ArchiveModel`: the exact bytes of both formats, the
/// values read back, and the errors (code, offset) of the typedstream reading.
@Suite("NSNumber and NSValue in both formats")
struct NumberAndValueTests {
    /// A typedstream's header: streamer version 4, `streamtyped`, system version 1000.
    static let header: [UInt8] = [0x04, 0x0b] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03]
    /// The root `@` group and a new object of `NSNumber` (< `NSValue` < `NSObject`, versions 0).
    static let numberObject: [UInt8] = header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x08] + Array("NSNumber".utf8)
        + [0x00, 0x84, 0x84, 0x07] + Array("NSValue".utf8) + [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85]
    /// The root `@` group and a new object of `NSValue` (< `NSObject`, versions 0).
    static let valueObject: [UInt8] = header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x07] + Array("NSValue".utf8)
        + [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85]

    /// The `*` group (a new shared string), the C string `encoding` (new), the group of that type (a reference
    /// to the same shared string, `reference`), `value` and the end of the object.
    static func typed(_ encoding: String, reference: UInt8, _ value: [UInt8]) -> [UInt8] {
        let n = encoding.utf8.count
        let length: [UInt8] = n < 0x80 ? [UInt8(n)] : [0x81, UInt8(n & 0xff), UInt8(n >> 8)]
        return [0x84, 0x01, 0x2a, 0x84, 0x84] + length + Array(encoding.utf8) + [reference] + value + [0x86]
    }

    static func typedStream(_ value: Any) throws -> [UInt8] {
        try TypedStreamArchiver.archivedData(withRootObject: value)
    }

    @Test func numbersInTypedStreamsByteForByte() throws {
        // Shared strings: @ NSNumber NSValue NSObject * then the type, the 6th: reference 0x92 + 5.
        #expect(try Self.typedStream(5) == Self.numberObject + Self.typed("q", reference: 0x97, [0x05]))
        #expect(try Self.typedStream(Int64(-300)) == Self.numberObject + Self.typed("q", reference: 0x97, [0x81, 0xd4, 0xfe]))
        #expect(try Self.typedStream(UInt64(7)) == Self.numberObject + Self.typed("q", reference: 0x97, [0x07]))
        #expect(try Self.typedStream(UInt64.max)
                == Self.numberObject + Self.typed("Q", reference: 0x97, [0x87] + [UInt8](repeating: 0xff, count: 8)))
        #expect(try Self.typedStream(2.5)
                == Self.numberObject + Self.typed("d", reference: 0x97, [0x83, 0, 0, 0, 0, 0, 0, 0x04, 0x40]))
        #expect(try Self.typedStream(Float(1.25)) == Self.numberObject + Self.typed("f", reference: 0x97, [0x83, 0, 0, 0xa0, 0x3f]))
        #expect(try Self.typedStream(true) == Self.numberObject + Self.typed("c", reference: 0x97, [0x01]))
    }

    @Test func numbersFromTypedStreamsAsTheirSwiftValues() throws {
        func read(_ bytes: [UInt8]) throws -> Any? { try TypedStreamUnarchiver.unarchiveObject(with: bytes) }
        #expect(try read(Self.numberObject + Self.typed("q", reference: 0x97, [0x05])) as? Int == 5)
        #expect(try read(Self.numberObject + Self.typed("Q", reference: 0x97, [0x87] + [UInt8](repeating: 0xff, count: 8)))
                as? UInt64 == .max)
        #expect(try read(Self.numberObject + Self.typed("i", reference: 0x97, [0x81, 0xd4, 0xfe])) as? Int == -300)
        #expect(try read(Self.numberObject + Self.typed("f", reference: 0x97, [0x83, 0, 0, 0xa0, 0x3f])) as? Double == 1.25)
        #expect(try read(Self.numberObject + Self.typed("c", reference: 0x97, [0x01])) as? Int == 1)
        #expect(try read(Self.numberObject + Self.typed("B", reference: 0x97, [0x01])) as? Bool == true)
    }

    @Test func valuesInTypedStreamsByteForByte() throws {
        // Shared strings: @ NSValue NSObject * then the type, the 5th: reference 0x92 + 4.
        let range = Self.valueObject + Self.typed("{_NSRange=QQ}", reference: 0x96, [0x03, 0x09])
        #expect(try Self.typedStream(ArchivedValue.range(location: 3, length: 9)) == range)
        let point = Self.valueObject + Self.typed("{CGPoint=dd}", reference: 0x96, [0x83, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0xfe])
        #expect(try Self.typedStream(ArchivedValue.point(x: 1.5, y: -2)) == point)
        #expect(try Self.typedStream(ArchivedValue.size(width: 640, height: 480))
                == Self.valueObject + Self.typed("{CGSize=dd}", reference: 0x96, [0x81, 0x80, 0x02, 0x81, 0xe0, 0x01]))
        let rect = Self.valueObject + Self.typed("{CGRect={CGPoint=dd}{CGSize=dd}}", reference: 0x96,
                                                 [0x00, 0x83, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0x0a, 0x14])
        #expect(try Self.typedStream(ArchivedValue.rect(x: 0, y: 0.5, width: 10, height: 20)) == rect)
        let insets = Self.valueObject + Self.typed("{NSEdgeInsets=dddd}", reference: 0x96, [0x01, 0x02, 0x03, 0x04])
        #expect(try Self.typedStream(ArchivedValue.edgeInsets(top: 1, left: 2, bottom: 3, right: 4)) == insets)

        #expect(try TypedStreamUnarchiver.unarchiveObject(with: range) as? ArchivedValue == .range(location: 3, length: 9))
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: point) as? ArchivedValue == .point(x: 1.5, y: -2))
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: rect) as? ArchivedValue == .rect(x: 0, y: 0.5, width: 10, height: 20))
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: insets)
                as? ArchivedValue == .edgeInsets(top: 1, left: 2, bottom: 3, right: 4))
    }

    @Test func valuesOfThe32BitEncodingsRead() throws {
        // NSArchiver on 32-bit Macs: an NSRange of two unsigned ints, an NSPoint of floats.
        let range = Self.valueObject + Self.typed("{_NSRange=II}", reference: 0x96, [0x81, 0x00, 0x01, 0x02])
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: range) as? ArchivedValue == .range(location: 256, length: 2))
        let point = Self.valueObject + Self.typed("{_NSPoint=ff}", reference: 0x96, [0x83, 0, 0, 0xc0, 0x3f, 0x07])
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: point) as? ArchivedValue == .point(x: 1.5, y: 7))
    }

    @Test func aValueOfAnotherTypeIsKeptWhole() throws {
        let bytes = Self.valueObject + Self.typed("{Pair=ii}", reference: 0x96, [0x01, 0x02])
        let registry = ClassRegistry.standard.allowingUnknownClasses()
        let object = try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: registry) as? ArchivedObject)
        #expect(object.classChain == ["NSValue", "NSObject"])
        #expect(object.fields.map(\.key) == [TypedStreamUnarchiver.versionsKey, TypedStreamUnarchiver.typesKey, "$0", "$1", "$2"])
        guard case .value(.array(let types))? = object.fields.first(where: { $0.key == TypedStreamUnarchiver.typesKey })?.value,
              case .value(.string(let encoding))? = object.fields.first(where: { $0.key == "$0" })?.value,
              case .value(.integer(let first))? = object.fields.first(where: { $0.key == "$1" })?.value,
              case .value(.integer(let second))? = object.fields.first(where: { $0.key == "$2" })?.value else {
            Issue.record("fields \(object.fields.map(\.key))")
            return
        }
        #expect(types == [.string("*"), .string("{Pair=ii}")])
        #expect(encoding == "{Pair=ii}")
        #expect(first.intValue == 1 && second.intValue == 2)
    }

    @Test func typedStreamErrorsSayWhereAndWhy() {
        // The "*" group starts at 56 in an NSNumber, at 44 in an NSValue; its C string 3 bytes later.
        let notANumber = typedStreamFailure {
            _ = try TypedStreamUnarchiver.unarchiveObject(with: Self.numberObject + Self.typed("@", reference: 0x97, [0x85]))
        }
        #expect(notANumber?.code == .invalidValue)
        #expect(notANumber?.offset == 56)
        #expect(notANumber?.reason == "an NSNumber of type @")
        #expect(notANumber?.className == "NSNumber")

        let malformed = typedStreamFailure {
            _ = try TypedStreamUnarchiver.unarchiveObject(with: Self.valueObject + Self.typed("{i", reference: 0x96, [0x01]))
        }
        #expect(malformed?.code == .invalidTypeEncoding)
        #expect(malformed?.offset == 47)
        #expect(malformed?.className == "NSValue")

        let deep = String(repeating: "{", count: 65) + String(repeating: "}", count: 65)
        let tooDeep = typedStreamFailure {
            _ = try TypedStreamUnarchiver.unarchiveObject(with: Self.valueObject + Self.typed(deep, reference: 0x96, [0x01]))
        }
        #expect(tooDeep?.code == .depthLimitExceeded)
        #expect(tooDeep?.offset == 47)

        let badBool = typedStreamFailure {
            _ = try TypedStreamUnarchiver.unarchiveObject(with: Self.numberObject + Self.typed("B", reference: 0x97, [0x02]))
        }
        #expect(badBool?.code == .invalidValue)
        #expect(badBool?.offset == 64)
        #expect(badBool?.reason == "a B value is 2, not 0 or 1")
    }

    // MARK: - Keyed archives

    /// The `$objects` of the keyed archive of `value`.
    static func keyedObjects(_ value: Any) throws -> [PlistValue] {
        let bytes = try KeyedArchiver.archivedData(withRootObject: value) as [UInt8]
        guard case .array(let objects)? = try PropertyList.decode(bytes).dictionaryValue?["$objects"] else { return [] }
        return objects
    }

    static let valueClass: PlistValue = ["$classes": ["NSValue", "NSObject"], "$classname": "NSValue"]

    @Test func valuesInKeyedArchivesFieldByField() throws {
        #expect(try Self.keyedObjects(ArchivedValue.range(location: 3, length: 9)) == [
            "$null",
            ["NS.rangeval.length": .uid(PlistUID(2)), "NS.rangeval.location": .uid(PlistUID(3)), "NS.special": 4,
             "$class": .uid(PlistUID(4))],
            9, 3, Self.valueClass,
        ])
        #expect(try Self.keyedObjects(ArchivedValue.point(x: 1.5, y: -2)) == [
            "$null", ["NS.pointval": .uid(PlistUID(2)), "NS.special": 1, "$class": .uid(PlistUID(3))], "{1.5, -2}", Self.valueClass,
        ])
        #expect(try Self.keyedObjects(ArchivedValue.rect(x: 0, y: 0.5, width: 10, height: 20)) == [
            "$null", ["NS.rectval": .uid(PlistUID(2)), "NS.special": 3, "$class": .uid(PlistUID(3))], "{{0, 0.5}, {10, 20}}",
            Self.valueClass,
        ])
        #expect(try Self.keyedObjects(ArchivedValue.edgeInsets(top: 1, left: 2, bottom: 3, right: 4)) == [
            "$null",
            ["NS.edgeval.top": 1.0, "NS.edgeval.left": 2.0, "NS.edgeval.bottom": 3.0, "NS.edgeval.right": 4.0, "NS.special": 12,
             "$class": .uid(PlistUID(2))],
            Self.valueClass,
        ])
        // A range's numbers are the archive's one object of each integer.
        #expect(try Self.keyedObjects([ArchivedValue.range(location: 3, length: 3), 3] as [Any]).filter { $0 == 3 }.count == 1)
    }

    @Test(arguments: [ArchivedValue.range(location: 3, length: 9), .point(x: 1.5, y: -2), .size(width: 640, height: 480),
                      .rect(x: 0, y: 0.5, width: 10, height: 20), .edgeInsets(top: 1, left: 2, bottom: 3, right: 4)])
    func valuesThroughBothFormats(_ value: ArchivedValue) throws {
        let keyed = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: try KeyedArchiver.archivedData(withRootObject: value))
        #expect(keyed as? ArchivedValue == value)
        #expect(try TypedStreamUnarchiver.unarchiveObject(with: try Self.typedStream(value)) as? ArchivedValue == value)
    }

    @Test func numbersInKeyedArchivesAreBare() throws {
        #expect(try Self.keyedObjects([5, 2.5, true, UInt64.max] as [Any]).dropFirst(2).prefix(4)
                == [5, 2.5, true, .integer(PlistInteger(UInt64.max))])
    }

    @Test func keyedErrorsOfNumbersAndValues() throws {
        func failure(_ objects: [PlistValue]) -> KeyedArchiveError? {
            do {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: try PropertyList.encode(.dictionary([
                    "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": ["root": .uid(PlistUID(1))], "$objects": .array(objects),
                ])))
                Issue.record("no error was thrown")
                return nil
            } catch let error as KeyedArchiveError {
                return error
            } catch {
                Issue.record("\(error)")
                return nil
            }
        }
        let number = failure(["$null", ["$class": .uid(PlistUID(2))], ["$classes": ["NSNumber", "NSObject"], "$classname": "NSNumber"]])
        #expect(number?.code == .invalidValue)
        #expect(number?.reason == "NSNumber stored as a dictionary is not supported")
        #expect(number?.objectIndex == 1)
        let special = failure(["$null", ["NS.special": "one", "$class": .uid(PlistUID(2))], Self.valueClass])
        #expect(special?.reason == "NS.special is not an integer")
        let point = failure(["$null", ["NS.special": 1, "NS.pointval": .uid(PlistUID(3)), "$class": .uid(PlistUID(2))],
                             Self.valueClass, "{1}"])
        #expect(point?.reason == "NS.pointval \"{1}\" does not hold 2 numbers")
        #expect(point?.objectIndex == 1)
        let range = failure(["$null", ["NS.special": 4, "NS.rangeval.location": 1.5, "NS.rangeval.length": 1,
                                       "$class": .uid(PlistUID(2))], Self.valueClass])
        #expect(range?.reason == "NSRange location/length are not integers")
    }
}
