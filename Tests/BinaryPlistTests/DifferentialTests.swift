import Foundation
import Testing
@testable import BinaryPlist

/// Our codec against the toolchain's `PropertyListSerialization`, both ways.
@Suite("Differential: PropertyListSerialization")
struct DifferentialTests {
    /// Converts to the objects `PropertyListSerialization` writes.
    static func foundationObject(_ v: PlistValue) -> Any {
        switch v {
        case .bool(let b): return b
        case .integer(let i):
            if let s = i.int64Value { return NSNumber(value: s) }
            return NSNumber(value: i.uint64Value ?? 0)
        case .real(let r): return NSNumber(value: r)
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        case .data(let d): return Data(d)
        case .string(let s): return s
        case .array(let a): return a.map(foundationObject)
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for e in d.entries { if let k = e.key.stringValue { out[k] = foundationObject(e.value) } }
            return out
        case .null, .uid, .set: return "unsupported"
        }
    }

    /// Compares what Foundation read with the value we wrote.
    static func same(_ object: Any, _ v: PlistValue) -> Bool {
        switch v {
        case .bool(let b):
            if let n = object as? NSNumber { return String(cString: n.objCType) == "c" && n.boolValue == b }
            return (object as? Bool) == b
        case .integer(let i):
            guard let n = object as? NSNumber else { return false }
            if let s = i.int64Value { return n.int64Value == s && !["c", "d", "f"].contains(String(cString: n.objCType)) }
            return n.uint64Value == i.uint64Value
        case .real(let r):
            guard let n = object as? NSNumber else { return false }
            return n.doubleValue.bitPattern == r.bitPattern || (r.isNaN && n.doubleValue.isNaN)
        case .date(let d):
            return (object as? Date)?.timeIntervalSinceReferenceDate == d.secondsSinceReferenceDate
        case .data(let d): return (object as? Data).map { [UInt8]($0) } == d
        case .string(let s): return (object as? String) == s
        case .array(let a):
            guard let o = object as? [Any], o.count == a.count else { return false }
            return zip(o, a).allSatisfy { same($0, $1) }
        case .dictionary(let d):
            guard let o = object as? [String: Any], o.count == d.count else { return false }
            return d.entries.allSatisfy { e in e.key.stringValue.flatMap { o[$0] }.map { same($0, e.value) } ?? false }
        case .null, .uid, .set: return false
        }
    }

    @Test func foundationReadsWhatWeWrite() throws {
        var random = RandomPlist(seed: 2024, foundationCompatible: true)
        for i in 0..<300 {
            let value = random.value()
            let bytes = try PropertyList.encode(value, format: .binary)
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            #expect(Self.same(object, value), "value \(i): \(value)")
        }
    }

    @Test func weReadWhatFoundationWrites() throws {
        var random = RandomPlist(seed: 99, foundationCompatible: true)
        for i in 0..<300 {
            let value = random.value()
            let object = Self.foundationObject(value)
            let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
            let back = try PropertyList.decode([UInt8](data))
            #expect(Self.same(object, back), "value \(i): wrote \(value), read \(back)")
        }
    }
}
