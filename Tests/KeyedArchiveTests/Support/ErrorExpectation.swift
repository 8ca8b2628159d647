import BinaryPlist
import KeyedArchive
import Testing

/// Expects `body` to throw a ``KeyedArchiveError`` with `code`; returns it for further checks.
@discardableResult
func expectKeyedError<R>(_ code: KeyedArchiveError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                         _ body: () throws -> R) -> KeyedArchiveError? {
    let error = #expect(throws: KeyedArchiveError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

/// Expects `body` to throw archive-JSON's error: a ``PlistError`` with code `invalidJSON` and format
/// `archive-json`; returns it for further checks.
@discardableResult
func expectArchiveJSONError<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) -> PlistError? {
    let error = #expect(throws: PlistError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == .invalidJSON, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.format == "archive-json", "\(String(describing: error))", sourceLocation: sourceLocation)
    return error
}
