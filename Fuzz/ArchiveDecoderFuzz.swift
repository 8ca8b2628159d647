// libFuzzer entry for ArchiveDecoder (the Codable bridge): arbitrary bytes decoded as a nested Codable model.
// Errors must be DecodingError, KeyedArchiveError or PlistError; a value that decodes must encode with
// ArchiveEncoder and decode again to an equal value. Compiled by Fuzz/run.sh against BinaryPlist and
// KeyedArchive built as instrumented libraries (public API).
import BinaryPlist
import KeyedArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
struct FuzzPoint: Codable, Equatable {
    var x: Double
    var y: Double
}

struct FuzzDrawing: Codable, Equatable {
    var name: String
    var points: [FuzzPoint]
    var tags: [String: Int]
    var created: Date?
    var payload: Data?
    var children: [FuzzDrawing]?
}

func decoderFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

private func accepted(_ error: any Error) -> Bool {
    error is DecodingError || error is KeyedArchiveError || error is PlistError
}

private func check<T: Codable & Equatable>(_: T.Type, _ bytes: [UInt8]) {
    let value: T
    do {
        value = try ArchiveDecoder().decode(T.self, from: bytes)
    } catch {
        if !accepted(error) { decoderFinding("decode threw \(type(of: error)): \(error)") }
        return
    }
    do {
        let again = try ArchiveDecoder().decode(T.self, from: try ArchiveEncoder().encode(value))
        // NaN never equals itself: compare the re-encoded bytes instead.
        if again != value, try ArchiveEncoder().encode(again) != (try ArchiveEncoder().encode(value)) {
            decoderFinding("a decoded \(T.self) does not survive encode and decode")
        }
    } catch {
        decoderFinding("a decoded \(T.self) does not encode and decode again: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    check(FuzzDrawing.self, bytes)
    check([FuzzPoint].self, bytes)
    check([String: FuzzDrawing].self, bytes)
    return 0
}
