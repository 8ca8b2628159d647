// libFuzzer entry for the typedstream reader: arbitrary bytes through `TypedStreamUnarchiver` with a registry
// of one sample class that reads itself (an object, an int and a struct), strict and with unknown classes
// allowed, then through the conversion to a keyed archive. Compiled by Fuzz/run.sh against BinaryPlist,
// KeyedArchive and TypedStream built as instrumented libraries (public API, and the package API conversion
// reads with: classes and groups kept).
//
// Checks: no trap; every error thrown is a `TypedStreamError`; a stream that decodes is written again, its
// classes and groups kept, without an error; that stream decodes again to as many values; and (when no Bool is
// among the values, since a Bool in an NSNumber is written as a BOOL, type c, and reads back as an integer)
// both convert to the same keyed archive, which converts back to a stream that converts to it again.
import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import TypedStream

func typedStreamFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

final class FuzzLabel: KeyedArchivable, TypedStreamCodable {
    var text: String?
    var count: Int32 = 0
    var origin: [Any?] = []
    init() {}
    static var archivedClassName: String { "Label" }
    init(coder: KeyedUnarchiver) throws { text = try coder.decodeIfPresent(String.self, forKey: "text") }
    func encode(with coder: KeyedArchiver) { coder.encode(text, forKey: "text") }
    init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
        text = try coder.decodeObject(of: String.self)
        count = try coder.decodeValue(ofObjCType: "i") as? Int32 ?? 0
        origin = try coder.decodeValue(ofObjCType: "{CGPoint=dd}") as? [Any?] ?? []
    }
    func encode(with coder: TypedStreamArchiver) {
        coder.encodeObject(text)
        coder.encodeValue(count, ofObjCType: "i")
        coder.encodeValue(origin, ofObjCType: "{CGPoint=dd}")
    }
}

private let registry = ClassRegistry([FuzzLabel.self])
private let generic = registry.allowingUnknownClasses()
/// No class registered: every class kept as its groups, which conversion to keyed and back must keep whole
/// (a registered class is written with its own keyed coding, which a typedstream cannot hold).
private let unregistered = ClassRegistry.standard.allowingUnknownClasses()

/// Runs `body`; an error other than `TypedStreamError` is a finding.
private func typed<R>(_ what: String, _ body: () throws -> R) -> R? {
    do {
        return try body()
    } catch is TypedStreamError {
        return nil
    } catch {
        typedStreamFinding("\(what) threw \(type(of: error)): \(error)")
    }
}

private func mustSucceed<R>(_ what: String, _ body: () throws -> R) -> R {
    do {
        return try body()
    } catch {
        typedStreamFinding("\(what) threw \(error)")
    }
}

/// Whether `value` holds a `Bool` anywhere (in collections, attribute runs and unknown-class objects' fields),
/// each object looked into once: a shared graph (a nib) is walked in linear time.
private func containsBool(_ value: Any?) -> Bool {
    var seen: Set<ObjectIdentifier> = []
    return containsBool(value, depth: 0, &seen)
}

private func containsBool(_ value: Any?, depth: Int, _ seen: inout Set<ObjectIdentifier>) -> Bool {
    guard let value, depth < 64 else { return false }
    switch value {
    case is Bool: return true
    case let list as [Any]: return list.contains { containsBool($0, depth: depth + 1, &seen) }
    case let set as Set<AnyHashable>: return set.contains { containsBool($0.base, depth: depth + 1, &seen) }
    case let dictionary as [AnyHashable: Any]:
        return dictionary.contains { containsBool($0.key.base, depth: depth + 1, &seen) || containsBool($0.value, depth: depth + 1, &seen) }
    case let string as ArchivedAttributedString:
        return string.runs.contains { $0.attributes.values.contains { containsBool($0, depth: depth + 1, &seen) } }
    case let object as ArchivedObject:
        guard seen.insert(ObjectIdentifier(object)).inserted else { return false }
        return object.fields.contains { field in
            switch field.value {
            case .value: return false
            case .object(let o): return containsBool(o, depth: depth + 1, &seen)
            case .objects(let list): return list.contains { containsBool($0, depth: depth + 1, &seen) }
            }
        }
    default: return false
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))

    _ = typed("root, registry") { try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: registry) }
    guard let values = typed("all values, unknown classes", {
        try TypedStreamUnarchiver(forReadingWith: bytes, registry: generic).decodeAllValues()
    }) else { return 0 }
    _ = typed("conversion") { try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: generic) }
    // The rewrite: every group with its type encoding, mutable classes kept, as conversion reads the stream.
    guard let groups = typed("groups", { () throws -> [(key: String, value: ArchivedObject.Field)] in
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: generic)
        unarchiver.keepsMutableClasses = true
        let groups = try unarchiver.decodeTopLevelGroups()
        return [(TypedStreamUnarchiver.typesKey, .value(.array(groups.types.map { .string($0) })))] + groups.values
    }) else { return 0 }
    let archiver = TypedStreamArchiver()
    archiver.encodeTopLevelGroups(groups)
    let rewritten = mustSucceed("writing what was read") { try archiver.finishEncoding() }
    ArchivedValueTeardown.empty(fields: groups)
    let again = mustSucceed("reading what was written") {
        try TypedStreamUnarchiver(forReadingWith: rewritten, registry: generic).decodeAllValues()
    }
    if again.count != values.count { typedStreamFinding("\(values.count) values read, \(again.count) after writing them") }
    // A Bool in an NSNumber (type B) is written as Apple writes a BOOL, type c, and reads back as an integer:
    // the keyed archives then differ by design.
    guard !values.contains(where: containsBool) else { return 0 }
    let keyed = typed("conversion of the stream") { try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: generic) }
    let keyedAgain = typed("conversion of the rewrite") { try TypedStreamConversion.keyedArchive(fromTypedStream: rewritten, registry: generic) }
    if (keyed == nil) != (keyedAgain == nil) || keyed != keyedAgain {
        typedStreamFinding("the stream and its rewrite convert to different keyed archives")
    }
    // typedstream -> keyed -> typedstream -> keyed with no class registered: the same keyed archive.
    guard let plain = typed("conversion, no class registered", {
        try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: unregistered)
    }) else { return 0 }
    let back = mustSucceed("converting the keyed archive back") { try TypedStreamConversion.typedStream(fromKeyedArchive: plain) }
    let plainBack = mustSucceed("converting the stream converted back") {
        try TypedStreamConversion.keyedArchive(fromTypedStream: back, registry: unregistered)
    }
    if plainBack != plain { typedStreamFinding("the keyed archive converts back to a stream that converts differently") }
    return 0
}
