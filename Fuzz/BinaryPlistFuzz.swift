// libFuzzer entry for the binary plist reader: validation, lazy object access, materialization, the walk's
// agreement with it (same value or same error, under default and strict limits), agreement with format
// detection, then round trips through every writer (see FuzzSupport.swift).
import BinaryPlist

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let document = plistErrorOrValue("BinaryPlistDocument.init", { try BinaryPlistDocument(input) }) else {
        return 0
    }
    // The lazy API the keyed unarchiver uses: every object alone, its references in range.
    for index in 0..<min(document.objectCount, 512) {
        guard let object = plistErrorOrValue("object(\(index))", { try document.object(index) }) else { continue }
        switch object {
        case .scalar: break
        case .array(let refs), .set(let refs):
            guard refs.allSatisfy({ $0 >= 0 && $0 < document.objectCount }) else { finding("reference out of range") }
        case .dictionary(let keys, let values):
            guard keys.count == values.count, (Array(keys) + Array(values)).allSatisfy({ $0 >= 0 && $0 < document.objectCount })
            else { finding("dictionary references out of range") }
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
