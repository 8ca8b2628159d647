import BinaryPlist

/// Builds keyed archives by hand, for hostile-input tests.
enum HostileArchive {
    static func classEntry(_ name: String, _ chain: [String]? = nil) -> PlistValue {
        .dictionary(["$classname": .string(name), "$classes": .array((chain ?? [name, "NSObject"]).map { .string($0) })])
    }

    static func uid(_ n: UInt64) -> PlistValue { .uid(PlistUID(n)) }

    /// A top-level dictionary from the given entries (pass `nil` to leave a key out).
    static func bytes(objects: PlistValue?, top: PlistValue? = .dictionary(["root": .uid(PlistUID(1))]),
                      version: PlistValue? = 100_000, archiver: PlistValue? = "NSKeyedArchiver",
                      format: PlistFormat = .binary) throws -> [UInt8] {
        var d = PlistDictionary()
        if let version { d["$version"] = version }
        if let archiver { d["$archiver"] = archiver }
        if let top { d["$top"] = top }
        if let objects { d["$objects"] = objects }
        return try PropertyList.encode(.dictionary(d), format: format)
    }

    static func bytes(_ objects: [PlistValue]) throws -> [UInt8] { try bytes(objects: .array(objects)) }
}
