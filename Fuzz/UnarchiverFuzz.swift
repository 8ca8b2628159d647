// libFuzzer entry for the keyed unarchiver: arbitrary bytes through `KeyedUnarchiver` with a registry of a few
// sample classes (a value-holding class, a class with a reference to another, a subclass, a class that decodes
// a parent deferred), with and without unknown classes allowed, and secure decoding of a given root type.
// Compiled by Fuzz/run.sh against BinaryPlist and KeyedArchive built as instrumented libraries (public API
// only).
//
// Checks: no trap; every error thrown is a `KeyedArchiveError`; with unknown classes allowed, a decoded root
// archives again and that archive decodes again; a decode with a scratch kept from one input to the next (as a
// store keeps one, with the classes it resolved: its `ClassMemo`) ends as the fresh decode does: the same error
// code, or a root of the same type (and class chain, for an `ArchivedObject`). Leaks (objects kept alive by reference cycles the decode
// made) are reported by LeakSanitizer when run with `-detect_leaks=1`.
import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

func unarchiverFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

final class FuzzStyle: KeyedArchivable {
    var name: String?
    var width: Double = 0
    var tags: [String] = []
    init() {}
    static var archivedClassName: String { "Style" }
    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeIfPresent(String.self, forKey: "name")
        width = try coder.decodeIfPresent(Double.self, forKey: "width") ?? 0
        tags = try coder.decodeIfPresent([String].self, forKey: "tags") ?? []
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(width, forKey: "width")
        coder.encode(tags, forKey: "tags")
    }
}

class FuzzShape: KeyedArchivable {
    var style: FuzzStyle?
    var origin: Int = 0
    required init() {}
    class var archivedClassName: String { "Shape" }
    required init(coder: KeyedUnarchiver) throws {
        style = try coder.decodeIfPresent(FuzzStyle.self, forKey: "style")
        origin = try coder.decodeIfPresent(Int.self, forKey: "origin") ?? 0
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(style, forKey: "style")
        coder.encode(origin, forKey: "origin")
    }
}

final class FuzzCircle: FuzzShape {
    var radius: Double = 0
    override class var archivedClassName: String { "Circle" }
    required init() { super.init() }
    required init(coder: KeyedUnarchiver) throws {
        radius = try coder.decodeIfPresent(Double.self, forKey: "radius") ?? 0
        try super.init(coder: coder)
    }
    override func encode(with coder: KeyedArchiver) {
        super.encode(with: coder)
        coder.encode(radius, forKey: "radius")
    }
}

/// A tree node: children strongly, the parent weakly through a deferred decode (the usual cycle pattern).
final class FuzzNode: KeyedArchivable {
    var name: String = ""
    var children: [FuzzNode] = []
    weak var parent: FuzzNode?
    init() {}
    static var archivedClassName: String { "Node" }
    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeIfPresent(String.self, forKey: "name") ?? ""
        children = try coder.decodeIfPresent([FuzzNode].self, forKey: "children") ?? []
        try coder.decodeDeferred(FuzzNode.self, forKey: "parent") { [weak self] in self?.parent = $0 }
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(children, forKey: "children")
        coder.encodeConditionalObject(parent, forKey: "parent")
    }
}

private let samples: [any KeyedArchivable.Type] = [FuzzStyle.self, FuzzShape.self, FuzzCircle.self, FuzzNode.self]
private let registry = ClassRegistry(samples)
private let generic = registry.allowingUnknownClasses()

/// Runs `body`; an error other than `KeyedArchiveError` is a finding.
private func keyed<R>(_ what: String, _ body: () throws -> R) -> R? {
    do {
        return try body()
    } catch is KeyedArchiveError {
        return nil
    } catch {
        unarchiverFinding("\(what) threw \(type(of: error)): \(error)")
    }
}

/// A registry with a renamed class and a fallback (asked for every class it does not know; it names one type).
private let renaming = registry.renaming("Polygon", to: FuzzShape.self).resolvingUnknownClasses { name, _ in
    name == "Hexagon" ? FuzzCircle.self : nil
}
private let registries = [registry, generic, renaming]
/// Kept from one input to the next, as a store keeps them.
private let scratches = registries.map { KeyedUnarchiver.Scratch(registry: $0) }

