import Foundation
import Testing
import TestSupport
import TypedStream

/// The typedstream error `body` throws; records an issue when it throws none or another kind.
func typedStreamFailure(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> TypedStreamError? {
    do {
        try body()
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as TypedStreamError {
        return error
    } catch {
        Issue.record("\(error) is not a TypedStreamError", sourceLocation: sourceLocation)
        return nil
    }
}

/// The header every Mac writes: version 4, "streamtyped", system version 1000.
let header: [UInt8] = [4, 11] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03]

/// Bytes of a fixture below `Fixtures/typedstream/`.
func typedStreamFixture(_ path: String) throws -> [UInt8] {
    try RepositoryFixtures.bytes("typedstream/" + path)
}
