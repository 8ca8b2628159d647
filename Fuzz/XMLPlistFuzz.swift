// libFuzzer entry for the XML plist reader: decoding, agreement with format detection, then round trips
// through every writer (see FuzzSupport.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let value = plistErrorOrValue("XMLPlistReader.decode", { try XMLPlistReader().decode(input) }) else {
        return 0
    }
    checkDetection(input, value, .xml)
    checkRoundTrips(value)
    return 0
}
