import BinaryPlist

/// Writes a small binary plist without uniquing anything: every string, number and key occurrence is its
/// own object (as some third-party writers do), so the unarchiver cannot rely on key objects being shared.
/// Supports ASCII strings and collections under 256 entries, 64-bit integers, reals and UIDs below 256.
enum NonUniquingWriter {
    static func bytes(_ top: PlistValue) -> [UInt8] {
        var objects: [[UInt8]] = []
        func add(_ value: PlistValue) -> Int {
            let index = objects.count
            objects.append([])
            var out: [UInt8]
            switch value {
            case .string(let s):
                let utf8 = Array(s.utf8)
                out = marker(0x50, utf8.count) + utf8
            case .integer(let i):
                out = [0x13] + bigEndian(UInt64(bitPattern: i.int64Value ?? 0))
            case .real(let d):
                out = [0x23] + bigEndian(d.bitPattern)
            case .uid(let u):
                out = [0x80, UInt8(u.value)]
            case .array(let items):
                let refs = items.map(add)
                out = marker(0xA0, items.count) + refs.map { UInt8($0) }
            case .dictionary(let d):
                let keys = d.entries.map { add($0.key) }
                let values = d.entries.map { add($0.value) }
                out = marker(0xD0, d.count) + (keys + values).map { UInt8($0) }
            default:
                preconditionFailure("unsupported value \(value)")
            }
            objects[index] = out
            return index
        }
        _ = add(top)
        precondition(objects.count < 256)
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(out.count)
            out += o
        }
        let table = out.count
        for o in offsets { out += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 2, 1]
        out += bigEndian(UInt64(objects.count)) + bigEndian(0) + bigEndian(UInt64(table))
        return out
    }

    /// A marker with its count, extended by a one-byte integer from 15 up.
    private static func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
        precondition(count < 256)
        return count < 15 ? [kind | UInt8(count)] : [kind | 0x0F, 0x10, UInt8(count)]
    }

    private static func bigEndian(_ v: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) }
    }
}
