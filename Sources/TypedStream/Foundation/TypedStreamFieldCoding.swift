import ArchiveModel
import BinaryPlist

/// The typedstream unarchiver as the field reader the Foundation classes' files
/// (`ArchiveModel/Foundation/Classes/`) decode with.
extension TypedStreamUnarchiver: StreamFieldReader {
    package var streamOffset: Int { scanner.position }

    package func expectGroup(encoding: String) throws {
        let types: [ObjCType]
        do { types = try ObjCType.parseList(encoding) } catch { throw located(error) }
        _ = try expectGroup(types)
    }

    package func readDouble() throws -> Double { try scanner.readDouble() }

    package func decodeInteger(encoding: String) throws -> (value: Int, offset: Int) {
        let type: ObjCType
        do { type = try ObjCType.parse(encoding) } catch { throw located(error) }
        return try decodeInteger(type)
    }

    package func decodeIntegers(encoding: String) throws -> [PlistInteger] {
        let requested: [ObjCType]
        do { requested = try ObjCType.parseList(encoding) } catch { throw located(error) }
        let types = try expectGroup(requested)
        var values: [PlistInteger] = []
        values.reserveCapacity(types.count)
        for t in types { values.append(try readInteger(t)) }
        return values
    }

    package func decodeCount(encoding: String, of what: String) throws -> Int {
        let type: ObjCType
        do { type = try ObjCType.parse(encoding) } catch { throw located(error) }
        return try decodeCount(type, of: what)
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
    package func writeRawSigned(_ value: Int64) { writer.signed(value) }
    package func writeRawUnsigned(_ value: UInt64) { writer.unsigned(value) }

    package func encodeString(_ string: String, as standard: StandardClass) {
        writeGroupHeader("@")
        writeNSString(string, as: standard)
    }
}
