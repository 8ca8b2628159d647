// Test-only helpers for the XML plist suites: locating XML fixtures and reading their `.plist.json` siblings.
// This is NOT the project's plist-JSON codec (that lives in the library); it is a small independent reading
// built on Foundation's JSONDecoder, so the XML tests do not depend on the code they would be checking.
import BinaryPlist
import Foundation

enum XMLTestFixtures {
    /// The repository's `Fixtures/` folder, found from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // BinaryPlistTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    /// Every fixture whose first bytes are an XML plist (relative paths, sorted).
    static let xmlPlists: [String] = {
        let base = root.path + "/"
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            if relative.hasSuffix(".json") || relative.hasSuffix(".txt") || relative.hasSuffix(".md") { continue }
            guard let head = FileManager.default.contents(atPath: base + relative)?.prefix(512) else { continue }
            let text = String(decoding: head, as: UTF8.self)
            if text.contains("<plist") || text.hasPrefix("<?xml") { found.append(relative) }
        }
        return found.sorted()
    }()

    /// XML fixtures that have a `.plist.json` rendering.
    static let xmlPlistsWithJSON: [String] = xmlPlists.filter {
        FileManager.default.fileExists(atPath: root.appendingPathComponent($0 + ".plist.json").path)
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }
}

/// A JSON value as JSONDecoder sees it, keeping integers and booleans apart.
enum XMLTestJSON: Decodable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([XMLTestJSON])
    case object([String: XMLTestJSON])

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: XMLTestJSON] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(XMLTestJSON.self, forKey: key) }
            self = .object(members)
        } else if var list = try? decoder.unkeyedContainer() {
            var items: [XMLTestJSON] = []
            while !list.isAtEnd { items.append(try list.decode(XMLTestJSON.self)) }
            self = .array(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let b = try? single.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? single.decode(Int64.self) {
                self = .int(i)
            } else if let u = try? single.decode(UInt64.self) {
                self = .uint(u)
            } else if let d = try? single.decode(Double.self) {
                self = .double(d)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    /// The plist value this plist-JSON describes. `cfUIDDictionaries`: read `{"dict": {"CF$UID": n}}` as a UID,
    /// as CoreFoundation reads XML (plistlib, which rendered the fixtures, leaves those as dictionaries).
    func plistValue(cfUIDDictionaries: Bool) throws -> PlistValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .integer(PlistInteger(i))
        case .uint(let u): return .integer(PlistInteger(u))
        case .string(let s): return .string(s)
        case .double(let d): throw Unexpected(description: "bare JSON number \(d) (reals are {\"real\": x})")
        case .array(let items): return .array(try items.map { try $0.plistValue(cfUIDDictionaries: cfUIDDictionaries) })
        case .object(let members):
            guard members.count == 1, let (tag, body) = members.first else {
                throw Unexpected(description: "object with keys \(members.keys.sorted())")
            }
            switch (tag, body) {
            case ("real", .string("nan")): return .real(.nan)
            case ("real", .string("inf")): return .real(.infinity)
            case ("real", .string("-inf")): return .real(-.infinity)
            case ("real", let n): return .real(try n.number())
            case ("date", let n): return .date(PlistDate(secondsSinceReferenceDate: try n.number()))
            case ("data", .string(let b64)):
                guard let data = Data(base64Encoded: b64) else { throw Unexpected(description: "bad base64") }
                return .data([UInt8](data))
            case ("uid", .int(let n)) where n >= 0: return .uid(PlistUID(UInt64(n)))
            case ("uid", .uint(let n)): return .uid(PlistUID(n))
            case ("set", .array(let items)):
                return .set(try items.map { try $0.plistValue(cfUIDDictionaries: cfUIDDictionaries) })
            case ("dict", .object(let entries)):
                if cfUIDDictionaries, entries.count == 1, let n = entries["CF$UID"] {
                    if case .int(let i) = n, i >= 0 { return .uid(PlistUID(UInt64(i))) }
                    if case .uint(let u) = n { return .uid(PlistUID(u)) }
                }
                return .dictionary(
                    PlistDictionary(
                        try entries.map { (PlistValue.string($0.key), try $0.value.plistValue(cfUIDDictionaries: cfUIDDictionaries)) }))
            case ("dict", .array(let pairs)):
                return .dictionary(
                    PlistDictionary(
                        try pairs.map { pair in
                            guard case .array(let kv) = pair, kv.count == 2 else { throw Unexpected(description: "bad pair") }
                            return (
                                try kv[0].plistValue(cfUIDDictionaries: cfUIDDictionaries),
                                try kv[1].plistValue(cfUIDDictionaries: cfUIDDictionaries)
                            )
                        }))
            default:
                throw Unexpected(description: "unknown tagged object \"\(tag)\"")
            }
        }
    }

    func number() throws -> Double {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        default: throw Unexpected(description: "expected a number")
        }
    }

    /// The `.plist.json` sibling of a fixture, as a plist value.
    static func expectedValue(forFixture relative: String, cfUIDDictionaries: Bool = true) throws -> PlistValue {
        let data = try Data(contentsOf: XMLTestFixtures.root.appendingPathComponent(relative + ".plist.json"))
        return try JSONDecoder().decode(XMLTestJSON.self, from: data).plistValue(cfUIDDictionaries: cfUIDDictionaries)
    }
}
