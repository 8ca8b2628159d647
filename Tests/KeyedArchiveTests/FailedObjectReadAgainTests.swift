import KeyedArchive
import Testing

/// As `Failing` (in `DecodingFrameTests`), through the substituting path: `awakeAfter(using:)` is never reached.
private final class FailingSubstitute: Failing, KeyedArchiveSubstituting {
    override class var archivedClassName: String { "FailingSubstitute" }
}

/// Holds one object under two keys (one UID in the archive): reads `first` and keeps its error, then
/// `second`, and keeps that error too.
private final class AsksTwice<Child: KeyedArchivable>: KeyedArchivable {
    static var archivedClassName: String { "AsksTwice" }
    let shared: Child?
    var errors: [KeyedArchiveError] = []
    var after = 0.0
    init(_ shared: Child) { self.shared = shared }
    init(coder: KeyedUnarchiver) throws {
        shared = nil
        for key in ["first", "second"] {
            do {
                _ = try coder.decodeIfPresent(Child.self, forKey: key)
            } catch let error as KeyedArchiveError {
                errors.append(error)
            }
        }
        after = try coder.decode(Double.self, forKey: "after")
    }
    func encode(with coder: KeyedArchiver) {
        if let shared {
            coder.encode(shared, forKey: "first")
            coder.encode(shared, forKey: "second")
        }
        coder.encode(4.5, forKey: "after")
    }
}

/// A class whose `init(from:)` always throws.
private final class RefusingCodable: Codable {
    init() {}
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "refused on purpose"))
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(7.5, forKey: .inner)
    }
    private enum CodingKeys: String, CodingKey { case inner }
}

/// One `RefusingCodable` instance under two keys: both reads' errors are kept.
private struct CodableAsksTwice: Codable {
    var first: RefusingCodable?
    var second: RefusingCodable?
    var errors: [String] = []
    init(_ shared: RefusingCodable) { first = shared; second = shared }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        for key in [CodingKeys.first, .second] {
            do {
                _ = try c.decode(RefusingCodable.self, forKey: key)
            } catch let DecodingError.dataCorrupted(context) {
                errors.append(context.debugDescription)
            }
        }
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(first, forKey: .first)
        try c.encode(second, forKey: .second)
    }
    private enum CodingKeys: String, CodingKey { case first, second }
}

/// An object whose initializer threw is no longer "being decoded": a caller that catches the error and reads
/// the same object again (a second reference to its UID) gets the object's own error again, not a cycle error.
@Suite struct FailedObjectReadAgainTests {
    @Test func aCustomObjectReadAgainAfterItThrewGivesItsOwnErrorAgain() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: AsksTwice(Failing()))
        let registry = ClassRegistry([AsksTwice<Failing>.self, Failing.self])
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: AsksTwice<Failing>.self, from: bytes,
                                                                     registry: registry))
        #expect(back.errors.map(\.code) == [.invalidValue, .invalidValue])
        #expect(back.errors.map(\.reason) == ["refused on purpose", "refused on purpose"])
        #expect(back.after == 4.5)
    }

    @Test func aCustomObjectRefusedForDepthIsRefusedForDepthAgain() throws {
        // The root takes the one level `maxDepth: 1` allows: the shared child is refused before its initializer.
        let bytes = try KeyedArchiver.archivedData(withRootObject: AsksTwice(Failing()))
        let registry = ClassRegistry([AsksTwice<Failing>.self, Failing.self])
        let root = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry, maxDepth: 1) {
            try $0.decodeTopLevelObject(forKey: "root")
        }
        let back = try #require(root as? AsksTwice<Failing>)
        #expect(back.errors.map(\.code) == [.depthLimitExceeded, .depthLimitExceeded])
        #expect(back.errors.map(\.reason) == ["objects nest deeper than 1", "objects nest deeper than 1"])
        #expect(back.after == 4.5)
    }

    @Test func aSubstitutingObjectReadAgainAfterItThrewGivesItsOwnErrorAgain() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: AsksTwice(FailingSubstitute()))
        let registry = ClassRegistry([AsksTwice<FailingSubstitute>.self, FailingSubstitute.self])
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: AsksTwice<FailingSubstitute>.self,
                                                                     from: bytes, registry: registry))
        #expect(back.errors.map(\.code) == [.invalidValue, .invalidValue])
        #expect(back.errors.map(\.reason) == ["refused on purpose", "refused on purpose"])
        #expect(back.after == 4.5)
    }

    @Test func aCodableClassReadAgainAfterItThrewGivesItsOwnErrorAgain() throws {
        let bytes = try ArchiveEncoder().encode(CodableAsksTwice(RefusingCodable()))
        let back = try ArchiveDecoder().decode(CodableAsksTwice.self, from: bytes)
        #expect(back.errors == ["refused on purpose", "refused on purpose"])
    }
}
