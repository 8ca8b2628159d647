import ArchiveStore
import CommandLineSupport

extension Verbs {
    /// `keyedarchive cache exercise DIR --writer N --operations N ...` runs a seeded random mix of reads,
    /// writes and removals and checks every value it reads: a self-check for a directory several processes share.
    static var cacheExercise: Command {
        Command(
            name: "exercise",
            abstract: "Self-check: run random reads and writes on a cache and verify every value read.",
            discussion: "A self-check for a cache directory shared by several processes: start several at once "
                + "on one DIR, each with its own --writer. Each runs --operations operations on the keys key-0 ... "
                + "key-<keys - 1>, chosen by a generator seeded from --seed and --writer: 60% reads, 30% writes of "
                + "raw bytes, 10% removals, with --byte-limit and --count-limit in force, so eviction runs too. A "
                + "value written for key K is the UTF-8 of K, '#', the writer number, '#', a counter, '#', then "
                + "dots up to --value-bytes bytes; a value read back for K must have exactly that layout, else it "
                + "is wrong (another key's value, or damaged).\n\n"
                + "Prints 'exercise: writer=W operations=N hits=N misses=N sets=N removes=N wrong=N' (hits: values "
                + "read, wrong ones included) and exits with status 1 when wrong is not 0, naming the first wrong "
                + "value on stderr. DIR must exist. --durability is the cache's (see 'cache set'); the default, "
                + "relaxed, is the library's.",
            arguments: [cacheDirectoryArgument],
            options: [
                .option("writer", valueName: "n", help: "This process's number, written into its values.", required: true),
                .option("operations", valueName: "n", help: "How many operations to run.", required: true),
                .option("keys", valueName: "n", help: "How many distinct keys.", defaultValue: "16"),
                .option("value-bytes", valueName: "n", help: "Bytes of each value (k, M or G as for 'cache trim').",
                        defaultValue: "64"),
                .option("byte-limit", valueName: "n", help: "The cache's byte limit while running; 0: none.",
                        defaultValue: "0"),
                .option("count-limit", valueName: "n", help: "The cache's entry limit while running; 0: none.",
                        defaultValue: "0"),
                .option("seed", valueName: "n", help: "Seeds the random choices, with --writer.", defaultValue: "1"),
                .option("durability", valueName: "d", help: "synchronous (survives a power cut) or relaxed.", defaultValue: "relaxed"),
            ]
        ) { context in
            let directory = try CacheAccess.directory(context)
            let arguments = context.arguments
            func text(_ name: String) -> String { arguments.value(name) ?? "" }
            let writer = try CacheAccess.count(text("writer"), option: "--writer <n>")
            let operations = try CacheAccess.count(text("operations"), option: "--operations <n>")
            let keys = try CacheAccess.count(text("keys"), option: "--keys <n>", minimum: 1)
            let valueBytes = try CacheAccess.byteCount(text("value-bytes"), option: "--value-bytes <n>")
            var options = CacheOptions()
            options.byteLimit = try CacheAccess.byteCount(text("byte-limit"), option: "--byte-limit <n>")
            guard options.byteLimit == 0 || options.byteLimit >= CacheOptions.smallestByteLimit else {
                throw UsageError("The value '\(text("byte-limit"))' is invalid for '--byte-limit <n>'; a cache's byte limit counts "
                    + "what its directory takes on disk: 0 (none) or at least 64k.")
            }
            options.countLimit = try CacheAccess.count(text("count-limit"), option: "--count-limit <n>")
            options.durability = try CacheAccess.durability(context)
            let seedText = text("seed")
            guard seedText.utf8.allSatisfy({ (48...57).contains($0) }), let seed = UInt64(seedText) else {
                throw UsageError("The value '\(seedText)' is invalid for '--seed <n>'; expected a whole number below 2^64.")
            }
            let cache = try CacheAccess.open(directory, options: options)
            var exercise = CacheExercise(writer: writer, keyCount: keys, valueBytes: valueBytes, seed: seed)
            let report = try CacheAccess.perform { () throws(StoreError) in try exercise.run(cache, operations: operations) }
            context.stdout.write("exercise: writer=\(writer) operations=\(report.operations) hits=\(report.hits) "
                + "misses=\(report.misses) sets=\(report.sets) removes=\(report.removes) wrong=\(report.wrong)\n")
            if let first = report.firstWrong {
                return context.fail(ExitStatus.failure, "\(report.wrong) value\(report.wrong == 1 ? "" : "s") read back "
                    + "\(report.wrong == 1 ? "was" : "were") wrong; the first, for key \(first)")
            }
            return ExitStatus.success
        }
    }
}

