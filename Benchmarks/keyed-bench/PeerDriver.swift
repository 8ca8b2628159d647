import BinaryPlist
import Foundation
import KeyedArchive
import TypedStream

/// `keyed-bench peer-driver <operation> <input> <repeats> [<inner>]`: our side of Benchmarks/peers/run.sh.
/// Reads `input` whole, then times one operation in-process: `repeats` samples, each running the operation
/// `inner` (1) times back to back; prints the median seconds per operation and the peak resident memory
/// (VmHWM) of the process, in the line every peer driver prints:
///
///     PEER op=<operation> seconds=<s> peak_kb=<kB> repeats=<repeats> inner=<inner> input_bytes=<n>
///
/// What an operation makes is freed inside its timing (as it is in every peer's driver). An input the
/// operation refuses is an error on stderr and exit status 1. keyed-typed decodes W1's root with its classes
/// registered; keyed-generic decodes every key of `$top` as `Any` with no class registered beyond the
/// standard ones (unknown classes kept as `ArchivedObject`). `input` for typedstream-decode may be a folder:
/// every file in it not ending in `.json` is decoded, one operation being all of them.
///
/// `keyed-bench peer-inputs <folder>` writes the inputs run.sh measures: raw.bplist (`keyed-bench raw`'s
/// 100,000 records), raw.xml (the same tree as XML) and w1.archive (`keyed-bench w1`'s 100,000 shapes).
enum PeerDriver {
    static let operations = ["binary-read", "binary-write", "xml-read", "xml-write", "keyed-typed", "keyed-generic",
                             "typedstream-decode"]

    static func run(_ args: [String]) throws {
        guard args.count == 3 || args.count == 4, operations.contains(args[0]),
              let repeats = Int(args[2]), repeats > 0, let inner = Int(args.count == 4 ? args[3] : "1"), inner > 0 else {
            throw BenchUsageError("peer-driver <\(operations.joined(separator: "|"))> <input> <repeats> [<inner>]")
        }
        let op = args[0]
        let inputs = try readInputs(args[1], folder: op == "typedstream-decode")
        let body = try operation(op, inputs)
        try body()  // once untimed: an input refused fails here, and the code is warm
        var samples: [Double] = []
        for _ in 0..<repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<inner { try body() }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(inner))
        }
        samples.sort()
        let median = samples.count % 2 == 1 ? samples[samples.count / 2]
            : (samples[samples.count / 2 - 1] + samples[samples.count / 2]) / 2
        let bytes = inputs.reduce(0) { $0 + $1.count }
        print("PEER op=\(op) seconds=\(String(format: "%.9f", median)) peak_kb=\(peakResidentBytes() / 1024) "
              + "repeats=\(repeats) inner=\(inner) input_bytes=\(bytes)")
    }

    /// The operation on `inputs`, with whatever it starts from (a decoded tree for the writes) made here,
    /// outside the timing.
    static func operation(_ op: String, _ inputs: [[UInt8]]) throws -> () throws -> Void {
        let bytes = inputs[0]
        switch op {
        case "binary-read", "xml-read":
            return { blackHole(try PropertyList.decode(bytes)) }
        case "binary-write", "xml-write":
            let tree = try PropertyList.decode(bytes)
            let format: PlistFormat = op == "binary-write" ? .binary : .xml
            return { blackHole(try PropertyList.encode(tree, format: format)) }
        case "keyed-typed":
            return {
                guard let root = try KeyedUnarchiver.unarchivedObject(ofType: BenchContents.self, from: bytes,
                                                                      registry: benchRegistry) else {
                    throw BenchError("the archive's root is $null")
                }
                blackHole(root)
            }
        case "keyed-generic":
            let registry = ClassRegistry.standard.allowingUnknownClasses()
            return {  // every key of $top (a nib's is IB.objectdata, not root), each as Any
                blackHole(try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry) { unarchiver in
                    try unarchiver.allKeys().map { try unarchiver.decodeTopLevelObject(forKey: $0) }
                })
            }
        default:  // typedstream-decode
            let registry = ClassRegistry.standard.allowingUnknownClasses()
            return {
                for stream in inputs {
                    blackHole(try TypedStreamUnarchiver(forReadingWith: stream, registry: registry).decodeAllValues())
                }
            }
        }
    }

    /// The bytes of `path`, or with `folder`, of every file in the folder `path` (sorted by name, `.json`
    /// files left out).
    static func readInputs(_ path: String, folder: Bool) throws -> [[UInt8]] {
        var isFolder: ObjCBool = false
        guard folder, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            return [[UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))]
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasSuffix(".json") }.sorted()
        return try names.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent($0))) }
    }

    static func writeInputs(to folder: String) throws {
        let directory = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let raw = RawWorkload.makeValue(count: 100_000)
        for (name, format) in [("raw.bplist", PlistFormat.binary), ("raw.xml", .xml)] {
            let bytes = try PropertyList.encode(raw, format: format)
            try Data(bytes).write(to: directory.appendingPathComponent(name))
            print("wrote \(name): \(bytes.count) bytes")
        }
        guard let ours = try ShapesWorkload.shapes(100_000).first(where: { $0.name == "ours" }) else {
            throw BenchError("no W1 implementation named ours")
        }
        _ = try ours.encode()
        try Data(ours.archive()).write(to: directory.appendingPathComponent("w1.archive"))
        print("wrote w1.archive: \(ours.archive().count) bytes")
    }
}
