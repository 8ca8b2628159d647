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
