import Foundation
import FormCache

/// keyed-bench: speed and memory figures, ours against the toolchain's Foundation, in one run.
let usage = """
    OVERVIEW: Benchmarks of the property-list codec and keyed archiver against Foundation.

    USAGE: keyed-bench <workload> [<n>] [--rounds <k>]

    WORKLOADS:
      raw [n]     ~20 MB binary plist of n (100000) dictionaries: read, write, validate
      w1 [n]      a Contents of n (100000) shapes: encode, decode (ours, Foundation, Codable)
      w2 [n]      n (10000) form records: encode, decode
      w1-memory [n], w2-memory [n]   peak memory of one decode, each implementation
      store [n]   a FormCache store of n (10000) records: get, add, update, remove, in-process
      query-vs-sqlite [n]   max, top 20 and add cost with property indexes beside SQLite with an index,
                            index build on first use, and changes() latency (Benchmarks/store/run.sh --queries)
      store-vs-sqlite [n]   the repository beside SQLite (WAL, synchronous=FULL) on n (10000) records of
                  ~200 bytes: add, get, update, remove, count, list all, bulk build, p99 of adds
                  (keyed-bench store-vs-sqlite --help; Benchmarks/store/run.sh runs 10k and 1M)
      w1-codable [n]  W1 through ArchiveEncoder/Decoder vs PropertyListEncoder/Decoder and JSONEncoder/Decoder
      cache [n]   ArchiveCache on n (100000) keys of ~1 KiB, Zipf reads, 10% writes, byte limit at half the
                  working set; against python-diskcache and one NSKeyedArchiver file per key
                  (keyed-bench cache --help for its options; Benchmarks/cache/run.sh runs it all)
      cache-open <dir> <n> [<byte limit>]   build a cache of n small entries in dir, or (when dir exists)
                  time its open, first get and first set
      typedstream <file>...   decode throughput of typedstreams (NSArchiver), unknown classes kept
                  (Benchmarks/typedstream/run.sh compares pytypedstream on the same files)
      typedstream-synthetic <path> [MB]   write the synthetic stream: Messages-style bodies, MB (10) megabytes
      peer-driver <op> <input> <repeats> [<inner>]   time one operation in-process for Benchmarks/peers/run.sh
                  (binary-read, binary-write, xml-read, xml-write, keyed-typed, keyed-generic,
                  typedstream-decode); prints one PEER line: median seconds per operation, peak kB
      peer-inputs <folder>   write the peer benchmark's inputs: raw.bplist, raw.xml, w1.archive

    OPTIONS:
      --rounds <k>     timed rounds per implementation (default 7)
      --only <names>   comma-separated: ours,foundation,plist-codable,json-codable
                       (cache: ours,diskcache,foundation-files)
      --save <file>    raw-profile: also write the plist it works on to <file>

    PROFILING (fixed work, no timing; Benchmarks/callgrind.sh counts their instructions):
      raw-profile [n] read|write|tree-copy|walk|events
                                      n (100000) records, --rounds times
      w1-profile [n] encode|decode    n (100000) shapes, --rounds times
    """

var args = Array(CommandLine.arguments.dropFirst())
var rounds = 7
var only: Set<String>?
if let i = args.firstIndex(of: "--only"), i + 1 < args.count {
    only = Set(args[i + 1].split(separator: ",").map(String.init))
    args.removeSubrange(i...(i + 1))
}
var save: String?
if let i = args.firstIndex(of: "--save"), i + 1 < args.count {
    save = args[i + 1]
    args.removeSubrange(i...(i + 1))
}
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
    case "w1-scale": try ShapesWorkload.scale(rounds: rounds)
    case "w1-profile": try ShapesWorkload.profile(args.count > 2 ? args[2] : "decode", count: n ?? 100_000, repeats: rounds)
    case "w1": try ShapesWorkload.run(workload: "w1", count: n ?? 100_000, rounds: rounds, only: only)
    case "w2-profile": try ShapesWorkload.formsProfile(args.count > 2 ? args[2] : "decode", count: n ?? 10_000, repeats: rounds)
    case "w2": try ShapesWorkload.run(workload: "w2", count: n ?? 10_000, rounds: rounds, only: only)
    case "decode-file" where args.count == 4:
        try ShapesWorkload.decodeFile(impl: args[1], workload: args[2], path: args[3])
    case "w1-memory": try ShapesWorkload.memory(workload: "w1", count: n ?? 100_000, only: only)
    case "w2-memory": try ShapesWorkload.memory(workload: "w2", count: n ?? 10_000, only: only)
    case "cache" where args.contains("--help"):
        print(CacheWorkload.usage)
    case "cache-open" where args.count == 3 || args.count == 4:
        try OursCacheRunner.probeOpen(directory: args[1], entries: Int(args[2]) ?? 0,
                                      byteLimit: args.count == 4 ? Int(args[3]) ?? 0 : 0)
    case "cache": try CacheWorkload.run(arguments: Array(args.dropFirst()), only: only)
    case "store": try StoreWorkload.run(count: n ?? 10_000, rounds: rounds)
    case "store-vs-sqlite" where args.contains("--help"): print(StoreVsSQLite.usage)
    case "store-vs-sqlite": try StoreVsSQLite.run(count: n ?? 10_000, rounds: rounds == 7 ? 3 : rounds, arguments: args)
    case "query-vs-sqlite" where args.contains("--help"): print(QueryVsSQLite.usage)
    case "query-vs-sqlite": try QueryVsSQLite.run(count: n ?? 10_000, rounds: rounds == 7 ? 3 : rounds)
    case "query-profile" where args.count == 4:
        try QueryProfile.run(args[1], count: Int(args[2]) ?? 10_000, operations: Int(args[3]) ?? 1_000)
    case "change-writer" where args.count == 3: try QueryVsSQLite.writeChanges(path: args[1], count: Int(args[2]) ?? 0)
    case "store-profile" where args.count >= 2:
        try StoreProfile.run(args[1], count: args.count > 2 ? Int(args[2]) ?? 100_000 : 100_000, rounds: rounds == 7 ? 1 : rounds)
    case "store-build" where args.count == 4:
        try StoreVsSQLite.build(engine: args[1], count: Int(args[2]) ?? 0, path: args[3])
    case "raw-profile": try RawWorkload.profile(args.count > 2 ? args[2] : "read", count: n ?? 100_000, repeats: rounds, save: save)
    case "peer-driver": try PeerDriver.run(Array(args.dropFirst()))
    case "peer-inputs" where args.count == 2: try PeerDriver.writeInputs(to: args[1])
    case "typedstream" where args.count >= 2: try TypedStreamWorkload.run(files: Array(args.dropFirst()), rounds: rounds)
    case "typedstream-synthetic" where args.count == 2 || args.count == 3:
        try TypedStreamWorkload.writeSynthetic(to: args[1], megabytes: args.count == 3 ? Int(args[2]) ?? 10 : 10)
    default:
        FileHandle.standardError.write(Data("Error: unknown workload '\(workload)'\n\(usage)\n".utf8))
        exit(64)
    }
} catch let error as BenchUsageError {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
