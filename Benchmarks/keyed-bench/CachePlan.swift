import ArchiveStore
import Foundation
import KeyedArchive
import FormCache

/// A small seeded generator (SplitMix64), so that every implementation sees the same sequence.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Zipf over ranks 0..<count with exponent s: P(rank r) proportional to 1 / (r + 1)^s, by inverse CDF.
struct ZipfSampler {
    private let cdf: [Double]

    init(count: Int, s: Double) {
        var cdf = [Double](repeating: 0, count: count)
        var sum = 0.0
        for r in 0..<count {
            sum += 1 / pow(Double(r + 1), s)
            cdf[r] = sum
        }
        self.cdf = cdf.map { $0 / sum }
    }

    func sample(_ u: Double) -> Int {
        var (low, high) = (0, cdf.count - 1)
        while low < high {
            let mid = (low + high) / 2
            if cdf[mid] < u { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// The keys, values and operation sequences every implementation replays. Written to a directory for the
/// Python peer as little-endian `u32` arrays, a key list and one file of concatenated values:
///
/// | file | holds |
/// |---|---|
/// | `keys.txt` | one key a line (index = line number) |
/// | `values.bin`, `values.len` | the values, concatenated; each value's length (u32) |
/// | `set-relaxed.u32`, `set-synchronous.u32` | key indices set, in order |
/// | `hot.u32` | the hot keys of get-memory, set (and read once) before its timed gets |
/// | `get-memory.u32`, `get-disk.u32` | key indices read |
/// | `mixed.u32` | key index, bit 31 set for a write; the first `mixed_warmup` are untimed |
/// | `open-probe.u32` | 1M-entry cache: the first key read after opening, then the warm ones |
/// | `params.json` | counts and limits |
///
/// The 1M-entry cache has keys `open-<i>` (i in 0..<open_entries) whose values are the key's UTF-8 bytes.
struct CachePlan {
    let settings: CacheWorkload.Settings
    let keys: [String]
    let values: [[UInt8]]
    let valueBytes: Int
    let byteLimit: Int
    /// Key index of each Zipf rank (rank 0 hottest).
    let rankToKey: [Int]
    let setRelaxed: [Int]
    let setSynchronous: [Int]
    let hot: [Int]
    let getMemory: [Int]
    let getDisk: [Int]
    /// Key index and whether the operation is a write.
    let mixed: [(key: Int, write: Bool)]
    let openProbe: [Int]

    static let zipfS = 1.1
    static let writeFraction = 0.1

    init(settings: CacheWorkload.Settings) {
        self.settings = settings
        var random = SplitMix64(state: settings.seed)
        let count = settings.keys
        let keys = (0..<count).map { _ in
            let (a, b) = (random.next(), random.next())
            let hex = String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16)
            let chars = Array(hex)
            return "form-" + String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
                + String(chars[16..<20]) + "-" + String(chars[20..<32])
        }
        self.keys = keys
        let values = keys.indices.map { i in CachePlan.formArchive(index: i, key: keys[i], random: &random) }
        self.values = values
        valueBytes = values.reduce(0) { $0 + $1.count }
        byteLimit = valueBytes / 2

        var permutation = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) { permutation.swapAt(i, random.below(i + 1)) }
        rankToKey = permutation

        setRelaxed = (0..<settings.setOps).map { $0 % count }
        setSynchronous = (0..<settings.syncOps).map { $0 % count }
        let zipf = ZipfSampler(count: count, s: CachePlan.zipfS)
        let hotZipf = ZipfSampler(count: settings.hotKeys, s: CachePlan.zipfS)
        hot = Array(permutation[0..<settings.hotKeys])
        getMemory = (0..<settings.getOps).map { _ in permutation[hotZipf.sample(random.unit())] }
        getDisk = (0..<settings.getOps).map { _ in permutation[zipf.sample(random.unit())] }
        mixed = (0..<(settings.mixedWarmup + settings.mixedOps)).map { _ in
            let write = random.unit() < CachePlan.writeFraction
            return (permutation[zipf.sample(random.unit())], write)
        }
        var probe: [Int] = []
        if settings.openEntries > 0 {
            var seen = Set<Int>()
            while probe.count < min(settings.openEntries, settings.warmGets + 1) {
                let k = random.below(settings.openEntries)
                if seen.insert(k).inserted { probe.append(k) }
            }
        }
        openProbe = probe
    }

    static func openKey(_ i: Int) -> String { "open-\(i)" }

    /// A form record of about 1 KiB (between 900 and 1,150 bytes), archived with our `KeyedArchiver`.
    static func formArchive(index: Int, key: String, random: inout SplitMix64) -> [UInt8] {
        let target = 900 + random.below(251)
        let words = ["alpha", "bravo", "delta", "harbour", "station", "north", "maple", "river", "garden", "summit",
                     "quartz", "violet", "ember", "cobalt", "meadow", "orchard"]
        func phrase(_ n: Int) -> String { (0..<n).map { _ in words[random.below(words.count)] }.joined(separator: " ") }
        let registered = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(random.below(50_000_000)))
        var fields: [String: String] = [
            "firstName": phrase(1).capitalized, "lastName": phrase(1).capitalized,
            "email": "user\(index)@example.com", "phone": "+44 20 7946 \(String(random.below(10_000)).leftPadded(4, "0"))",
            "street": "\(1 + random.below(300)) \(phrase(2).capitalized) Road", "city": phrase(1).capitalized,
            "postcode": "SW\(1 + random.below(20)) \(random.below(10))AB", "country": "United Kingdom",
            "company": phrase(2).capitalized + " Ltd", "jobTitle": phrase(2).capitalized,
            "newsletter": random.below(2) == 0 ? "yes" : "no", "source": "web-form/v\(1 + random.below(5))",
        ]
        func encode() -> [UInt8] {
            let record = FormRecord(id: key, name: "registration-\(index)", fields: fields, registeredAt: registered,
                                    timeToLive: .defaultValue)
            return (try? KeyedArchiver.archivedData(withRootObject: record)) ?? []
        }
        fields["notes"] = ""
        let base = encode().count
        var note = phrase(max(1, (target - base) / 7))
        if note.utf8.count > target - base { note = String(note.prefix(max(1, target - base))) }
        fields["notes"] = note
        return encode()
    }

    func write(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func file(_ name: String) -> URL { URL(fileURLWithPath: directory + "/" + name) }
        try Data(keys.joined(separator: "\n").utf8).write(to: file("keys.txt"))
        var all = [UInt8]()
        all.reserveCapacity(valueBytes)
        for value in values { all.append(contentsOf: value) }
        try Data(all).write(to: file("values.bin"))
        try u32(values.map(\.count)).write(to: file("values.len"))
        try u32(setRelaxed).write(to: file("set-relaxed.u32"))
        try u32(setSynchronous).write(to: file("set-synchronous.u32"))
        try u32(hot).write(to: file("hot.u32"))
        try u32(getMemory).write(to: file("get-memory.u32"))
        try u32(getDisk).write(to: file("get-disk.u32"))
        try u32(mixed.map { $0.key | ($0.write ? 1 << 31 : 0) }).write(to: file("mixed.u32"))
        try u32(openProbe).write(to: file("open-probe.u32"))
        let params: [String: Any] = [
            "keys": keys.count, "byte_limit": byteLimit, "value_bytes": valueBytes,
            "mixed_warmup": settings.mixedWarmup, "open_entries": settings.openEntries,
            "zipf_s": CachePlan.zipfS, "write_fraction": CachePlan.writeFraction,
        ]
        try JSONSerialization.data(withJSONObject: params, options: [.sortedKeys]).write(to: file("params.json"))
    }

    private func u32(_ numbers: [Int]) -> Data {
        var data = Data(capacity: numbers.count * 4)
        for n in numbers {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: n).littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }
}

extension String {
    func leftPadded(_ width: Int, _ fill: Character = "0") -> String {
        count >= width ? self : String(repeating: fill, count: width - count) + self
    }
}
