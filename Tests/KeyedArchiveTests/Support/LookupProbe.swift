@testable import KeyedArchive

/// Reads `kind`, then `x` (kind 0) or `y` (otherwise), then `note`, then whether there is an `x`: the key
/// lookups of objects of one class that ask for other keys depending on what they read.
final class LookupProbe: KeyedArchivable {
    static var archivedClassName: String { "Reading" }
    var kind = 0
    var x = 0.0
    var y: String?
    var note: String?
    var hasX = false
    init(coder: KeyedUnarchiver) throws {
        kind = try coder.decode(Int.self, forKey: "kind")
        if kind == 0 { x = try coder.decode(Double.self, forKey: "x") } else { y = try coder.decodeIfPresent(String.self, forKey: "y") }
        note = try coder.decodeIfPresent(String.self, forKey: "note")
        hasX = try coder.containsValue(forKey: "x")
    }
    func encode(with coder: KeyedArchiver) {}

    /// What the object read, to compare two reads of one archive.
    var summary: String { "\(kind) \(x) \(y ?? "-") \(note ?? "-") \(hasX)" }
}
