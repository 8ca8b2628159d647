import BinaryPlist
import Foundation

/// `keyed-bench raw`: a ~20 MB binary plist of 100,000 dictionaries of mixed scalars, read, written and
/// validated by our codec and by the toolchain's PropertyListSerialization, alternating, in one run.
enum RawWorkload {
    static func makeValue(count: Int) -> PlistValue {
        var records: [PlistValue] = []
        records.reserveCapacity(count)
        for i in 0..<count {
            var d = PlistDictionary()
            d["id"] = .integer(PlistInteger(Int64(i)))
            d["uuid"] = .string(String(format: "%08X-0000-4000-8000-%012X", i, i &* 2_654_435_761))
            d["name"] = .string("Record number \(i)")
            d["email"] = .string("user\(i)@example.com")
            d["score"] = .real(Double(i) * 0.731 + 0.5)
            d["active"] = .bool(i % 3 == 0)
            d["created"] = .date(PlistDate(secondsSinceReferenceDate: 700_000_000 + Double(i) * 61.5))
            d["balance"] = .integer(PlistInteger(Int64(i) * -7919))
            d["payload"] = .data((0..<40).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) })
            records.append(.dictionary(d))
        }
        return .array(records)
    }

    static func foundationObject(_ v: PlistValue) -> Any {
        switch v {
        case .bool(let b): return b
        case .integer(let i): return NSNumber(value: i.int64Value ?? 0)
        case .real(let r): return NSNumber(value: r)
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        case .data(let d): return Data(d)
        case .string(let s): return s
        case .array(let a): return a.map(foundationObject)
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for e in d.entries { if let k = e.key.stringValue { out[k] = foundationObject(e.value) } }
            return out
        default: return "?"
        }
    }

    static func run(count: Int, rounds: Int) throws {
        let value = makeValue(count: count)
        let bytes = try PropertyList.encode(value, format: .binary)
        let data = Data(bytes)
        let object = foundationObject(value)
        print("workload raw: \(count) dictionaries, \(bytes.count) bytes (\(String(format: "%.1f", Double(bytes.count) / 1e6)) MB)")
        // Sanity: both readers agree on the record count, and our reading equals what we wrote.
        guard try PropertyList.decode(bytes) == value else { throw BenchError("our reader disagrees with our writer") }
        guard let check = try PropertyListSerialization.propertyList(from: data, format: nil) as? [Any], check.count == count else {
            throw BenchError("PropertyListSerialization did not read \(count) records")
        }

        var ours = ["read": Measurement(impl: "ours", op: "read", workload: "raw", n: count),
                    "write": Measurement(impl: "ours", op: "write", workload: "raw", n: count),
                    "validate": Measurement(impl: "ours", op: "validate", workload: "raw", n: count),
                    "walk": Measurement(impl: "ours", op: "walk", workload: "raw", n: count),
                    "events": Measurement(impl: "ours", op: "events", workload: "raw", n: count)]
        var theirs = ["read": Measurement(impl: "plistserialization", op: "read", workload: "raw", n: count),
                      "write": Measurement(impl: "plistserialization", op: "write", workload: "raw", n: count)]
        var floor = Measurement(impl: "ours", op: "tree-copy", workload: "raw", n: count)
        for round in 0..<rounds {
            // Alternate which implementation goes first.
            let order = round % 2 == 0 ? [true, false] : [false, true]
            for oursFirst in order {
                if oursFirst {
                    ours["validate"]?.samples.append(try timeMS { blackHole(try BinaryPlistDocument(bytes)) })
                    // The streaming read: open and validate, then every object reported, nothing built.
                    var sum = WalkSum()
                    ours["walk"]?.samples.append(try timeMS { sum = try walkSum(bytes) })
                    guard sum.objects == objectsInTree(value) else { throw BenchError("the walk reported \(sum.objects) values") }
                    var pulled = WalkSum()
                    ours["events"]?.samples.append(try timeMS { pulled = try eventSum(bytes) })
                    guard pulled.objects == sum.objects && pulled.checksum == sum.checksum else { throw BenchError("the event reader disagrees with the walk") }
                    var read: PlistValue = .null
                    ours["read"]?.samples.append(try timeMS { read = try PropertyList.decode(bytes) })
                    blackHole(read)  // freed outside the timed part, as for Foundation below
                    // The floor of any reader into this model: the same tree allocated and filled again from
                    // values already read (no bytes parsed, nothing checked), timed and freed as the read is.
                    var copy: PlistValue = .null
                    floor.samples.append(timeMS { copy = freshCopy(read) })
                    blackHole(copy)
                    var written: [UInt8] = []
                    ours["write"]?.samples.append(try timeMS { written = try PropertyList.encode(value, format: .binary) })
                    ours["write"]?.bytes = written.count
                } else {
                    var read: Any = 0
                    theirs["read"]?.samples.append(try timeMS {
                        read = try PropertyListSerialization.propertyList(from: data, format: nil)
                    })
                    blackHole(read)
                    var written = Data()
                    theirs["write"]?.samples.append(try timeMS {
                        written = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
                    })
                    theirs["write"]?.bytes = written.count
                }
            }
        }
        for k in ["read", "validate", "walk", "events"] { ours[k]?.bytes = bytes.count }
        theirs["read"]?.bytes = bytes.count
        let all = [ours["read"], theirs["read"], ours["walk"], ours["events"], ours["write"], theirs["write"], ours["validate"]].compactMap { $0 }
        report(all) { _ in "plistserialization" }
        if let r = ours["read"] {
            print(String(format: "ours read throughput: %.0f MB/s", Double(bytes.count) / 1e6 / (r.median / 1000)))
            print(String(format: "model floor (tree-copy: the tree read, allocated and filled again, no parsing): %.2f ms, %.0f MB/s of input; read / floor %.2f",
                         floor.median, Double(bytes.count) / 1e6 / (floor.median / 1000), r.median / floor.median))
        }
        if let w = ours["walk"] {
            print(String(format: "ours walk throughput (streaming read, no tree): %.0f MB/s", Double(bytes.count) / 1e6 / (w.median / 1000)))
        }
        if let e = ours["events"] {
            print(String(format: "ours events throughput (pull reader, no tree): %.0f MB/s", Double(bytes.count) / 1e6 / (e.median / 1000)))
        }
    }
}

