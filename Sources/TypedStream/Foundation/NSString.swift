import ArchiveModel
import BinaryPlist

/// `NSString` / `NSMutableString` (version 1): one `+` group, the characters in UTF-8, as `String`.
extension TypedStreamUnarchiver {
    func decodeNSString() throws -> String {
        _ = try expectGroup([.bytes])
        let start = scanner.position
        let bytes = try scanner.unsharedString(head: try scanner.readByte(), at: start)
        // ASCII (most strings) is UTF-8 already: no second pass to validate.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let string = validUTF8String(Array(bytes)) else {
            throw error(.invalidValue, "the characters of an NSString are not UTF-8", at: start)
        }
        return string
    }
}

extension TypedStreamArchiver {
    func writeNSString(_ string: String, as foundation: StandardClass = .string, identity: AnyObject? = nil) {
        writeNewObject(foundation, identity: identity) {
            writeGroupHeader("+")
            writer.unsharedString(Array(string.utf8))
        }
    }
}
