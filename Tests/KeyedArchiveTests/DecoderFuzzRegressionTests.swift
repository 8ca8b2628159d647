import Foundation
import KeyedArchive
import Testing

/// The model of the `decoder` fuzz target (`Fuzz/ArchiveDecoderFuzz.swift`).
private struct FuzzPoint: Codable, Equatable {
    var x: Double
    var y: Double
}

private struct FuzzDrawing: Codable, Equatable {
    var name: String
    var points: [FuzzPoint]
    var tags: [String: Int]
    var created: Date?
    var payload: Data?
    var children: [FuzzDrawing]?
}

/// A chain of `levels` drawings, each the only child of the one above.
private func chain(_ levels: Int) -> FuzzDrawing {
    var node = FuzzDrawing(name: "leaf", points: [], tags: [:], created: nil, payload: nil, children: nil)
    for i in 1..<levels { node = FuzzDrawing(name: "n\(i)", points: [], tags: [:], created: nil, payload: nil, children: [node]) }
    return node
}

/// Findings of the `decoder` fuzz target, each with the scenario it stands for.
@Suite struct DecoderFuzzRegressionTests {
    /// Finding (session 6, ASan stack overflow): `ArchiveDecoder` counted only the objects it decoded with
    /// `init(from:)` against `maxDepth`, not the NSArrays between them, so an archive could nest twice as deep
    /// as the limit says (and as `ArchiveEncoder` writes); the fuzz input nests drawings through their
    /// `children` until the stack ran out under AddressSanitizer. Now it is refused at the limit.
    @Test func collectionsBetweenObjectsCountTowardsTheDepthLimit() throws {
        let bytes = [UInt8](try #require(Data(base64Encoded: "YnBsaXN0MDBVJG51bGxUcm9vdFRuYW1lU3RyZWWAAlZwb2ludHNaTlMub2JqZWN0c1F4I7/4AAAAAAAAUXkjf/AAAAAAACBZRnV6elBvaW50WE5TT2JqZWN0ogsMWCRjbGFzc2VzWiRjbGFzc25hbWXSDg8NC1YkY2xhc3OABdMHCREIChKABCMAAAAAAAAAANMHCREVFRKABqIUF1dOU0FycmF5ohkM0g4PGhmAB9IGERgcgANUdGFnc6CgV05TLmtleXNcTlNEaWN0aW9uYXJ5oiMM0g4PJCOACdMQBhEgISaACFhjaGlsZHJlblRsZWFmgAwjP/AAAAAAAAAjQAAAAAAAAADTBwkRLC0SgA6hL9IGETAcgA1RYYAQoTQQARARoTfTIgYRNTgmgA9OU0FycmF5TxBOUy50aW1lI8HNJ+RAAAAAVk5TRGF0ZaI+DNIODz8+gBPSPBE9QYASV3BheWxvYWRDAQIDgBRbRnV6ekRyYXdpbmeiRwzSDg9IR4AV1gIFHztEESsyOkNGSoABAAAAAAAAcoAYoU7SBhFPHIAXoTShN9MiBhFSUyaAGdI8ET1BgBpDAQIDgBvWAgUfO0QRK1FVV1lKgBaiTFvSBhFcHIAK1QIFHykRBB4oXkqAAdEBYK8QHABfAx0TEBYbJyVdSyoxLjkzNkJARUlaUE1UVlhYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctRjZGVmZ2hhYgAIAA4AEwAYAB0AHwAmADEAMwA8AD4ARwBRAFoAXwBmAHEAdgB9AH8AhgCIAJEAmACaAJ0ApQCoAK0ArwC0ALYAuwC8AL0AxQDSANUA2gDcAOMA5QDuAPMA9QD+AQcBDgEQARIBFwEZABsBHQEfASEBIwElASwBLgE2AT4BRwFOAVEBVgFYAV0BXwFnAWsBbQF5AXwBgQGDAZABkgGZAZsBnQGiAaQBpgGoAa8BsQG2AbgBvAG+AcsBzQHQAdUB1wHiAeQB5wIGAg8CGQIeAicCLAI+AAAAAAAAAgEAAAAAAAAAagAAAAAAAABpAAAAAAAAAkc=")))
        let error = #expect(throws: DecodingError.self) { try ArchiveDecoder().decode(FuzzDrawing.self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.hasSuffix("objects nest deeper than 512"))
        // A key and an index for each drawing and its children array: one path entry a level, at most 512.
        #expect(context.codingPath.count <= 512)
    }

    /// What the encoder writes at its limit reads back; one level more is refused on both sides, with the
    /// drawings and the arrays between them counted alike.
    @Test func theDecoderAcceptsWhatTheEncoderWritesAtTheLimitAndNoMore() throws {
        // 256 drawings and 255 arrays between them: 511 levels.
        let deepest = chain(256)
        let bytes = try ArchiveEncoder().encode(deepest)
        #expect(try ArchiveDecoder().decode(FuzzDrawing.self, from: bytes) == deepest)
        var decoder = ArchiveDecoder()
        decoder.maxDepth = 510
        let error = #expect(throws: DecodingError.self) { try decoder.decode(FuzzDrawing.self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.hasSuffix("objects nest deeper than 510"))
        #expect(throws: EncodingError.self) { try ArchiveEncoder().encode(chain(258)) }
    }
}