extension RawWorkload {
    /// `value` allocated again: every array, set and dictionary storage, every string that does not fit in a
    /// `String` inline (more than 15 UTF-8 bytes) and every data value is new, as a reader makes them; dictionary
    /// keys are shared, as the reader shares repeated keys. What is left of a read once parsing and checking cost
    /// nothing.
    static func freshCopy(_ value: PlistValue) -> PlistValue {
        switch value {
        case .string(let s):
            guard s.utf8.count > 15 else { return value }
            var text = s
            return .string(text.withUTF8 { String(decoding: $0, as: UTF8.self) })
        case .data(let d):
            return .data(d.withUnsafeBufferPointer { Array($0) })
        case .array(let a):
            return .array(freshElements(a))
        case .set(let a):
            return .set(freshElements(a))
        case .dictionary(let d):
            var entries: [PlistDictionary.Entry] = []
            entries.reserveCapacity(d.count)
            for e in d.entries { entries.append(PlistDictionary.Entry(key: e.key, value: freshCopy(e.value))) }
            return .dictionary(PlistDictionary(entries: entries))
        default:
            return value
        }
    }

    private static func freshElements(_ a: [PlistValue]) -> [PlistValue] {
        var out: [PlistValue] = []
        out.reserveCapacity(a.count)
        for v in a { out.append(freshCopy(v)) }
        return out
    }
}

/// What a walk consumer adds up, touching every value: the integers, the bits of reals and dates, and the
/// lengths of strings and data (so no event can be optimized away).
struct WalkSum {
    var objects = 0
    var checksum: UInt64 = 0
}

extension WalkSum {
    @inline(__always)
    mutating func add(_ event: BinaryPlistDocument.Event) {
        switch event {
        case .end: return
        case .beginArray(let n), .beginSet(let n), .beginDictionary(let n): checksum &+= UInt64(n)
        case .null: break
        case .bool(let b): checksum &+= b ? 1 : 0
        case .integer(let i): checksum &+= i.low
        case .real(let d): checksum &+= d.bitPattern
        case .date(let d): checksum &+= d.secondsSinceReferenceDate.bitPattern
        case .uid(let u): checksum &+= u.value
        case .string(let s): checksum &+= UInt64(s.bytes.count)
        case .data(let d): checksum &+= UInt64(d.count)
        }
        objects += 1
    }
}

extension RawWorkload {
    /// `bytes` opened and read whole through a closure (the push form: the reader's loop written once, as
    /// `walk(_:)` below), each event folded into a ``WalkSum``.
    static func walkSum(_ bytes: [UInt8]) throws -> WalkSum {
        let document = try BinaryPlistDocument(bytes)
        var sum = WalkSum()
        try walk(document) { sum.add($0) }
        return sum
    }

    /// Reports every event of `document` to `body`.
    @inline(__always)
    static func walk(_ document: BinaryPlistDocument, _ body: (BinaryPlistDocument.Event) throws -> Void) throws {
        try document.withEvents { reader in
            while let event = try reader.next() { try body(event) }
        }
    }

    /// The same through the pull reader (`BinaryPlistDocument.withEvents`), the caller's own loop.
    static func eventSum(_ bytes: [UInt8]) throws -> WalkSum {
        let document = try BinaryPlistDocument(bytes)
        return try document.withEvents { (reader: inout BinaryPlistDocument.EventReader) throws(PlistError) in
            var sum = WalkSum()
            while let event = try reader.next() { sum.add(event) }
            return sum
        }
    }

    /// The values a walk of `value` reports: every scalar, collection and dictionary key.
    static func objectsInTree(_ value: PlistValue) -> Int {
        switch value {
        case .array(let a), .set(let a): return 1 + a.reduce(0) { $0 + objectsInTree($1) }
        case .dictionary(let d): return 1 + d.entries.reduce(0) { $0 + 1 + objectsInTree($1.value) }
        default: return 1
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

extension RawWorkload {
    /// Repeats one operation for a profiler (`keyed-bench raw-profile read|write`).
    static func profile(_ op: String, count: Int, repeats: Int, save: String? = nil) throws {
        let value = makeValue(count: count)
        let bytes = try PropertyList.encode(value, format: .binary)
        if let save { try Data(bytes).write(to: URL(fileURLWithPath: save)) }
        for _ in 0..<repeats {
            if op == "write" { blackHole(try PropertyList.encode(value, format: .binary)) }
            else if op == "tree-copy" { blackHole(freshCopy(value)) }
            else if op == "walk" { blackHole(try walkSum(bytes)) }
            else if op == "events" { blackHole(try eventSum(bytes)) }
            else { blackHole(try PropertyList.decode(bytes)) }
        }
    }
}
