/// A hostile binary keyed archive whose `$objects` entries all are one plist array of `sharedCount` integers,
/// written byte by byte (no archiver shares a plist collection between entries). Without `listed`, the entries
/// are 1...n and `root` is entry 1; with `listed`, `root` is entry 1, a plist array of the UIDs 2...n+1 (so a
/// walk from `$top` reads every entry), and the entries 2...n+1 are the shared array.
public enum SharedCollectionArchive {
    public static func bytes(entries n: Int, sharedCount m: Int, listed: Bool = false) -> [UInt8] {
        // Objects: 0 top dict, 1-4 header keys, 5 version, 6 archiver, 7 $top, 8 $objects, 9 "root",
        // 10 UID 1, 11 "$null", 12 the shared array, 13 the integer 1; when listed, 14 the list of UIDs and
        // 15... the UIDs 2...n+1.
        var objects: [[UInt8]] = []
        func string(_ s: String) -> [UInt8] { [0x50 | UInt8(s.utf8.count)] + Array(s.utf8) }
        func refs(_ list: [Int]) -> [UInt8] { list.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        func count(_ marker: UInt8, _ c: Int) -> [UInt8] {
            c < 15 ? [marker | UInt8(c)] : [marker | 0x0F, 0x11, UInt8(c >> 8), UInt8(c & 0xFF)]
        }
        objects.append(count(0xD0, 4) + refs([1, 2, 3, 4, 5, 6, 7, 8]))
        for key in ["$version", "$archiver", "$top", "$objects"] { objects.append(string(key)) }
        objects.append([0x12, 0x00, 0x01, 0x86, 0xA0])  // 100000
        objects.append([0x5F, 0x10, 15] + Array("NSKeyedArchiver".utf8))
        objects.append(count(0xD0, 1) + refs([9, 10]))
        let entries = (listed ? [11, 14] : [11]) + Array(repeating: 12, count: n)
        objects.append(count(0xA0, entries.count) + refs(entries))
        objects.append(string("root"))
        objects.append([0x80, 0x01])
        objects.append(string("$null"))
        objects.append(count(0xA0, m) + refs(Array(repeating: 13, count: m)))
        objects.append([0x10, 0x01])
        if listed {
            objects.append(count(0xA0, n) + refs(Array(15..<(15 + n))))
            for uid in 2..<(2 + n) { objects.append([0x81, UInt8(uid >> 8), UInt8(uid & 0xFF)]) }
        }
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(out.count)
            out += o
        }
        let table = out.count
        for o in offsets { out += [UInt8(o >> 24), UInt8((o >> 16) & 0xFF), UInt8((o >> 8) & 0xFF), UInt8(o & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 4, 2]
        for v in [objects.count, 0, table] { out += (0..<8).reversed().map { UInt8((UInt64(v) >> (8 * UInt64($0))) & 0xFF) } }
        return out
    }
}
