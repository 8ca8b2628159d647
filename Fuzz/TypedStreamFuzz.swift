// libFuzzer entry for the typedstream reader: arbitrary bytes through `TypedStreamUnarchiver` with a registry
// of one sample class that reads itself (an object, an int and a struct), strict and with unknown classes
// allowed, then through the conversion to a keyed archive. Compiled by Fuzz/run.sh against BinaryPlist,
// KeyedArchive and TypedStream built as instrumented libraries (public API only).
//
// Checks: no trap; every error thrown is a `TypedStreamError`; whatever decodes is written again without an
// error, that stream decodes again, and both convert to the same keyed archive.
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))

    _ = typed("root, registry") { try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: registry) }
    guard let values = typed("all values, unknown classes", {
        try TypedStreamUnarchiver(forReadingWith: bytes, registry: generic).decodeAllValues()
    }) else { return 0 }
    let archiver = TypedStreamArchiver()
    for v in values { archiver.encodeObject(v) }
    let rewritten = mustSucceed("writing what was read") { try archiver.finishEncoding() }
    let again = mustSucceed("reading what was written") {
        try TypedStreamUnarchiver(forReadingWith: rewritten, registry: generic).decodeAllValues()
    }
    if again.count != values.count { typedStreamFinding("\(values.count) values read, \(again.count) after writing them") }
    let keyed = typed("conversion") { try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: generic) }
    let keyedAgain = typed("conversion of the rewrite") { try TypedStreamConversion.keyedArchive(fromTypedStream: rewritten, registry: generic) }
    if (keyed == nil) != (keyedAgain == nil) || keyed != keyedAgain {
        typedStreamFinding("the stream and its rewrite convert to different keyed archives")
    }
    return 0
}
