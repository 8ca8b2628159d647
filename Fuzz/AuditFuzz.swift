// libFuzzer entry for `keyedarchive audit` and `graph` (ArchiveAudit, ObjectGraphModel): the input as a
// keyed archive. Checks: no trap; every error is a KeyedArchiveError; an audited archive renders as text and
// JSON, and its counts agree (no more objects reached than there are, shared objects no more than shared
// references); the graph model of an archive that audits builds, has as many nodes as the audit reached
// objects that are not scalars or fewer, and renders as DOT and HTML. Compiled by Fuzz/run.sh as DiffFuzz.swift is.
import BinaryPlist
import KeyedArchive
import ArchiveInspection

func auditFinding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let report: ArchiveAudit
    do {
        report = try ArchiveAudit.audit(bytes)
    } catch is KeyedArchiveError {
        return 0
    } catch {
        auditFinding("audit threw \(type(of: error)): \(error)")
    }
    _ = AuditRendering.text(report, file: "input", notAllowed: report.disallowed(by: []))
    _ = AuditRendering.json(report, file: "input", notAllowed: [])
    guard report.reached < report.objectCount, report.sharedObjects <= report.sharedReferences else {
        auditFinding("counts disagree: reached \(report.reached) of \(report.objectCount), shared \(report.sharedObjects) "
            + "by \(report.sharedReferences) references")
    }
    let model: ObjectGraphModel
    do {
        model = try ObjectGraphModel(archive: bytes)
    } catch {
        auditFinding("an archive that audits does not draw: \(error)")
    }
    guard model.nodes.count <= report.reached else {
        auditFinding("the graph has \(model.nodes.count) nodes, the audit reached \(report.reached) objects")
    }
    _ = GraphDOT.render(model)
    _ = GraphHTML.render(model, title: "input")
    return 0
}
