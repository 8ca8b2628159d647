// libFuzzer entry for the binary plist reader: validation, the package's random access to single objects, the
// event reader and the tree built on it (the tree against an independent rebuild from the events: same value or
// same error, under default and strict limits), agreement with format detection, then round trips through
// every writer (see FuzzSupport.swift).
import BinaryPlist

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let document = plistErrorOrValue("BinaryPlistDocument.init", { try BinaryPlistDocument(input) }) else {
        return 0
    }
    // The package's random access that the keyed unarchiver uses: every object alone, its references in range.
    document.withObjects { objects in
        for index in 0..<min(objects.objectCount, 512) {
            guard let object = plistErrorOrValue("object(\(index))", { try objects.object(index) }) else { continue }
            let refs: [Int]
            switch object {
            case .scalar: continue
            case .array(let a), .set(let a):
                refs = (0..<a.count).compactMap { try? objects.elementReference(a, $0) }
                guard refs.count == a.count else { finding("array \(index): a reference failed after object() checked them") }
            case .dictionary(let d):
                refs = (0..<d.count).flatMap { [try? objects.keyReference(d, $0), try? objects.valueReference(d, $0)] }.compactMap { $0 }
                guard refs.count == 2 * d.count else { finding("dictionary \(index): a reference failed after object() checked them") }
            }
            guard refs.allSatisfy({ $0 >= 0 && $0 < objects.objectCount }) else { finding("object \(index): reference out of range") }
        }
    }
    checkWalk(document)
    var strict = PlistLimits.default
    strict.stringPolicy = .strict
    strict.maxDepth = 8
    strict.maxElements = 4096
    if let strictDocument = plistErrorOrValue("BinaryPlistDocument.init, strict", { try BinaryPlistDocument(input, limits: strict) }) {
        checkWalk(strictDocument)
    }
    guard let value = plistErrorOrValue("decodeTopObject", { try document.decodeTopObject() }) else { return 0 }
    checkDetection(input, value, .binary)
    checkRoundTrips(value)
    return 0
}
