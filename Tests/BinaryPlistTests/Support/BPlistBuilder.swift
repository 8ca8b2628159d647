import Testing
@testable import BinaryPlist

/// Assembles binary plists by hand, object by object, so tests can break any single field.
struct BPlistBuilder {
    var objects: [[UInt8]] = []
    var offsetWidth = 1
    var referenceWidth = 1
    var topObject: UInt64 = 0
    /// Overrides applied after layout.
    var objectCountOverride: UInt64?
    var tableOffsetOverride: UInt64?
    var offsetOverrides: [Int: UInt64] = [:]

    mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    func build() -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for o in objects {
            offsets.append(UInt64(out.count))
            out += o
        }
        let table = out.count
        for (i, off) in offsets.enumerated() {
            out += bigEndian(offsetOverrides[i] ?? off, width: offsetWidth)
        }
        out += [0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: offsetWidth), UInt8(truncatingIfNeeded: referenceWidth)]
        out += bigEndian(objectCountOverride ?? UInt64(objects.count), width: 8)
        out += bigEndian(topObject, width: 8)
        out += bigEndian(tableOffsetOverride ?? UInt64(table), width: 8)
        return out
    }
}

func bigEndian(_ v: UInt64, width: Int) -> [UInt8] {
    (0..<width).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * (width - 1 - $0))) }
}

/// Decodes and returns the PlistError, or nil when decoding succeeded (so `decodeError(x) == nil` asserts
/// success). Any other error is a failed expectation.
func decodeError(_ bytes: [UInt8], limits: PlistLimits = .default,
                 sourceLocation: SourceLocation = #_sourceLocation) -> PlistError? {
    do {
        _ = try PropertyList.decode(bytes, limits: limits)
        return nil
    } catch let e as PlistError {
        return e
    } catch {
        Issue.record("expected a PlistError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
