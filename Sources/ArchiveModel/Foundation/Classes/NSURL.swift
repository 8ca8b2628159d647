#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSURL`, as `URL`: in keyed archives `NS.base` and `NS.relative`, in typedstreams (version 0) a `c` flag
/// (1 when a base URL follows), the base as a `@` group, then the string as a `@` group.
///
/// Mirrors `NSURL` and its `encode(with:)` / `init(coder:)`.
package enum NSURLClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.url, "NSURL", typedStreamVersions: [0, 0], valueType: URL.self, kind: .url),
    ]

    /// An `NSURL` object: `NS.relative` resolved against `NS.base` when there is one.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        var base: URL?
        if let v = try r.rawField("NS.base") {
            let b = try r.anyValue(v, key: "NS.base")
            if b != nil {
                guard let u = b as? URL else { throw r.invalidValue("NS.base is not a URL") }
                base = u
            }
        }
        guard let v = try r.rawField("NS.relative"), let relative = try r.plainValue(v, key: "NS.relative") as? String
        else { throw r.invalidValue("NSURL without an NS.relative string") }
        guard let url = URL(string: relative, relativeTo: base) else {
            throw r.invalidValue("NS.relative \"\(relative)\" is not a URL")
        }
        return url
    }

    /// An `NSURL` object (`NS.base`, `NS.relative`).
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed url: URL, to w: W) -> Int32 {
        w.writeObject(of: .url) {
            let base = url.baseURL
            w.setObject(base, forRawKey: "NS.base")
            w.setString(base == nil ? url.absoluteString : url.relativeString, forRawKey: "NS.relative")
        }
    }

    /// The flag, the base when the flag says so, and the string.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let (relative, flagStart) = try r.decodeInteger(encoding: "c")
        var base: URL?
        switch relative {
        case 0: break
        case 1:
            let start = r.streamOffset
            guard let b = try r.decodeObject() as? URL else {
                throw r.invalidValue("the base of an NSURL is not a URL", at: start)
            }
            base = b
        default: throw r.invalidValue("an NSURL's relative flag is \(relative), not 0 or 1", at: flagStart)
        }
        let start = r.streamOffset
        guard let string = try r.decodePlainObject() as? String else {
            throw r.invalidValue("an NSURL without its string", at: start)
        }
        guard let url = URL(string: string, relativeTo: base) else {
            throw r.invalidValue("\"\(string)\" is not a URL", at: start)
        }
        return url
    }

    @inlinable
    package static func encode<W: StreamFieldWriter>(stream url: URL, to w: W) {
        w.writeObject(of: .url, identity: nil) {
            w.writeGroup(encoding: "c")
            if let base = url.baseURL {
                w.writeRawByte(1)
                w.encodeObject(base)
                w.encodeObject(url.relativeString)
            } else {
                w.writeRawByte(0)
                w.encodeObject(url.absoluteString)
            }
        }
    }
}
