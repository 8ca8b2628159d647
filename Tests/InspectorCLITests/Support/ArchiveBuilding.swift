import BinaryPlist
import Foundation
import KeyedArchive
import ArchiveInspection
import TestSupport

/// Keyed archives written object by object for the inspector's tests: `$objects` as given (`$null` first),
/// `$top` holding `root` -> UID 1 unless told otherwise.
func keyedArchive(_ objects: [PlistValue], top: PlistDictionary = ["root": .uid(PlistUID(1))],
                  format: PlistFormat = .binary) throws -> [UInt8] {
    try ArchiveGraph(top: top, objects: ["$null"] + objects).encoded(format: format)
}

/// A class description entry: `{$classname: name, $classes: [name, ..., NSObject]}`.
func classEntry(_ name: String, _ supers: [String] = []) -> PlistValue {
    .dictionary(["$classname": .string(name), "$classes": .array(([name] + supers + ["NSObject"]).map { .string($0) })])
}

/// An object entry of the class at `classUID` with `fields`.
func instance(_ classUID: Int, _ fields: [(String, PlistValue)]) -> PlistValue {
    var d = PlistDictionary()
    for (k, v) in fields { d[k] = v }
    d["$class"] = .uid(PlistUID(UInt64(classUID)))
    return .dictionary(d)
}

func ref(_ uid: Int) -> PlistValue { .uid(PlistUID(UInt64(uid))) }

/// Writes `bytes` into `directory` under `name` and returns the path.
func write(_ bytes: [UInt8], _ name: String, in directory: TemporaryDirectory) throws -> String {
    try directory.write(bytes, to: name)
    return directory.file(name)
}

/// Our re-encoding of an archive: its graph form (`keyedarchive decode --graph`) written again by this package's
/// archiver (`keyedarchive encode`), which numbers, orders and uniques plist objects its own way.
func reencoded(_ bytes: [UInt8], format: PlistFormat = .binary) throws -> [UInt8] {
    try ArchiveJSON.encode(ArchiveJSON.renderGraph(bytes), format: format)
}

/// A chain of `depth` objects of class `Link`, each holding the next under `next` and its number under `n`.
func linkChain(depth: Int, changedAt: Int? = nil) throws -> [UInt8] {
    var objects: [PlistValue] = [classEntry("Link")]
    for i in 0..<depth {
        var fields: [(String, PlistValue)] = [("n", .integer(PlistInteger(i == changedAt ? -1 : i)))]
        if i + 1 < depth { fields.append(("next", ref(i + 3))) }
        objects.append(instance(1, fields))
    }
    return try keyedArchive(objects, top: ["root": ref(2)])
}
