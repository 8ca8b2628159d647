// libFuzzer entry for the archive-JSON reader (`keyedarchive encode`): the input as text through
// ArchiveJSON.encode. Errors must be KeyedArchiveError or PlistError. An archive it writes must read back
// (ArchiveGraph), render in the graph form, and that rendering must encode to the same bytes.
// Compiled by Fuzz/run.sh against BinaryPlist and KeyedArchive built as instrumented libraries (public API).
import BinaryPlist
import KeyedArchive
import ArchiveInspection

func archiveJSONFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let bytes: [UInt8]
    do {
        bytes = try ArchiveJSON.encode(text)
    } catch is KeyedArchiveError {
        return 0
    } catch is PlistError {
        return 0
    } catch {
        archiveJSONFinding("ArchiveJSON.encode threw \(type(of: error)): \(error)")
    }
    let graph: String
    do {
        _ = try ArchiveGraph(bytes: bytes)
        graph = try ArchiveJSON.renderGraph(bytes)
    } catch {
        archiveJSONFinding("an archive that encode wrote does not read back: \(error)")
    }
    do {
        guard try ArchiveJSON.encode(graph) == bytes else {
            archiveJSONFinding("the graph form of an encoded archive encodes to other bytes")
        }
    } catch {
        archiveJSONFinding("the graph form of an encoded archive does not encode: \(error)")
    }
    return 0
}
