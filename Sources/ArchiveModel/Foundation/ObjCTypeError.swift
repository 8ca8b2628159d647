/// Why an Objective-C type encoding does not parse: a malformed string or one nested too deep, and a one-line
/// reason. Package-level: a codec gives it to its callers as its own error, with the offset of the encoding
/// in its bytes (`TypedStream` as a `TypedStreamError` of the same code).
///
/// Mirrors the exception `NSGetSizeAndAlignment` raises for an encoding it cannot read.
package struct ObjCTypeError: Error, Sendable, Equatable {
    /// What is wrong with the encoding.
    package enum Code: Sendable, Equatable {
        /// An empty or malformed encoding (`{i`, `[c]`, an unknown type character).
        case invalidTypeEncoding
        /// Structs and arrays nested deeper than ``ObjCType/maxNesting``.
        case depthLimitExceeded
    }

    package var code: Code
    /// One-line reason, the encoding quoted.
    package var reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
