// libFuzzer entry for the plist-JSON reader: parsing, then round trips through every writer (see
// FuzzSupport.swift), plist-JSON rendering included.
import BinaryPlist
import ArchiveInspection

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let value = plistErrorOrValue("PlistJSON.parse", { try PlistJSON.parse(input) }) else { return 0 }
    checkRoundTrips(value)
    return 0
}
