// libFuzzer entry for the XML plist reader: decoding, agreement with format detection, then round trips
// through every writer (see FuzzSupport.swift); and the one-pass reading into binary plist objects (the path
// keyed archives in XML take) must give the same value, or the same error.
import BinaryPlist

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    let tree = Result { try XMLPlistReader().decode(input) }
    let table = Result { try XMLPlistReader().binaryDocument(input).decodeTopObject() }
    switch (tree, table) {
    case (.success(let a), .success(let b)):
        if a != b { finding("binaryDocument read \(b), the tree reader \(a)") }
    case (.failure(let a), .failure(let b)):
        guard let a = a as? PlistError, let b = b as? PlistError else { finding("errors not PlistError: \(a), \(b)") }
        if a != b { finding("binaryDocument failed with \(b), the tree reader with \(a)") }
    case (.success(let a), .failure(let b)):
        finding("binaryDocument failed with \(b) where the tree reader read \(a)")
    case (.failure(let a), .success(let b)):
        finding("binaryDocument read \(b) where the tree reader failed with \(a)")
    }
    guard let value = plistErrorOrValue("XMLPlistReader.decode", { try tree.get() }) else {
        return 0
    }
    checkDetection(input, value, .xml)
    checkRoundTrips(value)
    return 0
}
