#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSURL` (version 0): a `c` flag (1 when a base URL follows), the base `@`, then the `@` string, as `URL`.
extension TypedStreamUnarchiver {
    func decodeNSURL() throws -> URL {
        let (relative, flagStart) = try decodeInteger(.char)
        var base: URL?
        switch relative {
        case 0: break
        case 1:
            let start = scanner.position
            guard let b = try decodeObject() as? URL else { throw error(.invalidValue, "the base of an NSURL is not a URL", at: start) }
            base = b
        default: throw error(.invalidValue, "an NSURL's relative flag is \(relative), not 0 or 1", at: flagStart)
        }
        let start = scanner.position
        guard let string = try decodePlainObject() as? String else {
            throw error(.invalidValue, "an NSURL without its string", at: start)
        }
        guard let url = URL(string: string, relativeTo: base) else {
            throw error(.invalidValue, "\"\(string)\" is not a URL", at: start)
        }
        return url
    }
}

extension TypedStreamArchiver {
    func writeNSURL(_ url: URL) {
        writeNewObject(.url) {
            writeGroupHeader("c")
            if let base = url.baseURL {
                writer.byte(1)
                encodeObject(base)
                encodeObject(url.relativeString)
            } else {
                writer.byte(0)
                encodeObject(url.absoluteString)
            }
        }
    }
}
