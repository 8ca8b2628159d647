import ArchiveModel

/// Type encodings parsed at the typedstream's boundary: `ObjCType` (declared in `ArchiveModel`) with its
/// parse errors as ``TypedStreamError``s of the same code.
extension ObjCType {
    /// The types of an encoding string that may hold several (`"iI"`, `"@@"`), in order.
    ///
    /// - Throws: ``TypedStreamError/Code/invalidTypeEncoding`` for an empty or malformed string,
    ///   ``TypedStreamError/Code/depthLimitExceeded`` past `ObjCType.maxNesting`.
    public static func parseList(_ encoding: String) throws(TypedStreamError) -> [ObjCType] {
        try parseList(Array(encoding.utf8))
    }

    /// The one type of an encoding string (`"{CGPoint=dd}"`).
    public static func parse(_ encoding: String) throws(TypedStreamError) -> ObjCType {
        do { return try parseType(encoding) } catch { throw TypedStreamError(error) }
    }

    static func parseList(_ bytes: [UInt8]) throws(TypedStreamError) -> [ObjCType] {
        do { return try parseTypes(bytes) } catch { throw TypedStreamError(error) }
    }
}

extension TypedStreamError {
    /// The typedstream error of a type encoding's parse error: the same code and reason, no offset yet.
    init(_ error: ObjCTypeError) {
        switch error.code {
        case .invalidTypeEncoding: self.init(.invalidTypeEncoding, error.reason)
        case .depthLimitExceeded: self.init(.depthLimitExceeded, error.reason)
        }
    }
}
