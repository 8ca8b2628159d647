import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSUUID` (`NS.uuidbytes`, 16 bytes), as `UUID`.
extension KeyedUnarchiver {
    /// An `NSUUID` object: its 16 `NS.uuidbytes`.
    func decodeNSUUID(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        guard case .other(.data(let b))? = try rawField("NS.uuidbytes") else {
            throw invalid("NSUUID without NS.uuidbytes data")
        }
        guard b.count == 16 else { throw invalid("NS.uuidbytes holds \(b.count) bytes, not 16") }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                           b[13], b[14], b[15]))
    }
}

extension KeyedArchiver {
    /// An `NSUUID` object (`NS.uuidbytes`).
    func uuidObject(_ uuid: UUID) -> Int32 {
        withObjectFrame(classUID: { classObject(.uuid) }) {
            let u = uuid.uuid
            let bytes: [UInt8] = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
            addField(keyNode("NS.uuidbytes"), state.pointee.builder.data(bytes))
        }
    }
}
