import Foundation

/// keyed-bench: speed and memory figures, ours against the toolchain's Foundation, in one run.
let usage = """
    OVERVIEW: Benchmarks of the property-list codec and keyed archiver against Foundation.

    USAGE: keyed-bench <workload> [<n>] [--rounds <k>]

    WORKLOADS:
      raw [n]     ~20 MB binary plist of n (100000) dictionaries: read, write, validate
      w1-codable [n]  W1 (n shapes) through ArchiveEncoder/Decoder, PropertyListEncoder/Decoder, JSONEncoder/Decoder
    """

var args = Array(CommandLine.arguments.dropFirst())
var rounds = 7
if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let k = Int(args[i + 1]) {
    rounds = k
    args.removeSubrange(i...(i + 1))
}
guard let workload = args.first else {
    print(usage)
    exit(64)
}
let n = args.count > 1 ? Int(args[1]) : nil
do {
    switch workload {
    case "raw": try RawWorkload.run(count: n ?? 100_000, rounds: rounds)
    case "w1-codable": try CodableWorkload.run(count: n ?? 100_000, rounds: rounds)
    case "w1-codable-profile":
        try CodableWorkload.profile(args.count > 2 ? args[2] : "encode", count: n ?? 100_000, repeats: rounds)
    case "raw-profile": try RawWorkload.profile(args.count > 2 ? args[2] : "read", count: n ?? 100_000, repeats: rounds)
    default:
        FileHandle.standardError.write(Data("Error: unknown workload '\(workload)'\n\(usage)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