/// The objects of an archive as a sorted list, whatever their order: each object's kind and value, a
/// dictionary's sorted keys and its class's name. (The bytes themselves are no fingerprint: a Swift dictionary's
/// order depends on its storage, so two equal graphs may be written in two orders.)
private func objectsFingerprint(_ bytes: [UInt8]) -> String {
    guard case .dictionary(let top)? = try? PropertyList.decode(bytes), case .array(let objects)? = top["$objects"] else {
        return "unreadable"
    }
    func className(_ value: PlistValue?) -> String {
        guard case .uid(let uid)? = value, Int(uid.value) < objects.count,
              case .dictionary(let d) = objects[Int(uid.value)], case .string(let name)? = d["$classname"] else { return "?" }
        return name
    }
    return objects.map { object -> String in
        switch object {
        case .dictionary(let d):
            let keys = d.entries.compactMap(\.key.stringValue).sorted()
            return "d \(className(d["$class"])) \(keys)"
        case .array(let a): return "a \(a.count)"
        default: return "\(object)"
        }
    }.sorted().joined(separator: "|")
}

/// How a decode ended: its error's code, or its root's type and the objects of the archive it writes again (the
/// whole graph: a class resolved otherwise anywhere in it changes them), or the code of the error writing it gives.
private func outcome(_ body: () throws -> Any?) -> String {
    let root: Any?
    do {
        root = try body()
    } catch let error as KeyedArchiveError {
        return "error \(error.code)"
    } catch {
        unarchiverFinding("a decode threw \(type(of: error)): \(error)")
    }
    guard let root else { return "nil" }
    do {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: root)
        return "\(type(of: root)) \(objectsFingerprint(bytes))"
    } catch let error as KeyedArchiveError {
        return "\(type(of: root)), writing it again: \(error.code)"
    } catch {
        unarchiverFinding("re-archiving threw \(type(of: error)): \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))

    // The registry alone, any root.
    _ = keyed("Any, registry") {
        try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: registry, requiresSecureCoding: false)
    }
    // Unknown classes allowed: whatever decodes archives again, and that archive decodes again.
    if let root = keyed("Any, unknown classes", {
        try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: generic, requiresSecureCoding: false)
    }), let root {
        if let again = keyed("re-encoding", { try KeyedArchiver.archivedData(withRootObject: root) as [UInt8] }) {
            _ = keyed("decoding the re-encoding") {
                try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: again, registry: generic, requiresSecureCoding: false)
            }
        }
    }
    // The same decodes with a kept scratch end as the fresh ones.
    for (scratch, classes) in zip(scratches, registries) {
        let fresh = outcome { try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, registry: classes, requiresSecureCoding: false) }
        let kept = outcome { try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: bytes, requiresSecureCoding: false, scratch: scratch) }
        if fresh != kept { unarchiverFinding("with a kept scratch: \(kept), fresh: \(fresh)") }
        // A store's record decode (the root made by its class's initializer directly) ends as the general one,
        // except that a nil root is an error there.
        let general = outcome { try KeyedUnarchiver.unarchivedObject(ofType: FuzzShape.self, from: bytes, registry: classes, requiresSecureCoding: false) }
        let record = outcome { try KeyedUnarchiver.unarchivedRecord(ofType: FuzzShape.self, from: bytes, scratch: scratch) }
        if record != general, !(general == "nil" && record == "error \(KeyedArchiveError.Code.valueNotFound)") {
            unarchiverFinding("as a record: \(record), as an object: \(general)")
        }
    }
    // Secure decoding of given root types.
    _ = keyed("secure Shape") {
        try KeyedUnarchiver.unarchivedObject(ofType: FuzzShape.self, from: bytes, registry: registry, requiresSecureCoding: true)
    }
    _ = keyed("secure Node") {
        try KeyedUnarchiver.unarchivedObject(ofType: FuzzNode.self, from: bytes, registry: registry, requiresSecureCoding: true)
    }
    _ = keyed("secure ArchivedObject") {
        try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: generic, requiresSecureCoding: true)
    }
    _ = keyed("secure [String: Any]") {
        try KeyedUnarchiver.unarchivedDictionary(keysOfType: String.self, objectsOfType: Any.self, from: bytes, registry: generic)
    }
    return 0
}
