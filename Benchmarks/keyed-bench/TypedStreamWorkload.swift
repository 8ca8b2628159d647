import Foundation
import KeyedArchive
import TypedStream

/// `keyed-bench typedstream FILE...`: decode throughput of typedstreams (NSArchiver), each file read whole
/// with unknown classes kept (`decodeAllValues`), the median of `rounds` rounds, each round repeating the
/// decode until it has read at least 8 MB. `keyed-bench typedstream-synthetic PATH [MB]` writes the synthetic
/// stream: an NSArray of Messages-style bodies (an NSAttributedString of three runs with
/// `__kIMMessagePartAttributeName`, a mention and a file-transfer GUID), about MB (10) megabytes.
/// Benchmarks/typedstream/run.sh times pytypedstream on the same files in the same run.
enum TypedStreamWorkload {
    static func writeSynthetic(to path: String, megabytes: Int) throws {
        func body(_ i: Int) -> ArchivedAttributedString {
            let name = "Contact \(i % 97)"
            let text = "Message \(i): see you at \(i % 24):\(i % 60) — \(name) said the file is ready " + String(repeating: "x", count: i % 200)
            let length = text.utf16.count
            let mention = ("Message \(i): see you at ").utf16.count
            let body = ArchivedAttributedString(text, runs: [
                .init(range: 0..<mention, attributes: ["__kIMMessagePartAttributeName": 0]),
                .init(range: mention..<mention + 5, attributes: ["__kIMMessagePartAttributeName": 0,
                                                                 "__kIMMentionConfirmedMention": "+1555\(1_000_000 + i)"]),
                .init(range: mention + 5..<length, attributes: ["__kIMMessagePartAttributeName": 1,
                                                                "__kIMFileTransferGUIDAttributeName": "at_\(i)_F0668F79-20C2-49C9-A87F-\(String(format: "%012X", i))"]),
            ])
            return body
        }
        // The bytes a body takes, from a sample, give the count for the size asked for.
        let sample = try (TypedStreamArchiver.archivedData(withRootObject: (0..<1000).map(body)) as [UInt8]).count
        let bodies = (0..<(megabytes * 1_000_000 * 1000 / sample)).map(body)
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: bodies) as Data
        try bytes.write(to: URL(fileURLWithPath: path))
        print("wrote \(path): \(bytes.count) bytes, \(bodies.count) bodies")
    }

    static func run(files: [String], rounds: Int) throws {
        let registry = ClassRegistry.standard.allowingUnknownClasses()
        var measurements: [Measurement] = []
        for path in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let repeats = max(1, 8_000_000 / max(1, bytes.count))
            var m = Measurement(impl: "ours", op: "decode", workload: URL(fileURLWithPath: path).lastPathComponent, n: repeats)
            m.bytes = bytes.count
            _ = try TypedStreamUnarchiver(forReadingWith: bytes, registry: registry).decodeAllValues()  // warm up
            for _ in 0..<rounds {
                m.samples.append(try timeMS {
                    for _ in 0..<repeats {
                        blackHole(try TypedStreamUnarchiver(forReadingWith: bytes, registry: registry).decodeAllValues())
                    }
                } / Double(repeats))
            }
            measurements.append(m)
        }
        for m in measurements {
            let mbPerSecond = Double(m.bytes) / 1e6 / (m.median / 1000)
            print("TYPEDSTREAM impl=ours file=\(m.workload) bytes=\(m.bytes) ms=\(String(format: "%.3f", m.median)) MB/s=\(String(format: "%.1f", mbPerSecond))")
        }
    }
}
