import KeyedArchive
import Testing

/// Expects `body` to throw a ``KeyedArchiveError`` with `code`; returns it for further checks.
@discardableResult
func expectKeyedError<R>(_ code: KeyedArchiveError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                         _ body: () throws -> R) -> KeyedArchiveError? {
    do {
        _ = try body()
        Issue.record("expected a \(code) error, got success", sourceLocation: sourceLocation)
    } catch let error as KeyedArchiveError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a KeyedArchiveError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
