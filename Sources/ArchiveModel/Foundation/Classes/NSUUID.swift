#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSUUID`, as `UUID`: in keyed archives its 16 bytes inline in `NS.uuidbytes`. No typedstream form: Apple's
/// `NSUUID` came after `NSArchiver` and has none.
///
/// Mirrors `NSUUID` (`__NSConcreteUUID`) and its `encode(with:)` / `init(coder:)`.
package enum NSUUIDClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.uuid, "NSUUID", privateNames: ["__NSConcreteUUID"], typedStreamVersions: nil,
                            valueType: UUID.self, kind: .uuid),
    ]

    /// An `NSUUID` object: its 16 `NS.uuidbytes`.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        guard case .other(.data(let b))? = try r.rawField("NS.uuidbytes") else {
            throw r.invalidValue("NSUUID without NS.uuidbytes data")
        }
        guard b.count == 16 else { throw r.invalidValue("NS.uuidbytes holds \(b.count) bytes, not 16") }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                           b[13], b[14], b[15]))
    }

    /// An `NSUUID` object (`NS.uuidbytes`).
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed uuid: UUID, to w: W) -> Int32 {
        w.writeObject(of: .uuid) {
            let u = uuid.uuid
            let bytes: [UInt8] = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
            w.setData(bytes, forRawKey: "NS.uuidbytes")
        }
    }
}