/// The seeded mix of operations `cache exercise` runs against one cache, and the check of every value read.
struct CacheExercise {
    /// What a run did.
    struct Report {
        var operations = 0
        /// Values read (wrong ones included).
        var hits = 0
        var misses = 0
        var sets = 0
        var removes = 0
        var wrong = 0
        /// The first wrong value: its key and the start of what was read, as JSON string literals.
        var firstWrong: String?
    }

    let writer: Int
    let keyCount: Int
    let valueBytes: Int
    private var random: SplitMix64
    private var counter = 0

    init(writer: Int, keyCount: Int, valueBytes: Int, seed: UInt64) {
        self.writer = writer
        self.keyCount = keyCount
        self.valueBytes = valueBytes
        random = SplitMix64(state: seed ^ (UInt64(writer) &* 0xD1B5_4A32_D192_ED03))
    }

    /// The key numbered `index`: `key-<index>`.
    static func key(_ index: Int) -> String { "key-\(index)" }

    /// A new value for `key`: `key#writer#counter#`, then dots up to ``valueBytes``.
    mutating func value(for key: String) -> [UInt8] {
        counter += 1
        var bytes = Array("\(key)#\(writer)#\(counter)#".utf8)
        if bytes.count < valueBytes { bytes += repeatElement(UInt8(ascii: "."), count: valueBytes - bytes.count) }
        return bytes
    }

    /// Whether `bytes` has the layout of a value written for `key` by any writer.
    static func isValue(_ bytes: [UInt8], of key: String) -> Bool {
        let prefix = Array(key.utf8) + [UInt8(ascii: "#")]
        guard bytes.starts(with: prefix) else { return false }
        var rest = bytes[prefix.count...]
        for _ in 0..<2 {  // writer#, counter#
            let digits = rest.prefix { (48...57).contains($0) }
            guard !digits.isEmpty, rest.dropFirst(digits.count).first == UInt8(ascii: "#") else { return false }
            rest = rest.dropFirst(digits.count + 1)
        }
        return rest.allSatisfy { $0 == UInt8(ascii: ".") }
    }

    /// Runs `operations` operations: 60% `value(forKey:)`, 30% `set`, 10% `removeValue(forKey:)`.
    mutating func run(_ cache: ArchiveCache<[UInt8]>, operations: Int) throws(StoreError) -> Report {
        var report = Report()
        for _ in 0..<operations {
            let key = Self.key(Int(random.next() % UInt64(keyCount)))
            let roll = random.next() % 100
            if roll < 60 {
                if let bytes = try cache.value(forKey: key) {
                    report.hits += 1
                    if !Self.isValue(bytes, of: key) {
                        report.wrong += 1
                        if report.firstWrong == nil {
                            let start = String(decoding: bytes.prefix(64), as: UTF8.self)
                            report.firstWrong = "\(CacheAccess.quoted(key)), read \(bytes.count) bytes starting "
                                + CacheAccess.quoted(start)
                        }
                    }
                } else {
                    report.misses += 1
                }
            } else if roll < 90 {
                try cache.set(value(for: key), forKey: key)
                report.sets += 1
            } else {
                try cache.removeValue(forKey: key)
                report.removes += 1
            }
            report.operations += 1
        }
        return report
    }
}

/// Sebastiano Vigna's SplitMix64: a small, fast generator whose sequence a seed fixes.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
