/// The `$archiver` names a reader accepts.
///
/// An archive names the archiver class that wrote it. Apple's `NSKeyedArchiver` writes "NSKeyedArchiver",
/// but subclasses write their own name: Sketch documents say "MSArchiver". By default every reader here
/// accepts only "NSKeyedArchiver", as `NSKeyedUnarchiver` does, and refuses any other name with a
/// ``KeyedArchiveError/Code/foreignArchiver`` error that names it. Pass a set of names, or ``any``, to read
/// such archives:
///
/// ```swift
/// let sketch = try KeyedUnarchiver.unarchivedObject(
///     ofType: ArchivedObject.self, from: bytes, registry: .standard.allowingUnknownClasses(),
///     acceptedArchivers: ["NSKeyedArchiver", "MSArchiver"])
/// let graph = try ArchiveGraph(bytes: bytes, acceptedArchivers: .any)
/// graph.archiver   // "MSArchiver"
/// ```
///
/// A missing or non-string `$archiver` is refused whatever the names (``KeyedArchiveError/Code/invalidHeader``).
///
/// Mirrors the `$archiver` check of `NSKeyedUnarchiver`, which accepts only "NSKeyedArchiver" ("Unknown
/// archiver. The data may be corrupt."); accepting other names has no Apple counterpart.
public struct AcceptedArchivers: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case names(Set<String>)
        case any
    }

    private let storage: Storage
    /// Whether "NSKeyedArchiver" is accepted, decided once: nearly every archive names it, and asking the set
    /// hashes the name each time.
    private let acceptsNSKeyedArchiver: Bool

    /// Exactly these names (include "NSKeyedArchiver" to keep reading Apple's own archives).
    public init(_ names: some Sequence<String>) {
        let names = Set(names)
        storage = .names(names)
        acceptsNSKeyedArchiver = names.contains(Self.nsKeyedArchiverName)
    }

    /// Exactly these names: `["NSKeyedArchiver", "MSArchiver"]`.
    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// Only "NSKeyedArchiver", as `NSKeyedUnarchiver`: the default of every reader.
    public static let nsKeyedArchiver = AcceptedArchivers(["NSKeyedArchiver"])

    /// Any archiver name (it must still be a string).
    public static let any = AcceptedArchivers(storage: .any)

    private init(storage: Storage) {
        self.storage = storage
        acceptsNSKeyedArchiver = true
    }

    private static let nsKeyedArchiverName = "NSKeyedArchiver"

    /// Whether an archive whose `$archiver` is `name` is read.
    public func accepts(_ name: String) -> Bool {
        // A string of at most 15 UTF-8 bytes is compared without hashing.
        if name == Self.nsKeyedArchiverName { return acceptsNSKeyedArchiver }
        return switch storage {
        case .any: true
        case .names(let names): names.contains(name)
        }
    }

    /// What a refusal says after the name: `not "NSKeyedArchiver"`, `not one of "A", "B"`.
    var refusal: String {
        guard case .names(let names) = storage else { return "accepted" }
        switch names.count {
        case 0: return "and no archiver name is accepted"
        case 1: return "not " + description
        default: return "not one of " + description
        }
    }

    /// `any`, or the names sorted and quoted (`"MSArchiver", "NSKeyedArchiver"`), for messages.
    public var description: String {
        switch storage {
        case .any: "any"
        case .names(let names): names.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        }
    }
}
