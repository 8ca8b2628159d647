import Foundation
import Testing
import TestSupport
import KeyedArchive
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

/// `bytes` read with classes and groups kept (as conversion reads them) and written again: the same groups,
/// the same type encodings, the same classes.
func rewrittenKeepingClasses(_ bytes: [UInt8], registry: ClassRegistry) throws -> [UInt8] {
    let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: registry)
    unarchiver.keepsMutableClasses = true
    let groups = try unarchiver.decodeTopLevelGroups()
    let archiver = TypedStreamArchiver()
    archiver.encodeTopLevelGroups([(TypedStreamUnarchiver.typesKey, .value(.array(groups.types.map { .string($0) })))] + groups.values)
    defer { ArchivedValueTeardown.empty(fields: groups.values) }
    return try archiver.finishEncoding()
}
