import ArchiveModel
import BinaryPlist

/// The typedstream unarchiver as the field reader the Foundation classes' files
/// (`ArchiveModel/Foundation/Classes/`) decode with.
extension TypedStreamUnarchiver: StreamFieldReader {
    package var streamOffset: Int { scanner.position }

    package func expectGroup(encoding: String) throws {
        let types: [ObjCType]
        // A date's one group, no parse.
        if encoding == "d" { types = [.double] } else {
            do { types = try ObjCType.parseList(encoding) } catch { throw located(error) }
        }
        _ = try expectGroup(types)
    }

    package func readDouble() throws -> Double { try scanner.readDouble() }

    package func decodeUnsharedBytes() throws -> (bytes: ArraySlice<UInt8>, offset: Int) {
        _ = try expectGroup([.bytes])
        let start = scanner.position
        return (try scanner.unsharedString(head: try scanner.readByte(), at: start), start)
    }

    package func decodeInteger(encoding: String) throws -> (value: Int, offset: Int) {
        try decodeInteger(try integerType(encoding))
    }

    package func decodeIntegers(encoding: String) throws -> [PlistInteger] {
        let requested: [ObjCType]
        // An attributed string's runs: one group each, no parse.
        if encoding == "iI" { requested = [.int, .unsignedInt] } else {
            do { requested = try ObjCType.parseList(encoding) } catch { throw located(error) }
        }
        let types = try expectGroup(requested)
        var values: [PlistInteger] = []
        values.reserveCapacity(types.count)
        for t in types { values.append(try readInteger(t)) }
        return values
    }

    package func decodeCount(encoding: String, of what: String) throws -> Int {
        try decodeCount(try integerType(encoding), of: what)
    }

    /// The type of a one-type encoding; the integer types the Foundation classes count with without a parse.
    private func integerType(_ encoding: String) throws -> ObjCType {
        switch encoding {
        case "i": return .int
        case "I": return .unsignedInt
        case "c": return .char
        default:
            do { return try ObjCType.parse(encoding) } catch { throw located(error) }
        }
    }

    package func decodeTypeEncoding() throws -> (text: String, type: ObjCType) {
        _ = try expectGroup([.cString])
        let start = scanner.position
        guard let text = try readCString() as? String else {
            throw error(.invalidValue, "an NSValue whose type encoding is nil or not text", at: start)
        }
        do throws(TypedStreamError) {
            return (text, try ObjCType.parse(text))
        } catch {
            var e = error
            e.offset = start
            throw located(e)
        }
    }

    package func decodeWholeObject(readTypes: [String], readFields: [(key: String, value: ArchivedObject.Field)]) throws -> Any {
        guard let frame = frames.last else { throw error(.invalidValue, "no object is being decoded") }
        return try decodeGeneric(classes[frame.classIndex], index: frame.index, prefixTypes: readTypes, prefixFields: readFields)
    }

    package func invalidValue(_ reason: String, at offset: Int?) -> any Error { error(.invalidValue, reason, at: offset) }
}

/// The typedstream archiver as the field writer the Foundation classes' files encode with.
extension TypedStreamArchiver: StreamFieldWriter {
    package func writeObject(of standard: StandardClass, identity: AnyObject?, _ body: () -> Void) {
        writeNewObject(standard, identity: identity, body)
    }

    package func writeGroup(encoding: String) { writeGroupHeader(encoding) }
    package func writeRawByte(_ value: UInt8) { writer.byte(value) }
    package func writeRawDouble(_ value: Double) { writer.double(value) }
    package func writeRawFloat(_ value: Float) { writer.float(value) }
    package func writeRawSigned(_ value: Int64) { writer.signed(value) }
    package func writeRawUnsigned(_ value: UInt64) { writer.unsigned(value) }
    package func writeRawUnsharedBytes(_ bytes: [UInt8]) { writer.unsharedString(bytes) }
    package func writeRawCString(_ text: String) { writeCString(text) }

    /// An `i` length and a `[Nc]` array: `encodeDataObject(_:)`'s format.
    package func writeDataObject(_ bytes: [UInt8]) {
        writeGroupHeader("i")
        writer.signed(Int64(bytes.count))
        writeGroupHeader("[\(bytes.count)c]")
        writer.raw(bytes)
    }

    package func encodeString(_ string: String, as standard: StandardClass) {
        writeGroupHeader("@")
        NSStringClass.encode(stream: string, as: standard, to: self)
    }
}
